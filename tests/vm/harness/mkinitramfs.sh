#!/usr/bin/env bash
# Build the test guest's initramfs for one kernel release:
#   busybox-static, tests/vm/harness/guest-init as /init, the modules built for that
#   release (build/modules/<rel>/*.ko -> /lib/kprof), the kernel's own
#   modules some tests load (-> /lib/kmods), the static kprofctl
#   (-> /usr/local/bin) and the tests/vm/ scripts (-> /tests), all for the
#   guest's architecture (default amd64); x86 guests also trace-cmd, tmux
#   and the dynamic kprofctl of the host build; arm64 and amd64 guests also
#   the armhf or i386 kprofctl, as kprofctl32, and the dynamic one, as
#   kprofctl32-dyn, with its libraries; arm64 guests also trace-cmd.
#
#   tests/vm/harness/mkinitramfs.sh RELEASE OUTPUT.cpio [ARCH]
#
# The archive is not compressed: a guest under TCG unpacks 34 MB of cpio
# faster than it inflates 15 MB of gzip (0.5 to 1 s a boot).
set -euo pipefail
. "$(dirname "$0")/../../../ci/common.sh"

rel=${1:?usage: mkinitramfs.sh RELEASE OUTPUT}
out=${2:?usage: mkinitramfs.sh RELEASE OUTPUT}
arch=${3:-amd64}
mods=$KPROF_BUILD/modules/$rel
kprofctl=$(static_kprofctl "$arch")
busybox=$(busybox_path "$arch")

