#!/usr/bin/env bash
# The static kprofctl for every other architecture of the matrix, built the
# way the README's "On your board" section says ('make static ARCH=...'),
# in the chroot of $KPROF_CROSS_SUITE, which has Debian's cross compilers and
# the multiarch libtracefs/libtraceevent static libraries.
set -euo pipefail
. "$(dirname "$0")/common.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for arch in $(board_userlands); do
	info "static kprofctl for $arch"
	# (The linker's note that libtraceevent's plugin loader calls dlopen
	# is expected: kprofctl loads no plugins.)
	"$KPROF_TOP/ci/chroot.sh" "$KPROF_CROSS_SUITE" run make -s -C "$KPROF_TOP" static \
		ARCH="$(kbuild_arch "$arch")" CROSS_COMPILE="$(cross_triplet "$arch")-" JOBS="${JOBS:-$(nproc)}" >"$log" 2>&1 ||
		{ cat "$log" >&2; die "the static kprofctl for $arch does not build"; }
	[ -x "$(static_kprofctl "$arch")" ] || die "no $(static_kprofctl "$arch") after the build"
done
for arch in $(dyn_userlands); do
	info "dynamic kprofctl for $arch"
	"$KPROF_TOP/ci/chroot.sh" "$KPROF_CROSS_SUITE" run make -s -C "$KPROF_TOP" dyn \
		ARCH="$(kbuild_arch "$arch")" CROSS_COMPILE="$(cross_triplet "$arch")-" JOBS="${JOBS:-$(nproc)}" >"$log" 2>&1 ||
		{ cat "$log" >&2; die "the dynamic kprofctl for $arch does not build"; }
	[ -x "$(dyn_kprofctl "$arch")" ] || die "no $(dyn_kprofctl "$arch") after the build"
done
