# An unmodified in-kernel driver: the 8250 UART behind ttyS1 (QEMU's second
# serial port, connected to null) under threadirqs. The tracker's count of
# its hard IRQs equals /proc/interrupts, its IRQ is requested and freed on
# every open and close while the tracker runs, and kprof unloads cleanly
# with the tracker attached.
# kprof-append: threadirqs
# kprof-arch: amd64
# kprof-qemu: -serial mon:stdio -serial null
. /tests/lib.sh

[ -c /dev/ttyS1 ] || fail "no /dev/ttyS1"
load kprof
irq=$(cat /sys/class/tty/ttyS1/irq)
echo "ttyS1 uses IRQ $irq"

# 200 KiB through the UART (10 KiB on PREEMPT_RT, which raises about one
# IRQ per byte and reports "nobody cared" by itself above that:
# tests/vm/tools/tool_rt_uart.sh): every hard IRQ counted, each handler (forced
# threading: irq_default_primary_handler, the row "ttyS1 (forced)") woke
# the irq/N-ttyS1 thread, whose runs of the 8250 driver's handler are timed
# (the row "ttyS1 (forced handler)").
# The kernel's own irq:irq_handler_entry, recorded alongside, is the exact
# oracle of handler runs; /proc/interrupts a near one (expect_irq_runs).
K=$TR/instances/oracle
mkdir "$K"
echo "irq == $irq" >"$K"/events/irq/irq_handler_entry/filter
echo 1 >"$K"/events/irq/irq_handler_entry/enable
kprofctl irq --irq "$irq" --json -b 4096 >/tmp/u.json 2>/tmp/u.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
sleep 0.5
# The port stays open around the readings (newer kernels drop a freed
# IRQ's line from /proc/interrupts), and its open and close raise IRQs of
# their own: wait for quiet after the open, close after kprofctl stopped.
exec 3>/dev/ttyS1
before=$(irq_quiet "$irq")
kib=200
uname -v | grep -q PREEMPT_RT && kib=10
dd if=/dev/zero bs=1k count=$kib >&3 2>/dev/null
after=$(irq_quiet "$irq")
kill -INT $pid
wait $pid || fail "kprofctl irq: $(cat /tmp/u.err)"
echo 0 >"$K"/events/irq/irq_handler_entry/enable
exec 3>&-
awk -f /tests/kprofctl_json.awk /tmp/u.json >/tmp/u.txt
grep -E '^(irq|stat|check|lost)' /tmp/u.txt
grep -q '^lost false$' /tmp/u.txt || fail "events lost"
F="ttyS1 (forced)"
set -- $(json_irq /tmp/u.txt "$irq" "$F")
[ $# -eq 7 ] || fail "no per-IRQ line for IRQ $irq $F"
# kprofctl's window lies inside the oracle's, and the UART is quiet
# around both.
expect_eq "tracker's handler runs = irq:irq_handler_entry events" "$1" "$(grep -c "irq_handler_entry: irq=$irq " "$K"/trace)"
rmdir "$K"
expect_irq_runs "tracker vs /proc/interrupts" "$1" "$((after - before))"
[ "$1" -gt 50 ] || fail "only $1 IRQs for $kib KiB"
expect_eq "wake requests (threadirqs: every handler)" "$2" "$1"
[ "$4" -gt 0 ] || fail "no thread run measured"
grep -qF "stat entry_to_running $irq/$F null $4 " /tmp/u.txt || fail "entry_to_running count is not the runs"
runs=$4
set -- $(json_irq /tmp/u.txt "$irq" "ttyS1 (forced handler)")
expect_eq "the 8250 driver's handler timed in its thread, once per measured run" "$1" "$runs"

# The IRQ is requested on open and freed on close: 30 cycles while the
# tracker runs, with the thread's pid changing every time.
kprofctl irq --json -b 4096 >/tmp/c.json 2>/tmp/c.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
sleep 0.5
# ttyS2 does not exist; the count is read with ttyS1 open, from a shell
# that opens it for every echo and frees it after.
exec 3>/dev/ttyS1
before=$(irq_quiet "$irq")
exec 3>&-
i=0
while [ $i -lt 30 ]; do
	echo "cycle $i" >/dev/ttyS1
	i=$((i + 1))
done
exec 3>/dev/ttyS1
after=$(irq_quiet "$irq")
kill -INT $pid
wait $pid || fail "kprofctl irq: $(cat /tmp/c.err)"
exec 3>&-
awk -f /tests/kprofctl_json.awk /tmp/c.json >/tmp/c.txt
grep -E '^(irq|lost)' /tmp/c.txt
grep -q '^lost false$' /tmp/c.txt || fail "events lost across open/close cycles"
set -- $(json_irq /tmp/c.txt "$irq" "$F")
expect_irq_runs "30 open/close cycles" "$1" "$((after - before))"
[ "$4" -ge 30 ] || fail "$4 thread runs for 30 cycles"
cat "$KP/girq_counters"

# Unload kprof while the tracker is attached (events enabled in a raw
# instance) and the UART is busy: the probes come off before the module.
I=$TR/instances/unload
mkdir "$I"
echo 1 >"$I"/events/kprof/kprof_girq_handler/enable
wait_attached
dd if=/dev/zero of=/dev/ttyS1 bs=1k count=$((kib / 4)) 2>/dev/null &
dd=$!
sleep 0.2
grep -q kprof_girq_handler "$I"/trace || fail "no tracker events before the unload"
rmmod kprof || fail "rmmod kprof with the tracker attached"
wait $dd
[ ! -d /sys/module/kprof ] || fail "kprof still loaded"
rmdir "$I"
echo "ok: kprof unloaded with the tracker attached"
dd if=/dev/zero of=/dev/ttyS1 bs=1k count=2 2>/dev/null
echo "ok: the UART still works after the unload"
