#!/usr/bin/env bash
# Install what kprof needs on a Debian 12 host; skip what is already there.
# Idempotent: a second run with everything present does no apt work at all.
#
#   ci/deps.sh        everything 'make check' needs: the whole kernel matrix
#   ci/deps.sh demo   only what 'make demo' needs: the packages that build
#                     kprof and boot an x86 guest, and the demo's kernel
set -euo pipefail
. "$(dirname "$0")/common.sh"

# What building kprof.ko and a static kprofctl, and booting an amd64 guest, take.
DEMO_PKGS=(
	build-essential cmake pkg-config kmod
	libtracefs-dev libtraceevent-dev libcli11-dev nlohmann-json3-dev
	qemu-system-x86 busybox-static cpio xz-utils
)
# What the tests, the other architectures, the sanitizers and the packages add.
PKGS=(
	"${DEMO_PKGS[@]}" clang libclang-rt-14-dev libtracecmd-dev libboost-test-dev
	qemu-system-arm qemu-system-misc curl trace-cmd mmdebstrap zstd
	librsvg2-bin libxml2-utils libzstd-dev man-db groff-base tmux shellcheck rt-tests
	debhelper dh-dkms lintian ccache
)
case "${1:-all}" in
all) ;;
demo)
	PKGS=("${DEMO_PKGS[@]}")
	KPROF_KERNEL_IDS=$(demo_kernel)
	export KPROF_KERNEL_IDS
	;;
*) die "usage: $0 [demo]" ;;
esac
BACKPORTS=/etc/apt/sources.list.d/kprof-backports.sources

[ "$(id -u)" = 0 ] || die "'make deps' installs packages and must run as root (try: sudo make deps)"
command -v apt-get >/dev/null && command -v dpkg-query >/dev/null ||
	die "apt-get/dpkg not found: kprof's dependency installer needs Debian 12 (bookworm)"

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	info "apt-get update"
	apt-get update -q >/dev/null || die "apt-get update failed"
	updated=1
}

# The suites of the matrix that build in a chroot (ci/chroot.sh).
chroot_suites() {
	local suite
	while read -r _ _ suite _; do
		host_suite "$suite" || echo "$suite"
	done < <(matrix_lines) | sort -u
}

chroot_update() {
	local suite
	for suite in $(chroot_suites); do
		info "apt-get update in the $suite chroot"
		"$KPROF_TOP/ci/chroot.sh" "$suite" run apt-get update -q >/dev/null ||
			die "apt-get update in the $suite chroot failed"
	done
}

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

