# make bench, S1 (issue #25; its check in make check is girq_sched_cost):
# what measuring IRQ threads costs the scheduler's hot path. kprof-pingpong
# (two processes bouncing a byte over pipes on CPU 0: two wake-ups and two
# context switches per round trip, BENCH_ROUNDTRIPS of them) while pktproc's
# IRQ thread serves 1,000 IRQs/s beside it, in four states interleaved in
# rotating order over BENCH_REPS rounds:
#   none      nothing attached
#   inkernel  kprofctl irq --in-kernel (the tracker's probes, histograms)
#   stream    kprofctl irq (the tracker's probes and events, read by kprofctl)
#   histtrig  the kernel's own way: hist triggers on sched_waking and
#             sched_switch feeding a synthetic event with each IRQ thread's
#             wake-up latency (Documentation/trace/histogram.rst's
#             wakeup_latency recipe, filtered on IRQ threads: irq_handler_entry
#             does not name the thread, so the recipe starts at its waking)
# Prints one line per run for ci/bench.sh:
#   S1 MODE REP NS_PER_ROUNDTRIP
# (also collected in /tmp/s1.txt).
. /tests/lib.sh

: "${BENCH_REPS:=$(kernel_arg kprof_bench_reps)}"
: "${BENCH_REPS:=5}"
: "${BENCH_ROUNDTRIPS:=20000}"
S1_MODES="none inkernel stream histtrig"

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=1 rate_pps=1000 batch=1 irq_coalesce=1 \
	work_ns=2000 || fail "insmod pktproc"
command -v kprof-pingpong >/dev/null || fail "no kprof-pingpong in the guest"

SYN=$TR/synthetic_events
WAKING=$TR/events/sched/sched_waking/trigger
SWITCH=$TR/events/sched/sched_switch/trigger

histtrig_on() {
	echo 'irq_thread_wakeup u64 lat; pid_t pid' >>"$SYN"
	echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm ~ "irq/*"' >>"$WAKING"
	echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).irq_thread_wakeup($lat,next_pid) if next_comm ~ "irq/*"' >>"$SWITCH"
	echo 'hist:keys=lat:sort=lat' >>"$TR"/events/synthetic/irq_thread_wakeup/trigger
}

histtrig_off() {
	echo '!hist:keys=lat:sort=lat' >>"$TR"/events/synthetic/irq_thread_wakeup/trigger
	echo '!hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).irq_thread_wakeup($lat,next_pid) if next_comm ~ "irq/*"' >>"$SWITCH"
	echo '!hist:keys=pid:ts0=common_timestamp.usecs if comm ~ "irq/*"' >>"$WAKING"
	echo '!irq_thread_wakeup' >>"$SYN"
}

# s1_on MODE: attach what MODE measures with
s1_on() {
	case $1 in
	inkernel)
		kprofctl irq --in-kernel --json >/tmp/s1.json 2>/tmp/s1.err &
		s1_pid=$!
		wait_for "$KP/girq_aggregate" 1 "kprofctl irq --in-kernel did not start" ;;
	stream)
		kprofctl irq --json >/tmp/s1.json 2>/tmp/s1.err &
		s1_pid=$!
		wait_collecting kprof kprof_girq_thread
		wait_attached ;;
	histtrig) histtrig_on ;;
	esac
}

# s1_off MODE: detach it, and check that it measured
s1_off() {
	case $1 in
	inkernel | stream)
		kill -INT "$s1_pid"
		wait "$s1_pid" || fail "$1: kprofctl irq failed: $(cat /tmp/s1.err)"
		grep -q '"irq"' /tmp/s1.json || fail "$1: no IRQ in kprofctl's report" ;;
	histtrig)
		grep -q 'Hits: [1-9]' "$TR"/events/synthetic/irq_thread_wakeup/hist ||
			fail "histtrig: the synthetic event saw no IRQ thread's wake-up"
		histtrig_off ;;
	esac
}

: >/tmp/s1.txt
echo 1 >"$PP/start"
[ -e "$SYN" ] || fail "no synthetic events in this kernel (CONFIG_SYNTH_EVENTS)"
kprof-pingpong -c 0 -n "$BENCH_ROUNDTRIPS" >/dev/null	# warm-up, not counted
rep=1
while [ $rep -le "$BENCH_REPS" ]; do
	# Rotate the order: round r starts with mode r mod 4.
	# shellcheck disable=SC2086 # the modes, one word each
	set -- $S1_MODES
	i=1
	while [ $i -lt $(((rep - 1) % 4 + 1)) ]; do
		first=$1; shift; set -- "$@" "$first"; i=$((i + 1))
	done
	for mode in "$@"; do
		s1_on "$mode"
		ns=$(kprof-pingpong -c 0 -n "$BENCH_ROUNDTRIPS" | sed -n 's/^ns_per_roundtrip //p')
		s1_off "$mode"
		echo "S1 $mode $rep $ns" | tee -a /tmp/s1.txt
	done
	rep=$((rep + 1))
done
echo 1 >"$PP/stop"
rmmod kprof_pktproc
