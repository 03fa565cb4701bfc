#!/usr/bin/env bash
# 'make dkms': one of kprof's DKMS modules from this checkout, the way the
# kprof-dkms package installs it: the tree in /usr/src/<module>-<version>,
# then dkms add, build and install for the running kernel, or for KREL.
#   [KREL=<release>] scripts/dkms.sh kprof|kprof-samples
set -euo pipefail
. "$(dirname "$0")/../ci/common.sh"
# make's state and the variables it exports ('make dkms SAMPLES=1
# KERNELRELEASE=...') must not reach the make that DKMS runs: kprof's own
# build would then build the samples too.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES SAMPLES KERNELRELEASE
module=${1:?usage: dkms.sh kprof|kprof-samples}
command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"
[ "$(id -u)" = 0 ] || die "DKMS installs into /usr/src and /lib/modules: run as root"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KPROF_TOP/dkms/$module.conf")
dest=/usr/src/$module-$version
if dkms status -m "$module" -v "$version" | grep -q .; then
	dkms remove -m "$module" -v "$version" --all
fi
rm -rf "$dest"
"$KPROF_TOP/dkms/mktree.sh" "$module" "$dest"
dkms add -m "$module" -v "$version"
dkms install -m "$module" -v "$version" ${KREL:+-k "$KREL"}