install_pkgs() {
	local todo
	mapfile -t todo < <(missing "$@")
	[ ${#todo[@]} -eq 0 ] && return 0
	apt_update
	info "installing: ${todo[*]}"
	apt-get install -y -q --no-install-recommends "${todo[@]}" >/dev/null ||
		die "apt-get install ${todo[*]} failed"
}

# The 6.12 kernel of the matrix comes from bookworm-backports.
# (grep -q reads from a process substitution: under pipefail, a writer
# it stops early would fail the test, as 80 of 200 tries did here.)
if grep -q ' bookworm-backports ' < <(matrix_lines) &&
	! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	info "adding the bookworm-backports apt suite ($BACKPORTS)"
	cat >"$BACKPORTS" <<'EOS'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
	updated=0
	apt_update
fi

install_pkgs "${PKGS[@]}"

# The suites' build chroots first, so that making them is seen (resolving
# reads their apt lists).
for suite in $(chroot_suites); do
	"$KPROF_TOP/ci/chroot.sh" "$suite" >/dev/null
done

# Resolve the matrix against apt's current lists; refresh them once if an
# entry cannot be resolved (a fresh machine may never have run apt-get update).
if ! "$KPROF_TOP/ci/kernels.sh" resolve >/dev/null 2>&1; then
	apt_update
	chroot_update
	"$KPROF_TOP/ci/kernels.sh" resolve >/dev/null
fi

# fetch_deb SUITE PKG[:ARCH]: PKG's .deb in the cache, downloaded once (in
# SUITE's chroot for a chroot suite, or for another architecture).
fetch_deb() {
	local suite=$1 pkg=$2 name=${2%%:*} arch='*' deb dir
	[ "$pkg" = "$name" ] || arch=${pkg#*:}
	deb=$(compgen -G "$KPROF_CACHE/debs/${name}_*_$arch.deb" | head -n 1 || true)
	if [ -z "$deb" ]; then
		info "downloading $pkg"
		mkdir -p "$KPROF_CACHE/debs"
		if host_suite "$suite" && [ "$pkg" = "$name" ]; then
			# apt drops privileges to _apt for downloads; let it write there.
			chown _apt "$KPROF_CACHE/debs" 2>/dev/null || true
			(cd "$KPROF_CACHE/debs" && apt-get download -q "$pkg" >/dev/null) || die "cannot download $pkg"
		else
			dir=$("$KPROF_TOP/ci/chroot.sh" "$suite")
			"$KPROF_TOP/ci/chroot.sh" "$suite" run sh -c "cd /tmp && apt-get download -q $pkg >/dev/null" ||
				die "cannot download $pkg in the $suite chroot"
			mv "$dir"/tmp/"$name"_*.deb "$KPROF_CACHE/debs/"
		fi
		deb=$(compgen -G "$KPROF_CACHE/debs/${name}_*_$arch.deb" | head -n 1)
	fi
	echo "$deb"
}

# cross_headers SUITE REL ARCH: ARCH's headers for REL in SUITE's chroot, the
# way a user cross-builds on Debian: the native linux-kbuild, and the
# ARCH headers (plus their -common) unpacked, since they cannot be installed
# next to the native compiler.
cross_headers() {
	local suite=$1 rel=$2 arch=$3 dir deps kbuild common
	dir=$("$KPROF_TOP/ci/chroot.sh" "$suite")
	[ -f "$dir/usr/src/linux-headers-$rel/Makefile" ] && return 0
	deps=$("$KPROF_TOP/ci/chroot.sh" "$suite" run apt-cache show "linux-headers-$rel:$arch" | sed -n 's/^Depends: //p' | head -n 1)
	kbuild=$(echo "$deps" | grep -o 'linux-kbuild-[^ ,]*' | head -n 1)
	common=$(echo "$deps" | grep -o 'linux-headers-[^ ,]*-common[^ ,]*' | head -n 1)
	[ -n "$kbuild" ] && [ -n "$common" ] || die "cannot tell the dependencies of linux-headers-$rel:$arch"
	"$KPROF_TOP/ci/chroot.sh" "$suite" run apt-get install -y -q --no-install-recommends "$kbuild" >/dev/null ||
		die "cannot install $kbuild in the $suite chroot"
	dpkg-deb -x "$(fetch_deb "$suite" "$common")" "$dir"
	dpkg-deb -x "$(fetch_deb "$suite" "linux-headers-$rel:$arch")" "$dir"
}

# install_headers SUITE REL ARCH: Kbuild's tree for REL where the build runs.
install_headers() {
	local suite=$1 rel=$2 arch=$3
	if [ "$arch" != amd64 ]; then
		cross_headers "$suite" "$rel" "$arch"
	elif host_suite "$suite"; then
		install_pkgs "linux-headers-$rel"
	else
		"$KPROF_TOP/ci/chroot.sh" "$suite" run sh -c \
			"dpkg -s linux-headers-$rel >/dev/null 2>&1 || apt-get install -y -q --no-install-recommends linux-headers-$rel >/dev/null" ||
			die "cannot install linux-headers-$rel in the $suite chroot"
	fi
}

# The guests of other architectures run that architecture's busybox.
guest_busybox() {
	local arch=$1 dest tmp
	dest=$(busybox_path "$arch")
	[ -x "$dest" ] && return 0
	tmp=$(mktemp -d)
	dpkg-deb -x "$(fetch_deb "$KPROF_CROSS_SUITE" "busybox-static:$arch")" "$tmp"
	mkdir -p "$(dirname "$dest")"
	install -m 0755 "$(compgen -G "$tmp/bin/busybox" || compgen -G "$tmp/usr/bin/busybox")" "$dest"
	rm -rf "$tmp"
}

# unpack_vmlinuz DEB REL DEST: the kernel image from DEB (./boot/vmlinuz-REL,
# or ./usr/lib/modules/REL/vmlinuz in the newest packages), false if none.
unpack_vmlinuz() {
	local deb=$1 rel=$2 dest=$3 tmp f
	tmp=$(mktemp -d)
	dpkg-deb -x "$deb" "$tmp"
	for f in "$tmp/boot/vmlinuz-$rel" "$tmp/usr/lib/modules/$rel/vmlinuz"; do
		if [ -s "$f" ]; then
			mv "$f" "$dest"
			rm -rf "$tmp"
			return 0
		fi
	done
	rm -rf "$tmp"
	return 1
}

# has_pvh ELF: the kernel image has a PVH entry point (the ELF note
# XEN_ELFNOTE_PHYS32_ENTRY, type 18).
has_pvh() { grep -q 'Unknown note type: (0x00000012)' < <(readelf -n "$1" 2>/dev/null); }

# unpack_bzimage BZIMAGE OUT: the vmlinux inside an x86 bzImage, from the
# payload that the boot protocol's header locates (Documentation/arch/x86/
# boot.rst: setup_sects at 0x1f1, payload_offset at 0x248, payload_length at
# 0x24c; the payload ends with the 4-byte uncompressed size); false if it is
# no bzImage or its compression is not gzip, xz or zstd.
unpack_bzimage() {
	local in=$1 out=$2 setup start len magic dec
	[ "$(dd if="$in" bs=1 skip=514 count=4 status=none)" = HdrS ] || return 1
	setup=$(od -An -tu1 -j 0x1f1 -N1 "$in" | tr -d ' ')
	[ "$setup" != 0 ] || setup=4
	start=$(((setup + 1) * 512 + $(od -An -tu4 --endian=little -j 0x248 -N4 "$in" | tr -d ' ')))
	len=$(od -An -tu4 --endian=little -j 0x24c -N4 "$in" | tr -d ' ')
	magic=$(od -An -tx1 -j "$start" -N4 "$in" | tr -d ' ')
	case "$magic" in
	1f8b*) dec="gzip -dc" ;;
	fd377a58) dec="xz -dc --single-stream" ;;
	28b52ffd) dec="zstd -dcq" ;;
	*) return 1 ;;
	esac
	dd if="$in" iflag=skip_bytes,count_bytes skip="$start" count=$((len - 4)) bs=64K status=none | $dec >"$out"
}
# pvh_image REL: the PVH image of an x86 kernel (common.sh's pvh_path),
# unpacked once from its bzImage; none for a kernel without a PVH entry.
pvh_image() {
	local vmlinuz pvh
	vmlinuz=$(vmlinuz_path "$1")
	pvh=$(pvh_path "$1")
	[ ! -s "$pvh" ] || return 0
	if unpack_bzimage "$vmlinuz" "$pvh.tmp" && has_pvh "$pvh.tmp"; then
		mv "$pvh.tmp" "$pvh"
	else
		rm -f "$pvh.tmp"
	fi
}

