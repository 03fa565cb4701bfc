# make bench, P6 (not part of make check): what kprofctl func's probe costs
# each call of the function it measures, against the function's own time.
# pktproc with its hooks off (a driver nobody instrumented), one queue at
# BENCH_PPS, batch=64, an IRQ per 64 packets, no fixed cost per pass, so
# that its IRQ thread's CPU time is almost all pktproc_rx_one()'s calls.
# Per run, alternating the order: the thread's CPU time per packet
# (/proc/PID/schedstat) with 'kprofctl func pktproc_rx_one' measuring, and
# without. The difference is the probe's cost per call (kretprobe entry,
# return trampoline, both handlers, the histogram); the time without is
# the function's own time plus the loop's small share (so the ratio is a
# little low, never high). At each work_ns in BENCH_WORK: 2000 ns of
# checksum a call, and 0 (the shortest call: the probe's worst ratio).
# One line per run for ci/bench.sh:
#   P6 WORK_NS REP PLAIN_NS PROBED_NS KPROFCTL_MEAN_NS CALLS
. /tests/lib.sh

BENCH_REPS=5
BENCH_SECS=4
BENCH_PPS=4000
BENCH_WORK="2000 0"

load kprof

# per_packet: the IRQ thread's CPU ns per packet over BENCH_SECS of traffic
per_packet() {
	p0=$(pp_stat processed) t0=$(pktproc_thread_ns)
	run_traffic $BENCH_SECS
	t1=$(pktproc_thread_ns) p1=$(pp_stat processed)
	[ "$t1" -gt "$t0" ] || fail "no IRQ thread time: is CONFIG_SCHED_INFO off?"
	[ $((p1 - p0)) -gt 1000 ] || fail "only $((p1 - p0)) packets"
	echo $(((t1 - t0) / (p1 - p0)))
}

# probed: per_packet with kprofctl func on pktproc_rx_one; prints
# "NS_PER_PACKET KPROFCTL_MEAN_NS CALLS"
probed() {
	kprofctl func --save /tmp/b.json pktproc_rx_one >/dev/null 2>/tmp/b.err &
	pid=$!
	wait_measuring /tmp/b.err
	ns=$(per_packet)
	kill -INT $pid
	wait $pid || fail "kprofctl func: $(cat /tmp/b.err)"
	awk -f /tests/kprofctl_json.awk /tmp/b.json >/tmp/b.flat
	grep -q '^lost false$' /tmp/b.flat || fail "kprofctl func lost calls"
	mean=$(func_mean /tmp/b.flat pktproc_rx_one)
	calls=$(func_calls /tmp/b.flat pktproc_rx_one)
	echo "$ns $mean $calls"
}

for work in $BENCH_WORK; do
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 nr_queues=1 rate_pps=$BENCH_PPS batch=64 \
		irq_coalesce=64 pass_overhead_ns=0 work_ns="$work" || fail "insmod pktproc"
	pktproc_irq_away "$PP"
	for rep in $(seq $BENCH_REPS); do
		if [ $((rep % 2)) = 1 ]; then
			plain=$(per_packet) with=$(probed)
		else
			with=$(probed) plain=$(per_packet)
		fi
		echo "P6 $work $rep $plain $with"
	done
	rmmod kprof_pktproc
done
expect_eq "probes left" "$(grep -c pktproc_ /sys/kernel/debug/kprobes/list || true)" 0
rmmod kprof
