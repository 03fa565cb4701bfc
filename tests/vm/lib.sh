# shellcheck shell=sh
# Helpers for guest test scripts (busybox sh, run with -e by /init).

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

expect_mounted() {
	grep -q " $1 $2 " /proc/mounts || fail "$2 is not mounted at $1"
	echo "ok: $2 mounted at $1"
}

load() {
	insmod "$KPROF_MODDIR/$1.ko" || fail "insmod $1 failed"
}
