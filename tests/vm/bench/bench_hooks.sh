# make bench, P1b (not part of make check): what the kprof hooks cost a
# driver while nobody listens. pktproc (hooks compiled in, key off) against
# kprof_pktproc_nohooks (the same source built with KPROF_NO_HOOKS: every
# hook compiled out), in alternating order, one queue at BENCH_PPS with
# batch=1 and an IRQ per packet, for BENCH_SECS each, the IRQ thread on the
# CPU the receive timer is not on. The cost is the IRQ
# thread's CPU time (/proc/PID/schedstat, ns) per packet processed. Prints
# one line per run for ci/bench.sh:
#   P1b MODULE REP NS_PER_PACKET PACKETS
. /tests/lib.sh

BENCH_REPS=5
BENCH_SECS=4
BENCH_PPS=2000

load kprof
expect_eq "kprof listening" "$(cat "$KP"/enable)" 0

# run MODULE REP: one measured run of MODULE
run() {
	insmod "$KPROF_MODDIR/$1.ko" nr_queues=1 rate_pps=$BENCH_PPS batch=1 irq_coalesce=1 || fail "insmod $1"
	PP=/sys/kernel/debug/$1
	# The IRQ (and so its thread) on the CPU the receive timer is not on,
	# the same for both builds.
	pktproc_irq_away "$PP"
	p0=$(sed -n 's/^processed: //p' "$PP"/stats)
	t0=$(pktproc_thread_ns)
	run_traffic $BENCH_SECS
	t1=$(pktproc_thread_ns)
	p1=$(sed -n 's/^processed: //p' "$PP"/stats)
	[ "$t1" -gt "$t0" ] || fail "no IRQ thread time for $1: is CONFIG_SCHED_INFO off?"
	[ $((p1 - p0)) -gt 0 ] || fail "$1 processed nothing"
	echo "P1b $1 $2 $(((t1 - t0) / (p1 - p0))) $((p1 - p0))"
	rmmod "$1"
}

for rep in $(seq $BENCH_REPS); do
	if [ $((rep % 2)) = 1 ]; then
		run kprof_pktproc "$rep"
		run kprof_pktproc_nohooks "$rep"
	else
		run kprof_pktproc_nohooks "$rep"
		run kprof_pktproc "$rep"
	fi
done
expect_eq "kprof listening" "$(cat "$KP"/enable)" 0
rmmod kprof