# The kernel's own modules some guest tests load (virtio-blk; gpio-sim, a
# real driver behind a threaded IRQ), in load order. Those the kernel has
# built in, or does not have, are simply absent.
GUEST_KMODS="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk configfs gpio-sim"

# unpack_kmods DEB DEST: GUEST_KMODS from the package DEB into DEST
# (uncompressed: busybox insmod takes plain .ko); false if it has none.
unpack_kmods() {
	local deb=$1 dest=$2 tmp m f found=1
	tmp=$(mktemp -d)
	mkdir -p "$dest"
	dpkg-deb -x "$deb" "$tmp"
	for m in $GUEST_KMODS; do
		f=$(find "$tmp" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
		case "$f" in
		*.xz) xz -dc "$f" >"$dest/$m.ko" && found=0 ;;
		?*) cp "$f" "$dest/$m.ko" && found=0 ;;
		esac
	done
	rm -rf "$tmp"
	return $found
}

# guest_kmods ID REL SUITE PKGARCH: the kernel's GUEST_KMODS, from its image
# package or, for the newest packaging (7.x: the image package holds no
# module), linux-modules-REL (about 100 MB, unpacked in seconds). An entry
# that runs every test must have them. DEST/.done holds the list it was
# done for, so that a cache made for a shorter list is redone.
guest_kmods() {
	local id=$1 rel=$2 suite=$3 pa=$4 dest
	dest=$(guest_kmods_dir "$rel")
	[ "$(cat "$dest/.done" 2>/dev/null)" != "$GUEST_KMODS" ] || return 0
	if ! unpack_kmods "$(fetch_deb "$suite" "linux-image-$rel$pa")" "$dest" &&
		! unpack_kmods "$(fetch_deb "$suite" "linux-modules-$rel$pa")" "$dest" &&
		[ "$(kernel_tests "$id")" = all ]; then
		die "no $GUEST_KMODS in linux-image-$rel or linux-modules-$rel"
	fi
	echo "$GUEST_KMODS" >"$dest/.done"
}

