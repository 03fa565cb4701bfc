#!/usr/bin/env bash
# Install what kprof needs on a Debian 12 host; skip what is already there.
# Idempotent: a second run with everything present does no apt work at all.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PKGS=(
	build-essential cmake pkg-config kmod
	libtracefs-dev libtraceevent-dev libcli11-dev libboost-test-dev nlohmann-json3-dev
	qemu-system-x86 busybox-static cpio trace-cmd
)
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
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
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

# Resolve the matrix against apt's current lists; refresh them once if an
# entry cannot be resolved (a fresh machine may never have run apt-get update).
if ! "$KPROF_TOP/ci/kernels.sh" resolve >/dev/null 2>&1; then
	apt_update
	"$KPROF_TOP/ci/kernels.sh" resolve >/dev/null
fi

# Headers go into the system (Kbuild wants /lib/modules/<rel>/build). The image
# is only booted by QEMU, so its vmlinuz is unpacked into the cache rather than
# installed into the host's /boot.
while read -r id rel; do
	install_pkgs "linux-headers-$rel"
	vmlinuz=$(vmlinuz_path "$rel")
	[ -s "$vmlinuz" ] && continue
	mkdir -p "$KPROF_CACHE/debs" "$(dirname "$vmlinuz")"
	deb=$(ls "$KPROF_CACHE"/debs/linux-image-"$rel"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		info "downloading linux-image-$rel"
		# apt drops privileges to _apt for downloads; let it write there.
		chown _apt "$KPROF_CACHE/debs" 2>/dev/null || true
		(cd "$KPROF_CACHE/debs" && apt-get download -q "linux-image-$rel" >/dev/null) ||
			die "cannot download linux-image-$rel"
		deb=$(ls "$KPROF_CACHE"/debs/linux-image-"$rel"_*.deb | head -n 1)
	fi
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/vmlinuz-$rel"
	mv "$tmp/boot/vmlinuz-$rel" "$vmlinuz"
	rm -rf "$tmp"
	info "kernel $id: $rel ($vmlinuz)"
done < <(kernels_each)

info "dependencies present; kernel matrix: $(kernels_each | awk '{printf "%s=%s ", $1, $2}')"
