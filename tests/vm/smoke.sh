# Smoke test: the guest booted, tracefs and debugfs are mounted, the static
# kprofctl runs, and kprof.ko loads and unloads cleanly.
. /tests/lib.sh

expect_mounted /sys/kernel/tracing tracefs
expect_mounted /sys/kernel/debug debugfs
[ -f /sys/kernel/tracing/trace ] || fail "tracefs has no trace file"

kprofctl --version || fail "static kprofctl does not run in the guest"

load kprof
[ -d /sys/module/kprof ] || fail "kprof not in /sys/module after insmod"
expect_eq "debugfs version" "$(cat /sys/kernel/debug/kprof/version)" "$(cat /sys/module/kprof/version)"
rmmod kprof || fail "rmmod kprof failed"
[ ! -d /sys/module/kprof ] || fail "kprof still loaded after rmmod"
[ ! -e /sys/kernel/debug/kprof ] || fail "debugfs directory left behind after rmmod"
echo "ok: kprof loads and unloads"
