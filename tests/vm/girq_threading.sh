# Which IRQs are threaded without any boot parameter. On PREEMPT_RT every
# device IRQ is (forced threading): the tracker sees each one that fires
# wake its irq/N thread (its "NAME (forced)" row), and times the driver's
# handler in that thread ("NAME (forced handler)"). On a generic kernel the
# 8250 UART's is not: the tracker reports its handler only.
# kprof-arch: amd64
# kprof-qemu: -serial mon:stdio -serial null
# kprof-sets: core
. /tests/lib.sh

load kprof
irq=$(cat /sys/class/tty/ttyS1/irq)
rt=0
uname -v | grep -q PREEMPT_RT && rt=1
echo "PREEMPT_RT: $rt; ttyS1 uses IRQ $irq"
grep -q threadirqs /proc/cmdline && fail "booted with threadirqs"

kprofctl irq --json -b 4096 >/tmp/t.json 2>/tmp/t.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
sleep 0.5
# The port stays open around the readings: newer kernels drop a freed
# IRQ's line from /proc/interrupts.
# Opening and closing the port raise IRQs of their own: the readings wait
# for quiet after the open and before kprofctl stops, the close comes
# after that.
exec 3>/dev/ttyS1
irq_quiet "$irq" >/dev/null
cp /proc/interrupts /tmp/int0
cat /proc/[0-9]*/comm >/tmp/comm 2>/dev/null || true
# 10 KiB: on RT about one IRQ per byte, and 100 KiB make the kernel report
# "irq 3: nobody cared" by itself (tests/vm/tools/tool_rt_uart.sh).
dd if=/dev/zero bs=1k count=10 >&3 2>/dev/null
irq_quiet "$irq" >/dev/null
cp /proc/interrupts /tmp/int1
kill -INT $pid
wait $pid || fail "kprofctl irq: $(cat /tmp/t.err)"
exec 3>&-
awk -f /tests/kprofctl_json.awk /tmp/t.json >/tmp/t.txt
grep -E '^(irq|lost)' /tmp/t.txt
grep -q '^lost false$' /tmp/t.txt || fail "events lost"

# Every numbered IRQ that fired meanwhile is in the report, at least as
# often as /proc/interrupts counted it (the report spans a little more).
awk 'FNR == 1 { n = NF; next } $1 ~ /^[0-9]+:$/ { s = 0; for (c = 2; c <= n + 1; c++) s += $c; if (FILENAME == "/tmp/int0") a[$1] = s; else if (s > a[$1]) print substr($1, 1, length($1) - 1), s - a[$1] }' \
	/tmp/int0 /tmp/int1 >/tmp/moved
cat /tmp/moved
grep -q "^$irq " /tmp/moved || fail "IRQ $irq did not fire"
# row N [MARK]: "handlers requests woken runs coalesced busy unserved" of
# IRQ N's first row (with MARK in its name)
row() {
	awk -v k="irq $1 " -v m="${2:-}" 'index($0, k) == 1 && (m == "" || index($0, m)) {
		print $(NF - 6), $(NF - 5), $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1), $NF; exit }' /tmp/t.txt
}
mark=
[ $rt = 0 ] || mark=" (forced) "
while read -r n moved; do
	set -- $(row "$n" "$mark")
	[ $# -eq 7 ] || fail "IRQ $n fired $moved times and has no${mark:+ forced} row in the report"
	[ "$1" -ge "$moved" ] || fail "IRQ $n: $1 handler runs reported, /proc/interrupts moved $moved"
	if [ $rt = 1 ]; then
		# Forced threading: every hard part is irq_default_primary_handler.
		expect_eq "IRQ $n (forced): wake requests = handler runs" "$2" "$1"
		[ "$4" -gt 0 ] || fail "IRQ $n (forced): no thread run"
		grep -q "^irq/$n-" /tmp/comm || fail "no irq/$n- thread"
		set -- $(row "$n" " (forced handler) ")
		[ $# -eq 7 ] && [ "$1" -gt 0 ] || fail "IRQ $n: the driver's handler not timed in its thread"
	fi
done </tmp/moved
name=ttyS1
[ $rt = 0 ] || name="ttyS1 (forced)"
set -- $(json_irq /tmp/t.txt "$irq" "$name")
expect_irq_runs "ttyS1" "$1" "$(sed -n "s/^$irq //p" /tmp/moved)"
if [ $rt = 1 ]; then
	echo "ok: on PREEMPT_RT every IRQ that fired woke its thread, no boot parameter"
else
	expect_eq "ttyS1 wake requests (not threaded)" "$2" 0
	grep -q "^stat handler $irq/ttyS1 " /tmp/t.txt || fail "no handler row for ttyS1"
	if grep -q "^stat entry_to_running $irq/" /tmp/t.txt; then fail "a thread row for a non-threaded IRQ"; fi
	echo "ok: generic kernel: ttyS1's IRQ is not threaded, its handler duration is reported"
fi