[ -x "$busybox" ] || die "no busybox for $arch at $busybox; run 'make deps'"
ls "$mods"/*.ko >/dev/null 2>&1 || die "no modules built for $rel; run 'make modules'"
[ -x "$kprofctl" ] || die "no static kprofctl for $arch at $kprofctl; run 'make static' (ARCH= for a board)"

# copy_foreign_libs SYSROOT MULTIARCH DEST FILE: the shared libraries FILE
# loads, transitively, and its loader, from SYSROOT's /usr/lib/MULTIARCH
# into DEST's /lib/MULTIARCH (the loader where FILE names it). A foreign
# userland: its ld.so cannot run here, so the ELF headers are read.
copy_foreign_libs() {
	local sysroot=$1 ma=$2 dest=$3 f lib seen=' ' todo interp
	todo=("$4")
	mkdir -p "$dest/lib/$ma"
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case "$seen" in *" $lib "*) continue ;; esac
			seen="$seen$lib "
			[ -e "$sysroot/usr/lib/$ma/$lib" ] || die "no $lib (for $(basename "$f")) in $sysroot/usr/lib/$ma"
			cp -L "$sysroot/usr/lib/$ma/$lib" "$dest/lib/$ma/"
			todo+=("$sysroot/usr/lib/$ma/$lib")
		done
	done
	interp=$(readelf -l "$4" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p')
	[ -z "$interp" ] || { mkdir -p "$dest$(dirname "$interp")"; cp -L "$sysroot/usr/lib/$ma/$(basename "$interp")" "$dest$interp"; }
}

root=$(mktemp -d)
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,lib/kprof,usr/local/bin,tests}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$KPROF_TOP/tests/vm/harness/guest-init" "$root/init"
cp "$mods"/*.ko "$root/lib/kprof/"
# The kernel's own modules the tests may load (ci/deps.sh: GUEST_KMODS).
mkdir -p "$root/lib/kmods"
cp "$(guest_kmods_dir "$rel")"/*.ko "$root/lib/kmods/" 2>/dev/null || true
cp "$kprofctl" "$root/usr/local/bin/kprofctl"
# The debugfs write fuzzer of tests/vm/debugfs_fuzz.sh, built with it.
cp "$(dirname "$kprofctl")/kprof-wfuzz" "$root/usr/local/bin/" 2>/dev/null || true
# The gpio-sim line driver of tests/vm/girq_gpiosim.sh, built with it.
cp "$(dirname "$kprofctl")/kprof-gpioev" "$root/usr/local/bin/" 2>/dev/null || true
cp "$(dirname "$kprofctl")/kprof-pingpong" "$root/usr/local/bin/" 2>/dev/null || true
# arm64 and amd64 guests also get the armhf or i386 kprofctl, as
# kprofctl32: a 32-bit userland on a 64-bit kernel (tests/vm/*32.sh), when
# 'make boards' has built it ('make demo' does not; a test that needs it
# fails in the guest, saying so).
a32=$(userland32_of "$arch")
k32=
[ -z "$a32" ] || k32=$(static_kprofctl "$a32")
[ ! -x "$k32" ] || cp "$k32" "$root/usr/local/bin/kprofctl32"
# x86 guests also get trace-cmd and the host's dynamic kprofctl as
# kprofctl-dyn (report -i needs libtracecmd, of which Debian ships no
# static build), with the libraries they load.
# So does tmux (kprofctl_top), with the C.UTF-8 locale it insists on and
# the terminfo of the terminal it emulates, and rt-tests' cyclictest
# (make bench's S2, tests/vm/bench/bench_rt.sh). With KPROF_VM_PERF=1, perf
# too (make bench's profiles, tests/vm/bench/bench_profile.sh and
# bench_hook_profile.sh): its libraries are large, and no other guest
# needs them.
if [ "$arch" = amd64 ] && [ -x "$KPROF_BUILD/host/kprofctl" ] && [ -x /usr/bin/trace-cmd ]; then
	cp /usr/bin/trace-cmd /usr/bin/tmux "$root/usr/local/bin/"
	extra=()
	[ ! -x /usr/bin/cyclictest ] || extra=(/usr/bin/cyclictest)
	[ -z "${KPROF_VM_PERF:-}" ] || extra+=(/usr/bin/perf)
	[ ${#extra[@]} -eq 0 ] || cp "${extra[@]}" "$root/usr/local/bin/"
	# Without its debug info (39 MB of the guest's 56): every guest unpacks
	# the initramfs, and a debug kernel does so slowly.
	strip --strip-debug -o "$root/usr/local/bin/kprofctl-dyn" "$KPROF_BUILD/host/kprofctl"
	ldd /usr/bin/trace-cmd /usr/bin/tmux "$KPROF_BUILD/host/kprofctl" "${extra[@]}" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } NF == 2 && $1 ~ /^\// { print $1 }' |
		sort -u | while read -r lib; do cp -L --parents "$lib" "$root"; done
	cp -r --parents /usr/lib/locale/C.utf8 /lib/terminfo/s/screen "$root"
fi
# The amd64 and arm64 guests also get the dynamic i386 or armhf kprofctl,
# as kprofctl32-dyn: report -i of a 32-bit userland
# (tests/vm/kprofctl_report32.sh), with the libraries it loads, from the
# chroot that built it; the arm64 ones also trace-cmd from there.
sysroot=$KPROF_CACHE/chroots/$KPROF_CROSS_SUITE
if [ -n "$a32" ] && dyn_userlands | grep -qx "$a32" && [ -x "$(dyn_kprofctl "$a32")" ]; then
	dyn=$(dyn_kprofctl "$a32")
	cp "$dyn" "$root/usr/local/bin/kprofctl32-dyn"	# a Release build: no debug info
	copy_foreign_libs "$sysroot" "$(multiarch_of "$a32")" "$root" "$dyn"
fi
if foreign_tracecmd_arches | grep -qx "$arch"; then
	cp "$sysroot/usr/bin/trace-cmd" "$root/usr/local/bin/"
	copy_foreign_libs "$sysroot" "$(multiarch_of "$arch")" "$root" "$sysroot/usr/bin/trace-cmd"
fi
# Every guest script and helper, side by side in /tests (/tests/lib.sh).
mapfile -t scripts < <(guest_scripts)
cp "${scripts[@]}" "$KPROF_TOP"/tests/vm/lib/* "$root/tests/"
# Files a host test hands its guest (tests/host/dkms.sh: modules DKMS built).
if [ -n "${KPROF_VM_EXTRA:-}" ]; then
	mkdir -p "$root/extra"
	cp -a "$KPROF_VM_EXTRA"/. "$root/extra/"
fi
# A console node must exist before devtmpfs is mounted.
mknod -m 600 "$root/dev/console" c 5 1
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
