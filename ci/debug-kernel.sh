#!/usr/bin/env bash
# The matrix's debug kernel (flavour "debug" in ci/kernels.list): Debian's
# own linux-source-6.12 from trixie, configured as tinyconfig plus
# ci/debug-kernel.config (what the guests need, and KASAN, lockdep, kmemleak,
# UBSAN, KFENCE and the other checkers), built in the trixie chroot.
#
#   ci/debug-kernel.sh release   print the release (uname -r) it builds
#   ci/debug-kernel.sh deps      install its build dependencies in the chroot
#   ci/debug-kernel.sh build     build it unless it is cached; then install
#                                its image for QEMU and its tree for Kbuild
#
# The source and build trees live in $KPROF_CACHE/kbuild/<key>, where the key
# is the source package's version and the config fragment's hash, so a new
# source or a changed fragment builds afresh and nothing else does. The image
# goes where tests/vm/harness/vm-run.sh boots kernels from (vmlinuz_path); the chroot's
# /lib/modules/<release>/build points at the build tree, for ci/build-modules.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SUITE=trixie
SOURCE=linux-source-6.12
FRAGMENT=$KPROF_TOP/ci/debug-kernel.config
BUILD_PKGS="$SOURCE gcc bc bison flex libelf-dev libssl-dev xz-utils cpio kmod"

chroot_run() { "$KPROF_TOP/ci/chroot.sh" "$SUITE" run "$@"; }

# The source package's version, as trixie's chroot offers it.
source_version() {
	local v
	v=$(chroot_run apt-cache policy "$SOURCE" | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] || die "no $SOURCE in the $SUITE chroot (run 'make deps')"
	echo "$v"
}

# 6.12.117-1 -> 6.12.117-kprof-debug (the fragment's CONFIG_LOCALVERSION).
release() {
	local v
	v=$(source_version)
	echo "${v%%-*}$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAGMENT")"
}

# fragment_options: the fragment's settings, without its comments (a
# comment's edit does not rebuild the kernel).
fragment_options() { grep -E '^(CONFIG_|# CONFIG_.* is not set$)' "$FRAGMENT"; }
key() { echo "$(source_version)-$(fragment_options | sha256sum | cut -c1-12)"; }

# check_config DIR: every option the fragment sets survived olddefconfig.
check_config() {
	local line missing=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$1/.config" || { echo "  $line" >&2; missing=1; } ;;
		'# CONFIG_'*' is not set') grep -qxF "$line" "$1/.config" || { echo "  $line" >&2; missing=1; } ;;
		esac
	done <"$FRAGMENT"
	[ "$missing" = 0 ] || die "the debug kernel's config lost the options above (dependencies unmet?)"
}

deps() {
	chroot_run sh -c "dpkg -s $BUILD_PKGS >/dev/null 2>&1 ||
		apt-get install -y -q --no-install-recommends $BUILD_PKGS >/dev/null" ||
		die "cannot install the kernel's build dependencies in the $SUITE chroot"
}

build() {
	local rel dir start chroot_dir
	rel=$(release)
	dir=$KPROF_CACHE/kbuild/$(key)
	if [ ! -f "$dir/.done" ]; then
		deps
		info "building the debug kernel $rel in $dir (4 to 15 minutes on 2 cores, as fast as the machine)"
		start=$(date +%s)
		rm -rf "$dir"
		mkdir -p "$dir/src" "$dir/build"
		chroot_dir=$("$KPROF_TOP/ci/chroot.sh" "$SUITE")
		tar -xJf "$chroot_dir/usr/src/$SOURCE.tar.xz" -C "$dir/src" --strip-components=1
		cp "$FRAGMENT" "$dir/fragment.config"
		chroot_run sh -euc '
			cd "$1/src"
			make -s O="$1/build" tinyconfig
			scripts/kconfig/merge_config.sh -m -O "$1/build" "$1/build/.config" "$1/fragment.config" >/dev/null
			make -s O="$1/build" olddefconfig
		' sh "$dir" || die "configuring the debug kernel failed"
		check_config "$dir/build"
		# All of it, not just modules_prepare: out-of-tree modules
		# need the tree's Module.symvers.
		chroot_run make -s -C "$dir/src" O="$dir/build" -j"$(nproc)" >"$dir/build.log" 2>&1 ||
			{ tail -n 30 "$dir/build.log" >&2; die "building the debug kernel failed (log: $dir/build.log)"; }
		[ "$(chroot_run make -s -C "$dir/src" O="$dir/build" kernelrelease)" = "$rel" ] ||
			die "the debug kernel's release is not $rel"
		echo "$(($(date +%s) - start))" >"$dir/build-seconds"
		touch "$dir/.done"
		info "debug kernel built in $(cat "$dir/build-seconds") s"
		# A tree is 2 GB: drop those of older sources or fragments.
		find "$KPROF_CACHE/kbuild" -mindepth 1 -maxdepth 1 -type d ! -name "$(basename "$dir")" -exec rm -rf {} +
	fi
	install -D -m 0644 "$dir/build/arch/x86/boot/bzImage" "$(vmlinuz_path "$rel")"
	# Its guest needs no module of its own: virtio is built in.
	mkdir -p "$(guest_kmods_dir "$rel")"
	touch "$(guest_kmods_dir "$rel")/.done"
	chroot_run sh -c "mkdir -p /lib/modules/$rel && ln -sfn $dir/build /lib/modules/$rel/build"
}

case "${1:-}" in
release) release ;;
deps) deps ;;
build) build ;;
*) die "usage: $0 release|deps|build" ;;
esac
