# kprof_pktproc unloads cleanly at any moment: timers running, IRQs in
# flight, threads in the middle of a batch, 2 queues on 2 vCPUs, kprof
# events on; and kprof's state is consistent afterwards.
. /tests/lib.sh

load kprof
I=$TR/instances/unload
mkdir "$I"
echo 1 >"$I/events/kprof/enable"
for delay in 0 0.05 0.2 0.5 1; do
	# Passes of 64 packets x 100 us: a thread is nearly always mid-batch.
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 batch=64 \
		irq_coalesce=8 work_ns=100000 autostart=1 || fail "insmod"
	sleep "$delay"
	rmmod kprof_pktproc || fail "rmmod after ${delay}s"
	[ ! -e "$KP/pktproc-q0" ] && [ ! -e "$KP/pktproc-q1" ] || fail "devices left registered"
	echo "ok: unloaded under load after ${delay}s"
done
# Unload while stopping, and with a stop racing the unload.
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 work_ns=100000 autostart=1 || fail "insmod"
sleep 0.3
(echo 1 >"$PP/stop") 2>/dev/null &
# The stop writer holds a file of the module open, which pins it: rmmod
# either wins the race or refuses cleanly; after the writer, it must work.
rmmod kprof_pktproc 2>/dev/null || { wait; rmmod kprof_pktproc; } || fail "rmmod racing stop"
wait || true
echo 0 >"$I/events/kprof/enable"

# kprof's state is consistent afterwards: a fresh device counts exactly
# what it emits, and with every listener gone the key is off.
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=1000 || fail "insmod after the unloads"
echo >"$I/trace"
echo 1 >"$I/events/kprof/enable"
run_traffic 1
echo 0 >"$I/events/kprof/enable"
irqs=$(counter pktproc-q0 irqs)
[ "$irqs" -gt 0 ] || fail "no IRQs counted after the unloads"
expect_eq "irq_handler events = irqs after the unloads" "$(grep -c ' kprof_irq_handler: ' "$I"/trace)" "$irqs"
expect_eq "emitted = irq_handler events" "$(emitted pktproc-q0 kprof_irq_handler)" "$irqs"
echo 1 >"$KP/pktproc-q0/reset"
run_traffic 0.5
expect_eq "hook_calls with every listener gone" "$(counter pktproc-q0 hook_calls)" 0
rmmod kprof_pktproc
rmdir "$I"
rmmod kprof
