# kprof-arch: amd64
# make bench, P3's profile (not part of make check): where the streaming
# reader's CPU goes under load, against trace-cmd record's, measured with
# perf in the guest (the harness copies it in with KPROF_VM_PERF=1). At
# each rate of kprof.bench_rates (default 5000,10000), pktproc as in
# bench_rates.sh with 16 KiB buffers, read by each of kprof.bench_tools
# (default all, as bench_rates.sh names them): kprofctl latency
# (streaming), trace-cmd record of the same events (tracecmd), kprofctl
# irq -T (streamingT) and trace-cmd record of its events (tracecmdT);
# kprofctl is the host's build, kprofctl-dyn, for its symbols:
#   - perf record -e cpu-clock -g -a over 3 s of traffic; per reader
#     thread or process (comm) its share of the samples, then its symbols
#     down to 2 % of the reader's samples:
#       PROF TOOL PPS COMM PCT              (PCT: of one CPU)
#       PSYM TOOL PPS COMM PCT SYMBOL       (PCT: of the reader's samples)
#   - perf trace -s over another 3 s: each reader thread's system calls:
#       PSYS TOOL PPS COMM SYSCALL CALLS TOTAL_MS AVG_MS MAX_MS
. /tests/lib.sh

command -v perf >/dev/null || fail "no perf in the guest (the harness copies it with KPROF_VM_PERF=1)"
RATES=$(kernel_arg kprof.bench_rates | tr , ' ')
RATES=${RATES:-5000 10000}
TOOLS=$(kernel_arg kprof.bench_tools | tr , ' ')
TOOLS=${TOOLS:-streaming tracecmd streamingT tracecmdT}
BUF_KB=16
NCPU=$(grep -c '^processor' /proc/cpuinfo)

load kprof
load_pktproc_bench

TRAFFIC="echo 1 >$PP/start; sleep 3; echo 1 >$PP/stop"

# profile TOOL RATE COMMS: perf record over 3 s of traffic, the samples of
# the comma-separated COMMS
profile() {
	perf record -q -e cpu-clock -F 1000 -g -a -o /tmp/p.data -- sh -c "$TRAFFIC" 2>/dev/null ||
		fail "perf record ($1)"
	perf report -i /tmp/p.data --stdio --no-children -g none --sort comm --comms "$3" 2>/dev/null |
		awk -v t="$1" -v r="$2" -v n="$NCPU" '$1 ~ /%$/ { sub(/%/, "", $1); printf "PROF %s %s %s %.1f\n", t, r, $2, $1 * n }'
	perf report -i /tmp/p.data --stdio --no-children -g none --sort comm,sym --comms "$3" \
		--percentage relative --percent-limit 2 2>/dev/null |
		awk -v t="$1" -v r="$2" -v comms="$3" '$1 ~ /%$/ {
			# perf leaves the comm column out when only one is asked for
			p = $1; sub(/%/, "", p); c = comms
			if ($2 !~ /^\[/) { c = $2; $2 = "" }
			$1 = ""; sub(/^ +\[[^]]*\] +/, ""); sub(/^ +/, "")
			printf "PSYM %s %s %s %s %s\n", t, r, c, p, $0 }'
}

# syscalls TOOL RATE PIDS: perf trace -s over 3 s of traffic
syscalls() {
	perf trace -s -p "$3" -o /tmp/t.txt -- sh -c "$TRAFFIC" 2>/dev/null || fail "perf trace ($1)"
	awk -v t="$1" -v r="$2" '/^ [^ ].*events,/ { comm = $1 }
		$1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 8 {
			printf "PSYS %s %s %s %s %s %s %s %s\n", t, r, comm, $1, $2, $4, $6, $7 }' /tmp/t.txt
}

# start_TOOL: the reader, in the background ($pid); PIDS and COMMS to profile
start_streaming() {
	kprofctl-dyn latency --json -b $BUF_KB >/tmp/b.json 2>/tmp/b.err &
	pid=$! pids=$! comms=kprofctl-dyn,kprof-decode
	wait_collecting
}

start_streamingT() {
	# shellcheck disable=SC2086 # IRQ_T_ARGS, one word each
	kprofctl-dyn irq $IRQ_T_ARGS --json -b $BUF_KB >/tmp/b.json 2>/tmp/b.err &
	pid=$! pids=$! comms=kprofctl-dyn,kprof-decode
	wait_collecting kprof kprof_girq_thread
}

# start_trace_cmd ARGS ENABLED_EVENT
start_trace_cmd() {
	# shellcheck disable=SC2086 # the -e arguments, one word each
	trace-cmd record $1 -b $BUF_KB -o /tmp/b.dat >/tmp/rec.log 2>&1 &
	pid=$! comms=trace-cmd
	wait_for "$TR/events/kprof/$2/enable" 1 "trace-cmd did not start recording"
	pids=$(pidof trace-cmd | tr ' ' ,)
}

start_tracecmd() { start_trace_cmd "$DEVICE_RECORD_ARGS" kprof_batch; }
start_tracecmdT() { start_trace_cmd "$IRQ_T_RECORD_ARGS" kprof_girq_thread; }

for rate in $RATES; do
	echo "$rate" >"$PP/rate_pps"
	for tool in $TOOLS; do
		"start_$tool"
		profile "$tool" "$rate" "$comms"
		syscalls "$tool" "$rate" "$pids"
		kill -INT "$pid"
		wait "$pid" || fail "$tool: $(cat /tmp/b.err /tmp/rec.log 2>/dev/null)"
		rm -f /tmp/b.dat
	done
done
rmmod kprof_pktproc
rmmod kprof
