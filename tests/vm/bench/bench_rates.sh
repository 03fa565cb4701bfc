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
# Then a line per reader thread (a profile of where the CPU went, and of
# how long it waited for one: the scheduler's wait_max and wait_sum):
#   P3T TOOL PPS REP COMM USER_TICKS SYSTEM_TICKS WAKEUPS WAIT_MAX_MS WAIT_SUM_MS
# Kernel arguments (the harness's KPROF_VM_APPEND) narrow a run:
# kprof.bench_rates=1000,5000 kprof.bench_reps=N kprof.bench_buf_kb=KB
# kprof.bench_tools=streaming,tracecmd (default: streaming, tracecmd,
# inkernel; streamingT and tracecmdT read the IRQ tracker's events with
# -T's context events; streamingread and streamingTread are streaming
# with read() alone, streamingsplice with splice() where the buffers could
# be mapped).
. /tests/lib.sh

# arg NAME DEFAULT: kprof.NAME's value, commas as spaces, else DEFAULT
arg() {
	v=$(kernel_arg "kprof.$1")
	echo "${v:-$2}" | tr , ' '
}
BENCH_RATES=$(arg bench_rates "1000 2500 5000 10000 20000")
BENCH_REPS=$(arg bench_reps 5)
BENCH_SECS=3
BENCH_BUF_KB=$(arg bench_buf_kb 16)
BENCH_TOOLS=$(arg bench_tools "streaming tracecmd inkernel")
D=pktproc-q0

command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
load kprof
load_pktproc_bench

# ticks PIDS: their user + system time so far, in clock ticks
ticks() {
	for p in $1; do cat "/proc/$p/stat"; done | awk '{ t += $14 + $15 } END { print t + 0 }'
}

# samples JSON_TXT: the samples in a flattened report, over all devices
samples() {
	awk '$1 == "stat" && $4 == "null" { s += $5 } END { print s + 0 }' "$1"
}

