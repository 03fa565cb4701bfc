#!/usr/bin/env bash
# Build kprof's kernel modules with Kbuild, once per kernel, each kernel into
# its own tree: build/modules/<release>/{src/,*.ko}.
#
#   ci/build-modules.sh                   every kernel of the matrix
#   KDIR=/path [KREL=rel] ci/build-modules.sh   one kernel (a user's board);
#       ARCH= and CROSS_COMPILE= in the environment cross-build (Kbuild reads them)
#
# Builds run at W=1; any compiler warning in kprof's own files fails the build.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# The top Makefile's command line must not leak into Kbuild (KERNELRELEASE
# in particular means "inside Kbuild" to the kernel's makefiles).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES KERNELRELEASE
JOBS=${JOBS:-$(nproc)}
# Empty means "not set" to us, but Kbuild's "ARCH ?=" would keep an empty one.
[ -n "${ARCH:-}" ] || unset ARCH
[ -n "${CROSS_COMPILE:-}" ] || unset CROSS_COMPILE

# Module directories in build order; later ones link against kmod's symbols.
DIRS=(kmod samples/pktproc tests/kmod)
# samples/oot is not among them: it is built like a user's driver, below.

# kmake ARGS...: make, inside $CHROOT_SUITE's chroot when there is one (the
# build tree is bind-mounted there at its own path).
CHROOT_SUITE=
kmake() {
	if [ -n "$CHROOT_SUITE" ]; then
		"$KPROF_TOP/ci/chroot.sh" "$CHROOT_SUITE" run make "$@"
	else
		make "$@"
	fi
}

# build_one KDIR RELEASE [SUITE]: KDIR is the path as the build sees it (in
# the suite's chroot for a chroot suite).
build_one() {
	local kdir=$1 rel=$2 out=$KPROF_BUILD/modules/$2 log d symvers extra
	CHROOT_SUITE=
	if [ -n "${3:-}" ] && ! host_suite "$3"; then
		CHROOT_SUITE=$3
	fi
	# Checked where the build runs: a chroot's links are absolute within it.
	kmake -s -C "$kdir" kernelversion >/dev/null 2>&1 ||
		die "no kernel build tree at $kdir${CHROOT_SUITE:+ in the $CHROOT_SUITE chroot} (for $rel): run 'make deps' or pass KDIR="
	info "modules for $rel"
	mkdir -p "$out/src"
	# Kbuild before 6.13 writes objects next to the sources, so each kernel
	# gets its own copy; cp -u keeps unchanged files' times for incremental builds.
	mkdir -p "$out/src/tests"
	cp -a -u "$KPROF_TOP/include" "$KPROF_TOP/kmod" "$KPROF_TOP/samples" "$out/src/"
	cp -a -u "$KPROF_TOP/tests/kmod" "$out/src/tests/"
	log=$(mktemp)
	symvers=$out/src/kmod/Module.symvers
	for d in "${DIRS[@]}"; do
		[ -f "$out/src/$d/Kbuild" ] || continue
		# Kbuild does not relink a module when the symbol versions it
		# imports change: relink kprof's users whenever kprof's did.
		if [ "$d" != kmod ] && ! cmp -s "$symvers" "$out/src/$d/.kprof.symvers"; then
			kmake -C "$kdir" M="$out/src/$d" clean >/dev/null 2>&1 || true
			cp "$symvers" "$out/src/$d/.kprof.symvers"
		fi
		extra=()
		[ "$d" = kmod ] || extra=(KBUILD_EXTRA_SYMBOLS="$symvers")
		if ! kmake -j"$JOBS" -C "$kdir" M="$out/src/$d" W=1 "${extra[@]}" modules >"$log" 2>&1; then
			cat "$log" >&2
			rm -f "$log"
			die "module build failed in $d for $rel"
		fi
		if grep -E "^$out/src/.*(warning|error):" "$log" >&2; then
			rm -f "$log"
			die "compiler warnings in $d for $rel (kprof builds warning-free at W=1)"
		fi
		find "$out/src/$d" -maxdepth 1 -name '*.ko' -exec cp -u {} "$out/" \;
	done
	rm -f "$log"

	# samples/oot is built the way a user builds their own driver: with its
	# own Makefile, against an installed kprof (staged here), not our tree.
	"$KPROF_TOP/scripts/install.sh" "$rel" "$out/stage" /usr/local dev
	rm -rf "$out/oot"
	cp -a "$KPROF_TOP/samples/oot" "$out/oot"
	if ! kmake -C "$out/oot" KDIR="$kdir" KPROF="$out/stage/usr/local" >"$out/oot.log" 2>&1; then
		cat "$out/oot.log" >&2
		die "the out-of-tree example does not build against the installed kprof for $rel"
	fi
	cp "$out/oot/kprof_example.ko" "$out/"
	echo "$kdir" >"$out/kdir"
	info "  $(cd "$out" && echo *.ko)"
}

if [ -n "${KDIR:-}" ]; then
	rel=${KREL:-$(kdir_release "$KDIR")}
	[ -n "$rel" ] || die "cannot tell the release of $KDIR; pass KERNELRELEASE="
	build_one "$KDIR" "$rel"
else
	[ -z "${ARCH:-}${CROSS_COMPILE:-}" ] || die "ARCH= and CROSS_COMPILE= build for one board: pass its tree as KDIR="
	while read -r id rel suite arch; do
		if [ "$arch" = amd64 ]; then
			build_one "/lib/modules/$rel/build" "$rel" "$suite"
			continue
		fi
		# A board's build, exactly as the README's "Use it on your board" says,
		# with Debian's headers for that architecture as the board's tree.
		"$KPROF_TOP/ci/chroot.sh" "$suite" run make -C "$KPROF_TOP" modules \
			KDIR="/usr/src/linux-headers-$rel" ARCH="$(kbuild_arch "$arch")" \
			CROSS_COMPILE="$(cross_triplet "$arch")-" JOBS="$JOBS" ||
			die "cross build for $id ($rel) failed"
	done < <(kernels_each)
fi
