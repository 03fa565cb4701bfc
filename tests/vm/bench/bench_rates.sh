# kprof-arch: amd64
# make bench, P3 (not part of make check): the event rates each reader
# keeps up with. pktproc at rising packet rates (batch=1, an IRQ per
# packet: four samples per packet on 2 queues) for BENCH_SECS seconds,
# read by kprofctl latency (streaming), trace-cmd record (of the same four
# events) and kprofctl latency --in-kernel, the first two with the same
# per-CPU buffer. Prints
# one line per run for ci/bench.sh:
#   P3 TOOL PPS REP SAMPLES LOST CPU_TICKS SECS ORACLE
# SAMPLES are the samples the report holds, LOST the events the ring
# buffer dropped (trace-cmd's file counted by kprofctl report -i, which
# the kprofctl_report test holds to trace-cmd report), CPU_TICKS the
# reader's user+system time during the traffic (all trace-cmd processes),
# ORACLE for the in-kernel run whether its batch count equals pktproc's.
. /tests/lib.sh

BENCH_RATES="1000 2500 5000 10000 20000"
BENCH_REPS=5
BENCH_SECS=3
BENCH_BUF_KB=16
D=pktproc-q0

command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=1000 batch=1 irq_coalesce=1 \
	work_ns=0 pass_overhead_ns=0 || fail insmod

# ticks PIDS: their user + system time so far, in clock ticks
ticks() {
	for p in $1; do cat "/proc/$p/stat"; done | awk '{ t += $14 + $15 } END { print t + 0 }'
}

# samples JSON_TXT: the samples in a flattened report, over all devices
samples() {
	awk '$1 == "stat" && $4 == "null" { s += $5 } END { print s + 0 }' "$1"
}

# measure PIDS: traffic for BENCH_SECS with the readers' CPU time around it
measure() {
	t0=$(ticks "$1")
	run_traffic $BENCH_SECS
	t1=$(ticks "$1")
	cpu=$((t1 - t0))
}

# finish WHAT: stop the kprofctl run $pid, flatten its report into /tmp/b.txt
finish() {
	kill -INT "$pid"
	wait "$pid" || fail "$1: $(cat /tmp/b.err)"
	awk -f /tests/kprofctl_json.awk /tmp/b.json >/tmp/b.txt
}

run_streaming() {
	kprofctl latency --json -b $BENCH_BUF_KB >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	wait_collecting
	measure $pid
	finish streaming
	lost=$(sed -n 's/^missed_total //p' /tmp/b.txt)
	oracle=-
}

run_tracecmd() {
	trace-cmd record -e kprof_irq_thread_latency -e kprof_irq_handler -e kprof_batch -e kprof_span \
		-b $BENCH_BUF_KB -o /tmp/b.dat >/tmp/rec.log 2>&1 &
	pid=$!
	wait_for "$TR"/events/kprof/kprof_batch/enable 1 "trace-cmd did not start recording"
	measure "$(pidof trace-cmd)"
	kill -INT $pid
	wait $pid || fail "trace-cmd record: $(cat /tmp/rec.log)"
	kprofctl-dyn report -i /tmp/b.dat --json >/tmp/b.json 2>/tmp/b.err || fail "report -i: $(cat /tmp/b.err)"
	awk -f /tests/kprofctl_json.awk /tmp/b.json >/tmp/b.txt
	lost=$(sed -n 's/^buffer_lost //p' /tmp/b.txt)
	rm -f /tmp/b.dat
	oracle=-
}

run_inkernel() {
	b0=$(counter $D batches)
	kprofctl latency --in-kernel --json >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	wait_aggregating
	measure $pid
	finish in-kernel
	lost=0
	grep -q '^lost false$' /tmp/b.txt || lost=unknown
	got=$(awk -v d=$D '$1 == "stat" && $2 == "batch" && $3 == d && $4 == "null" { print $5 }' /tmp/b.txt)
	oracle=exact
	[ "$got" = $(($(counter $D batches) - b0)) ] || oracle=mismatch
}

for rate in $BENCH_RATES; do
	echo "$rate" >"$PP/rate_pps"
	for rep in $(seq $BENCH_REPS); do
		for tool in streaming tracecmd inkernel; do
			run_$tool
			echo "P3 $tool $rate $rep $(samples /tmp/b.txt) ${lost:-0} $cpu $BENCH_SECS $oracle"
		done
	done
done
echo "P3 buffer_kb $BENCH_BUF_KB"
rmmod kprof_pktproc
rmmod kprof
