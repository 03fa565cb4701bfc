#!/usr/bin/env bash
# A build chroot of one Debian suite, for kernels whose headers need that
# suite's compiler and libc. Nothing of that suite is installed on the host.
#
#   ci/chroot.sh SUITE               make it if it is missing; print its path
#   ci/chroot.sh SUITE run CMD...    run CMD inside it, with /proc mounted and
#                                    the build tree bind-mounted at its own path
#
# Chroots are cached in $KPROF_CACHE/chroots/<suite> and reused while their
# recipe (suites and base packages, below) is unchanged.
set -euo pipefail
. "$(dirname "$0")/common.sh"

MIRROR=http://deb.debian.org/debian
BASE_PKGS=(make binutils libc6-dev perl ca-certificates)

suite=${1:?usage: chroot.sh SUITE [run CMD...]}
shift
dir=$KPROF_CACHE/chroots/$suite

# The suites a chroot for $suite draws from: a backports suite needs its base.
sources() {
	local base=${suite%-backports}
	echo "deb $MIRROR $base main"
	[ "$base" = "$suite" ] || echo "deb $MIRROR $suite main"
}

# Cross compilers for the suite's other architectures (kernel modules), and
# in $KPROF_CROSS_SUITE what kprofctl's static cross build needs as well:
# the compilers and tools are the build machine's packages; the target's
# static libtracefs and libtraceevent (cross_libs) are unpacked, not
# installed, as the kernel headers are (ci/deps.sh), because installing
# them would pull the target's whole libc6 in, and the mirror does not
# always serve a foreign architecture's newest one (s390x's, in December
# 2026). The cross compiler brings the target's libc itself. The dynamic
# kprofctls' userlands (dyn_userlands) get libtracecmd1 installed (and
# libtracecmd-dev unpacked), and the arm64 guests' trace-cmd is installed,
# with their shared libraries, which the guests carry.
ARCHES=$(suite_arches "$suite" | tr '\n' ' ')
cross_pkgs() {
	local arch t
	for arch in $ARCHES; do
		t=$(cross_triplet "$arch")
		echo "gcc-$t"
		[ "$suite" = "$KPROF_CROSS_SUITE" ] || continue
		echo "g++-$t"
	done
	[ -n "$ARCHES" ] && [ "$suite" = "$KPROF_CROSS_SUITE" ] || return 0
	echo cmake pkg-config libcli11-dev nlohmann-json3-dev ccache
	for arch in $(dyn_userlands); do echo "libtracecmd1:$arch"; done
	for arch in $(foreign_tracecmd_arches); do echo "trace-cmd:$arch"; done
}
cross_libs() {
	local arch
	[ "$suite" = "$KPROF_CROSS_SUITE" ] || return 0
	for arch in $ARCHES; do
		echo "libtracefs-dev:$arch" "libtraceevent-dev:$arch"
	done
	# Not Multi-Arch: same (one architecture's excludes the others').
	for arch in $(dyn_userlands); do echo "libtracecmd-dev:$arch"; done
}
mapfile -t CROSS_PKGS < <(cross_pkgs | tr ' ' '\n')
PKGS=("${BASE_PKGS[@]}" "${CROSS_PKGS[@]}")
LIBS=$(cross_libs | tr '\n' ' ')

recipe() { printf '%s\n' "$(sources)" "arch: amd64 $ARCHES" "${PKGS[@]}" "unpacked: $LIBS"; }

# Anything mounted at or below the chroot (a run killed mid-way)?
mounts_below() { awk -v d="$dir" '$2 == d || index($2, d "/") == 1' /proc/mounts; }

ensure() {
	if [ -f "$dir/.kprof-recipe" ] && [ "$(cat "$dir/.kprof-recipe")" = "$(recipe)" ]; then
		return 0
	fi
	command -v mmdebstrap >/dev/null || die "mmdebstrap is missing; run 'make deps'"
	# Never remove a tree that has something mounted inside: rm would go
	# into the build tree or /proc through it.
	[ -z "$(mounts_below)" ] || die "something is mounted below $dir; unmount it first"
	info "making the $suite build chroot in $dir"
	rm -rf --one-file-system "$dir.tmp"
	mkdir -p "$(dirname "$dir")"
	local src=()
	while read -r line; do src+=("$line"); done < <(sources)
	# shellcheck disable=SC2016 # $1 is the hook's: the chroot's path
	mmdebstrap --quiet --variant=apt --skip=cleanup/apt/lists --include="$(IFS=,; echo "${PKGS[*]}")" \
		--architectures="$(read -r -a a <<<"amd64 $ARCHES"; IFS=,; echo "${a[*]}")" \
		--customize-hook='[ -z "'"$LIBS"'" ] || { chroot "$1" sh -c "cd /tmp && apt-get download -qq '"$LIBS"' >/dev/null" &&
			for f in "$1"/tmp/*.deb; do dpkg-deb -x "$f" "$1"; done && rm -f "$1"/tmp/*.deb; }' \
		"${suite%-backports}" "$dir.tmp" "${src[@]}" >/dev/null ||
		die "mmdebstrap of $suite failed"
	recipe >"$dir.tmp/.kprof-recipe"
	rm -rf --one-file-system "$dir"
	mv "$dir.tmp" "$dir"
}

# Run "$@" in the chroot, in a mount namespace of its own: /proc (objtool
# reads it), the source tree, the build tree and the kernel trees built from
# source ($KPROF_CACHE/kbuild, ci/debug-kernel.sh) are mounted there only, at
# their own paths, and vanish with it.
run() {
	local kbuild=$KPROF_CACHE/kbuild cc_env=()
	# make check's compiler cache settings (ci/check.sh), in the chroot's
	# own cache directory
	if [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ] && [ -x "$dir/usr/bin/ccache" ]; then
		mapfile -t cc_env < <(env | grep -E '^(CCACHE_|CMAKE_(C|CXX)_COMPILER_LAUNCHER=)')
		cc_env+=(CCACHE_DIR=/var/cache/ccache)
	fi
	mkdir -p "$KPROF_BUILD" "$dir$KPROF_TOP" "$dir$KPROF_BUILD" "$kbuild" "$dir$kbuild"
	unshare --mount --propagation private sh -euc '
		dir=$1 top=$2 build=$3 kbuild=$4
		shift 4
		mount -t proc proc "$dir/proc"
		mount --bind "$top" "$dir$top"
		mount --bind "$build" "$dir$build"
		mount --bind "$kbuild" "$dir$kbuild"
		exec chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive KPROF_BUILD="$build" "$@"
	' sh "$dir" "$KPROF_TOP" "$KPROF_BUILD" "$kbuild" "${cc_env[@]}" "$@"
}

ensure
case "${1:-}" in
'') echo "$dir" ;;
run) shift; run "$@" ;;
*) die "usage: chroot.sh SUITE [run CMD...]" ;;
esac