# tasks PIDS: the /proc directories of PIDS' threads
tasks() {
	for p in $1; do ls -d /proc/"$p"/task/*; done
}

# threads PIDS: a line per thread of PIDS: TID COMM UTIME STIME WAKEUPS
# WAIT_MAX WAIT_SUM (clock ticks; voluntary context switches; the longest
# and the total time runnable but not running since reset_waits, in ms)
threads() {
	for t in $(tasks "$1"); do
		awk -v w="$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "$t/status")" \
			-v waits="$(awk '$1 == "wait_max" { m = $3 } $1 == "wait_sum" { s = $3 } END { print m + 0, s + 0 }' "$t/sched")" \
			'{ gsub(/[()]/, "", $2); print $1, $2, $14, $15, w, waits }' "$t/stat"
	done
}

# reset_waits PIDS: zero the scheduler statistics of PIDS' threads
reset_waits() {
	for t in $(tasks "$1"); do echo 0 >"$t/sched"; done
}

# The scheduler's statistics (wait_max, wait_sum in /proc/PID/sched) are
# kept only when asked for.
echo 1 >/proc/sys/kernel/sched_schedstats || fail "no scheduler statistics (CONFIG_SCHEDSTATS)"

# measure PIDS: traffic for BENCH_SECS with the readers' CPU time around
# it; what each of their threads used, and how long they waited for a CPU,
# goes to /tmp/b.threads
measure() {
	t0=$(ticks "$1")
	threads "$1" >/tmp/b.t0
	reset_waits "$1"
	run_traffic $BENCH_SECS
	threads "$1" >/tmp/b.t1
	t1=$(ticks "$1")
	cpu=$((t1 - t0))
	awk 'NR == FNR { u[$1] = $3; s[$1] = $4; w[$1] = $5; next }
		{ print $2, $3 - u[$1], $4 - s[$1], $5 - w[$1], $6, $7 }' /tmp/b.t0 /tmp/b.t1 >/tmp/b.threads
}

# finish WHAT: stop the kprofctl run $pid, flatten its report into /tmp/b.txt
finish() {
	kill -INT "$pid"
	wait "$pid" || fail "$1: $(cat /tmp/b.err)"
	awk -f /tests/kprofctl_json.awk /tmp/b.json >/tmp/b.txt
}

run_streaming() {
	kprofctl latency --json -b "$BENCH_BUF_KB" >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	measure_streaming "$(expected_reader)"
}

# The same with read() alone, and with splice() where the buffers could be
# mapped (6.10 and later).
run_streamingread() {
	env KPROFCTL_READER=read kprofctl latency --json -b "$BENCH_BUF_KB" >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	measure_streaming read
}

run_streamingsplice() {
	env KPROFCTL_READER=splice kprofctl latency --json -b "$BENCH_BUF_KB" >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	measure_streaming splice
}

# measure_streaming READER: the kprofctl latency run $pid, measured and
# ended; it must have read with READER (mmap, splice or read)
measure_streaming() {
	wait_collecting
	measure "$pid"
	finish streaming
	expect_eq "streaming's reader" "$(sed -n 's/^reader //p' /tmp/b.txt)" "$1" >/dev/null
	lost=$(sed -n 's/^missed_total //p' /tmp/b.txt)
	oracle=-
}

run_tracecmd() {
	# shellcheck disable=SC2086 # the -e arguments, one word each
	trace-cmd record $DEVICE_RECORD_ARGS -b "$BENCH_BUF_KB" -o /tmp/b.dat >/tmp/rec.log 2>&1 &
	pid=$!
	wait_for "$TR"/events/kprof/kprof_batch/enable 1 "trace-cmd did not start recording"
	measure "$(pidof trace-cmd)"
	stop_tracecmd
}

# stop_tracecmd: end the trace-cmd record $pid, count its file's events
# and losses with report -i
stop_tracecmd() {
	kill -INT "$pid"
	wait "$pid" || fail "trace-cmd record: $(cat /tmp/rec.log)"
	kprofctl-dyn report -i /tmp/b.dat --json >/tmp/b.json 2>/tmp/b.err || fail "report -i: $(cat /tmp/b.err)"
	awk -f /tests/kprofctl_json.awk /tmp/b.json >/tmp/b.txt
	lost=$(sed -n 's/^buffer_lost //p' /tmp/b.txt)
	rm -f /tmp/b.dat
	oracle=-
}

# -T's analysis on the IRQ tracker: kprofctl irq with the context events
# (no threshold is crossed: the analysis keeps its 2 s of context per CPU
# all the same) against trace-cmd record of the same events.
run_streamingT() {
	# shellcheck disable=SC2086 # IRQ_T_ARGS, one word each
	kprofctl irq $IRQ_T_ARGS --json -b "$BENCH_BUF_KB" >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	measure_streamingT "$(expected_reader)"
}

# The same with read() alone.
run_streamingTread() {
	# shellcheck disable=SC2086 # IRQ_T_ARGS, one word each
	env KPROFCTL_READER=read kprofctl irq $IRQ_T_ARGS --json -b "$BENCH_BUF_KB" >/tmp/b.json 2>/tmp/b.err &
	pid=$!
	measure_streamingT read
}

# measure_streamingT READER: as measure_streaming, for kprofctl irq -T
measure_streamingT() {
	wait_collecting kprof kprof_girq_thread
	measure "$pid"
	finish streaming-T
	expect_eq "irq -T's reader" "$(sed -n 's/^reader //p' /tmp/b.txt)" "$1" >/dev/null
	lost=$(sed -n 's/^missed_total //p' /tmp/b.txt)
	oracle=-
}

run_tracecmdT() {
	# shellcheck disable=SC2086 # the -e arguments, one word each
	trace-cmd record $IRQ_T_RECORD_ARGS -b "$BENCH_BUF_KB" -o /tmp/b.dat >/tmp/rec.log 2>&1 &
	pid=$!
	wait_for "$TR"/events/kprof/kprof_girq_thread/enable 1 "trace-cmd did not start recording"
	measure "$(pidof trace-cmd)"
	stop_tracecmd
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
	for rep in $(seq "$BENCH_REPS"); do
		for tool in $BENCH_TOOLS; do
			"run_$tool"
			echo "P3 $tool $rate $rep $(samples /tmp/b.txt) ${lost:-0} $cpu $BENCH_SECS $oracle"
			sed "s/^/P3T $tool $rate $rep /" /tmp/b.threads
		done
	done
done
echo "P3 buffer_kb $BENCH_BUF_KB"
rmmod kprof_pktproc
rmmod kprof
