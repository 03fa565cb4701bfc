#!/usr/bin/env bash
# install.sh RELEASE DESTDIR PREFIX [all|dev]
#   all: kprof's modules built for RELEASE into DESTDIR/lib/modules/RELEASE/extra
#        (then depmod), kprofctl into DESTDIR/PREFIX/bin, and the dev files;
#        with ARCH= in the environment (a board), the static kprofctl built
#        by 'make static ARCH=...';
#   RELEASE empty: the release of the tree in $KDIR, else the running kernel's.
#   dev: only what an out-of-tree driver builds against: the API header in
#        PREFIX/include/kprof/ and kprof's Module.symvers for RELEASE in
#        PREFIX/share/kprof/RELEASE/ (see samples/oot/Makefile).
# Test-only modules are never installed.
set -euo pipefail
. "$(dirname "$0")/common.sh"

rel=$1 destdir=$2 prefix=$3 what=${4:-all}
if [ -z "$rel" ] && [ -n "${KDIR:-}" ]; then
	rel=$(kdir_release "$KDIR")
	[ -n "$rel" ] || die "cannot tell the release of $KDIR; pass KERNELRELEASE="
fi
if [ -z "$rel" ]; then
	[ -z "${ARCH:-}" ] || die "installing for ARCH=$ARCH: pass the board's KDIR= or KERNELRELEASE="
	rel=$(uname -r)
fi
mods=$KPROF_BUILD/modules/$rel
ls "$mods"/kprof*.ko >/dev/null 2>&1 ||
	die "no modules built for $rel; run 'make modules KERNELRELEASE=$rel' (or KDIR=...)"

install -D -m 0644 "$KPROF_TOP/include/kprof/kprof.h" "$destdir$prefix/include/kprof/kprof.h"
install -D -m 0644 "$mods/src/kmod/Module.symvers" "$destdir$prefix/share/kprof/$rel/Module.symvers"
[ "$what" = dev ] && exit 0
echo "installed $destdir$prefix/include/kprof/kprof.h and $destdir$prefix/share/kprof/$rel/Module.symvers"

if [ -n "${ARCH:-}" ]; then
	bin=$KPROF_BUILD/static-$ARCH/kprofctl
	[ -x "$bin" ] || die "no kprofctl for $ARCH; run 'make static ARCH=$ARCH'"
else
	bin=$KPROF_BUILD/host/kprofctl
	[ -x "$bin" ] || bin=$KPROF_BUILD/static/kprofctl
	[ -x "$bin" ] || die "kprofctl is not built; run 'make userspace' or 'make static'"
fi
extra=$destdir/lib/modules/$rel/extra
for ko in "$mods"/*.ko; do
	case "$(basename "$ko")" in kprof_test_* | kprof_stress.ko | kprof_example.ko | kprof_pktproc_nohooks.ko) continue ;; esac
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
