#!/usr/bin/env bash
# The static kprofctl for every other architecture of the matrix, built the
# way the README's "Use it on your board" section says ('make static ARCH=...'),
# in the chroot of $KPROF_CROSS_SUITE, which has Debian's cross compilers and
# the multiarch libtracefs/libtraceevent static libraries.
set -euo pipefail
. "$(dirname "$0")/common.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# cross_build KIND TARGET ARCH WHERE: 'make TARGET' for ARCH in the chroot;
# WHERE is the kprofctl it must leave.
cross_build() {
	info "$1 kprofctl for $3"
	"$KPROF_TOP/ci/chroot.sh" "$KPROF_CROSS_SUITE" run make -s -C "$KPROF_TOP" "$2" \
		ARCH="$(kbuild_arch "$3")" CROSS_COMPILE="$(cross_triplet "$3")-" JOBS="${JOBS:-$(nproc)}" >"$log" 2>&1 ||
		{ cat "$log" >&2; die "the $1 kprofctl for $3 does not build"; }
	[ -x "$4" ] || die "no $4 after the build"
}

# (The linker's note that libtraceevent's plugin loader calls dlopen is
# expected: kprofctl loads no plugins.)
for arch in $(board_userlands); do
	cross_build static static "$arch" "$(static_kprofctl "$arch")"
done
for arch in $(dyn_userlands); do
	cross_build dynamic dyn "$arch" "$(dyn_kprofctl "$arch")"
done
