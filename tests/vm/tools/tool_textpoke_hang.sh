# Not a test: the reproducer for why tests/vm/harness/vm-run.sh runs TCG single-threaded.
#
# With multi-threaded TCG (-accel tcg,thread=multi), flipping any static
# key while pktproc drives ~10k IRQ-thread wakeups/s hangs the guest within
# a few flips: text_poke_bp() waits forever in its sync IPI while the other
# vCPU loops on the int3 it planted in __schedule (enabling an event also
# switches the sched_switch tracepoint for cmdline recording). It happens
# with sched:sched_wakeup as well as with kprof's events, so it is not
# kprof's key; with thread=single, or at 1k IRQs/s, it does not happen.
#   KPROF_TCG_THREAD=multi tests/vm/harness/vm-run.sh 6.1 tool_textpoke_hang   -> hangs
#   tests/vm/harness/vm-run.sh 6.1 tool_textpoke_hang                          -> passes
. /tests/lib.sh
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 batch=8 autostart=1 || fail insmod
I=$TR/instances/flip
mkdir "$I"
i=0
while [ $i -lt 20 ]; do
	echo 1 >"$I"/events/sched/sched_wakeup/enable
	echo 0 >"$I"/events/sched/sched_wakeup/enable
	i=$((i + 1))
done
echo "flipped $i times"
rmdir "$I"
rmmod kprof_pktproc
rmmod kprof
