#!/usr/bin/env bash
# 'make deb' builds kprof's four Debian packages, lintian finds no error in
# them, and each holds what it should: kprofctl its binary and man page,
# kprof-dkms and kprof-samples-dkms their DKMS trees, kprof-dev the header
# and the out-of-tree example. The versions agree everywhere.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"
out=$KPROF_BUILD/deb

fail() {
	echo "FAIL: $*"
	exit 1
}

bash "$KPROF_TOP/scripts/deb.sh"
version=$(dpkg-parsechangelog -l "$KPROF_TOP/debian/changelog" -S Version)
for where in "CMakeLists.txt:$(sed -n 's/^project(kprof VERSION \([0-9.]*\) .*/\1/p' "$KPROF_TOP/CMakeLists.txt")" \
	"kmod/kprof_internal.h:$(sed -n 's/^#define KPROF_VERSION "\(.*\)"/\1/p' "$KPROF_TOP/kmod/kprof_internal.h")" \
	"dkms/kprof.conf:$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KPROF_TOP/dkms/kprof.conf")" \
	"dkms/kprof-samples.conf:$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KPROF_TOP/dkms/kprof-samples.conf")"; do
	[ "${where#*:}" = "$version" ] || fail "${where%%:*} says version '${where#*:}', debian/changelog $version"
done

# has PACKAGE PATH...: the package's files include each PATH.
has() {
	local deb list p
	deb=$(compgen -G "$out/${1}_${version}_*.deb" | head -n 1)
	[ -n "$deb" ] || fail "no $1 package in $out"
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	shift
	for p in "$@"; do
		echo "$list" | grep -qx "$p" || fail "$(basename "$deb") has no $p"
	done
}
has kprofctl /usr/bin/kprofctl /usr/share/man/man8/kprofctl.8.gz
has kprof-dkms /usr/src/kprof-"$version"/dkms.conf /usr/src/kprof-"$version"/Makefile.dkms \
	/usr/src/kprof-"$version"/dkms-symvers /usr/src/kprof-"$version"/kmod/Kbuild \
	/usr/src/kprof-"$version"/include/trace/events/kprof.h
has kprof-samples-dkms /usr/src/kprof-samples-"$version"/dkms.conf \
	/usr/src/kprof-samples-"$version"/samples/pktproc/kprof_pktproc.c
has kprof-dev /usr/include/kprof/kprof.h /usr/share/doc/kprof-dev/examples/oot/Makefile
# The packaged kprofctl is this one, and its man page renders.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$(ls "$out"/kprofctl_"$version"_*.deb)" "$tmp"
expect=$("$tmp/usr/bin/kprofctl" --version)
[ "$expect" = "kprofctl $version" ] || fail "the packaged kprofctl says '$expect'"
man --warnings=w -l "$tmp/usr/share/man/man8/kprofctl.8.gz" 2>&1 >/dev/null | grep . && fail "the packaged man page warns"
echo "deb: 4 packages of kprof $version; lintian: no errors ($(grep -c '^[WIP]:' "$out/lintian.txt" || true) other tags)"
