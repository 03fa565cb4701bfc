# kprof-arch: amd64
# kprof-qemu: -smp 2,maxcpus=64
# make bench, S2 (issue #25; its check in make check is kprof_rt_readers):
# what kprof's readers cost a real-time task on PREEMPT_RT. cyclictest
# (rt-tests: one SCHED_FIFO 95 thread per CPU, locked memory, a 200 us
# period, BENCH_LOOPS loops) while pktproc's hooks count and aggregate on
# 2 queues at 2,000 packets/s, in two modes alternating over BENCH_REPS
# rounds, in a guest with 64 possible CPUs (every reader walks them all):
#   quiet    nothing reads kprof
#   readers  a loop reading every kprof debugfs file (each device's
#            counters, latency, emitted and hist, girq_counters, memory...)
#            and kprofctl top refreshing every 100 ms in a terminal
# Prints one line per run for ci/bench_scale.sh (also in /tmp/s2.txt):
#   S2 MODE REP MAX_US AVG_US
. /tests/lib.sh

: "${BENCH_REPS:=$(kernel_arg kprof_bench_reps)}"
: "${BENCH_REPS:=5}"
: "${BENCH_LOOPS:=10000}"

command -v cyclictest >/dev/null || fail "no cyclictest in the guest"
command -v tmux >/dev/null || fail "no tmux in the guest"
export TERM=screen	# the terminfo the guest has (tests/vm/harness/mkinitramfs.sh)
grep -q PREEMPT_RT /proc/version || echo "note: not a PREEMPT_RT kernel"
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=1 irq_coalesce=1 \
	work_ns=2000 || fail "insmod pktproc"
echo 1 >"$KP/enable"

# The reader loop: every file of kprof's, over and over.
read_all() {
	while :; do
		find "$KP" -type f -perm -0400 | while read -r f; do
			cat "$f" >/dev/null 2>&1 || true
		done
	done
}

s2_on() {
	read_all &
	s2_reader=$!
	tmux new-session -d -s s2 -x 160 -y 40 "kprofctl top --interval 100ms; exec sleep 600"
	wait_aggregating
}

s2_off() {
	kill "$s2_reader"
	wait "$s2_reader" 2>/dev/null || true
	tmux send-keys -t s2 q
	n=0
	while [ "$(cat "$KP/aggregate")" != 0 ]; do
		n=$((n + 1)); [ $n -lt 100 ] || fail "kprofctl top did not quit"; sleep 0.1
	done
	tmux kill-session -t s2
}

# cyc: one cyclictest run; prints "MAX_US AVG_US" over its threads
cyc() {
	cyclictest -m -p 95 -i 200 -l "$BENCH_LOOPS" -t -q >/tmp/cyc.txt 2>&1 ||
		fail "cyclictest failed: $(cat /tmp/cyc.txt)"
	awk '/^T:/ { for (i = 1; i <= NF; i++) { if ($i == "Max:" && $(i + 1) + 0 > m) m = $(i + 1) + 0
		if ($i == "Avg:") { a += $(i + 1); n++ } } } END { if (!n) exit 1; printf "%d %d\n", m, a / n }' \
		/tmp/cyc.txt || fail "no cyclictest summary: $(cat /tmp/cyc.txt)"
}

: >/tmp/s2.txt
echo 1 >"$PP/start"
rep=1
while [ $rep -le "$BENCH_REPS" ]; do
	# Alternate which mode goes first.
	if [ $((rep % 2)) = 1 ]; then modes="quiet readers"; else modes="readers quiet"; fi
	for mode in $modes; do
		[ "$mode" = quiet ] || s2_on
		r=$(cyc)
		[ "$mode" = quiet ] || s2_off
		echo "S2 $mode $rep $r" | tee -a /tmp/s2.txt
	done
	rep=$((rep + 1))
done
echo 1 >"$PP/stop"
echo 0 >"$KP/enable"
rmmod kprof_pktproc
