# A driver that gets the API wrong (tests/kmod/kprof_test_misuse.c): hooks
# on NULL and ERR_PTR() devices and on span ids it never registered are
# ignored, not a crash or a WARN, and counted in kprof/misuse, which
# kprofctl counters shows; a primary handler's IRQ_HANDLED | IRQ_WAKE_THREAD
# is no wake (the IRQ core wakes for IRQ_WAKE_THREAD alone); and every name
# of kprof's own top-level files is refused as a device name.
. /tests/lib.sh

load kprof
misuse() {
	sed -n "s/^$1: //p" "$KP/misuse"
}
expect_eq "misuse before" "$(misuse null_dev) $(misuse nmi) $(misuse bad_span)" "0 0 0"
# The hooks are live: kprof/enable holds the key.
echo 1 >"$KP/enable"
load kprof_test_misuse
expect_eq "hook calls on NULL and ERR_PTR devices" "$(misuse null_dev)" 16
expect_eq "hook calls with unregistered span ids" "$(misuse bad_span)" 3
expect_eq "hook calls in NMI" "$(misuse nmi)" 0
expect_eq "irqs of misuse-dev" "$(counter misuse-dev irqs)" 2
expect_eq "wakes of misuse-dev (IRQ_HANDLED | IRQ_WAKE_THREAD is none)" "$(counter misuse-dev wakes)" 1
expect_eq "spans of misuse-dev" "$(counter misuse-dev spans)" 0

kprofctl counters >/tmp/c.txt || fail "kprofctl counters"
grep -A3 '^misuse (hook calls kprof.ko ignored):' /tmp/c.txt | grep -q '^  null_dev: 16$' ||
	{ cat /tmp/c.txt; fail "kprofctl counters does not show the misuse"; }
kprofctl counters --json >/tmp/c.json || fail "kprofctl counters --json"
grep -q '"bad_span": 3' /tmp/c.json || { cat /tmp/c.json; fail "kprofctl counters --json has no misuse"; }
echo "ok: kprofctl counters shows the misuse, as text and JSON"
rmmod kprof_test_misuse

for p in "$KP"/*; do
	[ -f "$p" ] || continue
	f=${p##*/}
	if insmod "$KPROF_MODDIR/kprof_test_misuse.ko" devname="$f" 2>/tmp/err; then
		fail "a device took the name of kprof/$f"
	fi
	grep -q "File exists" /tmp/err || { cat /tmp/err; fail "devname=$f: not EEXIST"; }
done
echo "ok: every top-level file's name is refused as a device name: $(cd "$KP" && echo *)"
echo 0 >"$KP/enable"
rmmod kprof
