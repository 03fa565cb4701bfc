#!/usr/bin/env bash
# The source tree of one of kprof's DKMS modules, as DKMS wants it in
# /usr/src/<module>-<version>/: dkms.conf at the top, Kbuild sources only.
#   dkms/mktree.sh kprof|kprof-samples DEST
# Used by 'make dkms' and by debian/rules (kprof-dkms, kprof-samples-dkms).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
module=${1:?usage: mktree.sh kprof|kprof-samples DEST}
dest=${2:?usage: mktree.sh kprof|kprof-samples DEST}
[ -f "$top/dkms/$module.conf" ] || { echo "mktree.sh: no DKMS module '$module'" >&2; exit 2; }
mkdir -p "$dest/kmod" "$dest/include"
install -m 0644 "$top/dkms/$module.conf" "$dest/dkms.conf"
install -m 0644 "$top/dkms/Makefile.dkms" "$dest/Makefile.dkms"
cp -r "$top/include/kprof" "$top/include/trace" "$dest/include/"
install -m 0644 "$top"/kmod/Kbuild "$top"/kmod/*.[ch] "$dest/kmod/"
case "$module" in
kprof) install -m 0755 "$top/dkms/dkms-symvers" "$dest/dkms-symvers" ;;
kprof-samples)
	mkdir -p "$dest/samples/pktproc"
	install -m 0644 "$top"/samples/pktproc/Kbuild "$top"/samples/pktproc/*.c "$dest/samples/pktproc/"
	;;
esac
