#!/usr/bin/env bash
# The first minutes of a new user, measured: 'make demo' on a fresh Debian 12
# root (mmdebstrap's minbase, plus git and make to clone and run it), with
# an empty cache and nothing else installed, then again warm. Prints both
# times; the README quotes them.
#
#   ci/fresh-demo.sh [COMMIT]     default: HEAD of this checkout
#
# The root is /var/tmp/kprof-fresh (KPROF_FRESH), made anew on every run;
# its apt lists come from the same mirror as a fresh install's. Needs root,
# mmdebstrap and the network. Not part of make check (3 to 4 minutes).
set -euo pipefail
. "$(dirname "$0")/common.sh"

root=${KPROF_FRESH:-/var/tmp/kprof-fresh}
commit=$(git -C "$KPROF_TOP" rev-parse "${1:-HEAD}")
mirror=http://deb.debian.org/debian
[ "$(id -u)" = 0 ] || die "$0 makes a root file system and must run as root"
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing; run 'make deps'"

unmount() {
	local m
	for m in dev/pts dev sys proc; do
		! mountpoint -q "$root/$m" || umount "$root/$m"
	done
}

# in_root CMD: CMD as root in the fresh system, with its own environment.
in_root() {
	local m
	for m in proc sys dev dev/pts; do
		mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
	done
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb bash -c "$1"
}

trap unmount EXIT
unmount
rm -rf "$root"
info "a fresh bookworm minbase root at $root"
mmdebstrap --quiet --variant=minbase bookworm "$root" "$mirror" >/dev/null
# What a Debian installation's sources hold.
cat >"$root/etc/apt/sources.list" <<EOS
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror}-security bookworm-security main
EOS
cp /etc/resolv.conf "$root/etc/"
in_root 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git make >/dev/null'
git clone -q "$KPROF_TOP" "$root/root/kprof"
git -C "$root/root/kprof" checkout -q "$commit"

for run in cold warm; do
	start=$(date +%s)
	in_root 'cd /root/kprof && make demo' >"$KPROF_BUILD/fresh-demo-$run.log" 2>&1 ||
		die "make demo ($run) failed; see $KPROF_BUILD/fresh-demo-$run.log"
	grep -q '^PASS .*/demo ' "$KPROF_BUILD/fresh-demo-$run.log" || die "make demo ($run) did not pass"
	echo "make demo, $run: $(($(date +%s) - start)) s ($(git -C "$KPROF_TOP" log -1 --format=%h "$commit"), $(nproc) CPUs)"
done