# promtool checks the --prometheus files. It comes from Debian's
# prometheus package, unpacked into the cache: installing the package would
# start a Prometheus server on the host.
install_promtool() {
	local dest tmp
	dest=$(promtool_path)
	[ -x "$dest" ] && return 0
	tmp=$(mktemp -d)
	dpkg-deb -x "$(fetch_deb bookworm prometheus)" "$tmp"
	mkdir -p "$(dirname "$dest")"
	install -m 0755 "$tmp/usr/bin/promtool" "$dest"
	rm -rf "$tmp"
}
[ -n "$KPROF_KERNEL_IDS" ] || install_promtool

# The debug kernel compiles (its CPU, 4 to 15 minutes) while the loop below
# downloads and unpacks the other kernels (the network, dpkg). Its build
# packages go into the chroot first, so that no two apt runs share a dpkg.
# It runs in a session of its own, so that a failure here stops all of it.
# KPROF_DEBUG_BUILD=later leaves the build to the caller (ci/check.sh,
# which runs it beside the other builds).
debug_pid=
stop_debug_build() { [ -z "$debug_pid" ] || kill -- -"$debug_pid" 2>/dev/null || true; }
if [ -n "$(debug_ids)" ]; then
	"$KPROF_TOP/ci/debug-kernel.sh" deps
	if [ "${KPROF_DEBUG_BUILD:-now}" != later ]; then
		setsid -w "$KPROF_TOP/ci/timed.sh" deps:debug-kernel "$KPROF_TOP/ci/debug-kernel.sh" build &
		debug_pid=$!
		trap stop_debug_build EXIT
	fi
fi

kernels_start=$(date +%s)
# Headers go into the system, or the suite's chroot (Kbuild wants
# /lib/modules/<rel>/build). The image is only booted by QEMU, so its vmlinuz
# is unpacked into the cache rather than installed into the host's /boot.
while read -r id rel suite arch; do
	[ "$(kernel_flavour "$id")" != debug ] || continue
	install_headers "$suite" "$rel" "$arch"
	[ "$arch" = amd64 ] || guest_busybox "$arch"
	vmlinuz=$(vmlinuz_path "$rel")
	pa=
	[ "$arch" = amd64 ] || pa=:$arch
	guest_kmods "$id" "$rel" "$suite" "$pa"
	if [ ! -s "$vmlinuz" ]; then
		mkdir -p "$(dirname "$vmlinuz")"
		unpack_vmlinuz "$(fetch_deb "$suite" "linux-image-$rel$pa")" "$rel" "$vmlinuz" ||
			unpack_vmlinuz "$(fetch_deb "$suite" "linux-binary-$rel$pa")" "$rel" "$vmlinuz" ||
			die "no vmlinuz in linux-image-$rel or linux-binary-$rel"
		info "kernel $id: $rel ($vmlinuz)"
	fi
	[ "$arch" != amd64 ] || pvh_image "$rel"
done < <(kernels_each)

mkdir -p "$KPROF_BUILD"
echo "deps:other-kernels $(($(date +%s) - kernels_start))" >>"$KPROF_BUILD/check-times.txt"
if [ -n "$debug_pid" ]; then
	wait "$debug_pid" || { debug_pid=; die "the debug kernel did not build"; }
	debug_pid=
fi

info "dependencies present; kernel matrix: $(kernels_each | awk '{printf "%s=%s ", $1, $2}')"
