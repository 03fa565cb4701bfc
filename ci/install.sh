#!/usr/bin/env bash
# install.sh RELEASE DESTDIR PREFIX: install kprof's modules built for RELEASE
# into DESTDIR/lib/modules/RELEASE/extra (then depmod), and kprofctl into
# DESTDIR/PREFIX/bin. Test-only modules are never installed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

rel=$1 destdir=$2 prefix=$3
mods=$KPROF_BUILD/modules/$rel
ls "$mods"/kprof*.ko >/dev/null 2>&1 ||
	die "no modules built for $rel; run 'make modules KERNELRELEASE=$rel' (or KDIR=...)"
bin=$KPROF_BUILD/host/kprofctl
[ -x "$bin" ] || bin=$KPROF_BUILD/static/kprofctl
[ -x "$bin" ] || die "kprofctl is not built; run 'make userspace' or 'make static'"

extra=$destdir/lib/modules/$rel/extra
for ko in "$mods"/*.ko; do
	case "$(basename "$ko")" in kprof_test_*) continue ;; esac
	install -D -m 0644 "$ko" "$extra/$(basename "$ko")"
	echo "installed $extra/$(basename "$ko")"
done
install -D -m 0755 "$bin" "$destdir$prefix/bin/kprofctl"
echo "installed $destdir$prefix/bin/kprofctl"
if [ -z "$destdir" ]; then
	depmod -a "$rel"
else
	depmod -a -b "$destdir" "$rel"
fi
