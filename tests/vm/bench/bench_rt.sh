# kprof-arch: amd64
# kprof-qemu: -smp 2,maxcpus=64
# make bench, S2 (issue #25; its check in make check is kprof_rt_readers):
# what kprof's readers cost a real-time task on PREEMPT_RT. cyclictest
# (rt-tests: one SCHED_FIFO 95 thread per CPU, locked memory, a 200 us
# period, BENCH_LOOPS loops) while pktproc's hooks count and aggregate on
# 2 queues at 2,000 packets/s, in three modes in rotating order over
# BENCH_REPS rounds, in a guest with 64 possible CPUs (every reader walks
# them all):
#   quiet    nothing reads kprof
#   readers  a loop reading every kprof debugfs file (each device's
#            counters, latency, emitted and hist, girq_counters, memory...)
#            and kprofctl top refreshing every 100 ms in a terminal
#   busy     the control: the same loop over as many files that are not
#            kprof's (tracefs event formats), and a loop in the terminal
#            reading /proc/interrupts every 100 ms. Under TCG the vCPUs
#            take turns on the host, so any busy vCPU delays the other's
#            timer: readers against busy is what kprof's locks add.
# With kprof_bench_pin=1 on the kernel command line (make bench, with
# multi-threaded TCG) cyclictest measures CPU 0 only and the readers run on
# CPU 1: what remains between them is kprof's per-CPU locks.
# After the rounds (unless BENCH_HOLD_S=0), the readers run once more for
# BENCH_HOLD_S seconds under the kernel's function_graph tracer, every kprof
# debugfs show function a root: the longest a reader held a raw lock with
# interrupts off (from the lock's return to the unlock's call), which is the
# longest a hook on that lock's CPU, or that CPU's timer, can wait for a
# reader (the tracer's own cost inside the section included).
# Prints one line per run for ci/bench_scale.sh (also in /tmp/s2.txt):
#   S2 MODE REP MAX_US AVG_US
# and then the hold:
#   S2HOLD MAX_US P99_US SECTIONS
. /tests/lib.sh

: "${BENCH_REPS:=$(kernel_arg kprof_bench_reps)}"
: "${BENCH_REPS:=5}"
: "${BENCH_LOOPS:=10000}"
: "${BENCH_HOLD_S:=3}"
# kprof_bench_pin=1: cyclictest on CPU 0 only, the readers on CPU 1 (with
# multi-threaded TCG each vCPU has a host thread of its own)
S2_PIN="" S2_CYC="-t"
if [ "$(kernel_arg kprof_bench_pin)" = 1 ]; then
	S2_PIN="taskset -p -c 1" S2_CYC="-a 0 -t 1"	# the readers' CPU: S2_PIN PID
fi

command -v cyclictest >/dev/null || fail "no cyclictest in the guest"
command -v tmux >/dev/null || fail "no tmux in the guest"
export TERM=screen	# the terminfo the guest has (tests/vm/harness/mkinitramfs.sh)
grep -q PREEMPT_RT /proc/version || echo "note: not a PREEMPT_RT kernel"
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=1 irq_coalesce=1 \
	work_ns=2000 || fail "insmod pktproc"
echo 1 >"$KP/enable"

# The files each mode's loop reads: kprof's own, or as many others.
find "$KP" -type f -perm -0400 >/tmp/s2.readers
find "$TR/events" -name format | head -n "$(wc -l </tmp/s2.readers)" >/tmp/s2.busy
[ "$(wc -l </tmp/s2.busy)" = "$(wc -l </tmp/s2.readers)" ] || fail "not enough tracefs files for the control"

# read_all LIST: every file of LIST, over and over
read_all() {
	while :; do
		while read -r f; do
			cat "$f" >/dev/null 2>&1 || true
		done <"$1"
	done
}

# s2_on MODE, s2_off MODE: start and stop MODE's readers
s2_on() {
	[ "$1" != quiet ] || return 0
	read_all "/tmp/s2.$1" &
	s2_reader=$!
	[ -z "$S2_PIN" ] || $S2_PIN "$s2_reader" >/dev/null
	if [ "$1" = busy ]; then
		tmux new-session -d -s s2 -x 160 -y 40 \
			"${S2_PIN:+$S2_PIN \$\$ >/dev/null;} while :; do cat /proc/interrupts >/dev/null; sleep 0.1; done"
		return
	fi
	tmux new-session -d -s s2 -x 160 -y 40 "${S2_PIN:+$S2_PIN \$\$ >/dev/null;} kprofctl top --interval 100ms; exec sleep 600"
	wait_aggregating
}

s2_off() {
	[ "$1" != quiet ] || return 0
	kill "$s2_reader"
	wait "$s2_reader" 2>/dev/null || true
	if [ "$1" = readers ]; then
		tmux send-keys -t s2 q
		n=0
		while [ "$(cat "$KP/aggregate")" != 0 ]; do
			n=$((n + 1)); [ $n -lt 100 ] || fail "kprofctl top did not quit"; sleep 0.1
		done
	fi
	tmux kill-session -t s2
}

# cyc: one cyclictest run; prints "MAX_US AVG_US" over its threads
cyc() {
	# shellcheck disable=SC2086 # S2_CYC: its options, split on purpose
	cyclictest -m -p 95 -i 200 -l "$BENCH_LOOPS" $S2_CYC -q >/tmp/cyc.txt 2>&1 ||
		fail "cyclictest failed: $(cat /tmp/cyc.txt)"
	awk '/^T:/ { for (i = 1; i <= NF; i++) { if ($i == "Max:" && $(i + 1) + 0 > m) m = $(i + 1) + 0
		if ($i == "Avg:") { a += $(i + 1); n++ } } } END { if (!n) exit 1; printf "%d %d\n", m, a / n }' \
		/tmp/cyc.txt || fail "no cyclictest summary: $(cat /tmp/cyc.txt)"
}

: >/tmp/s2.txt
echo 1 >"$PP/start"
rep=1
while [ $rep -le "$BENCH_REPS" ]; do
	# Rotate which mode goes first.
	case $((rep % 3)) in
	1) modes="quiet readers busy" ;;
	2) modes="readers busy quiet" ;;
	0) modes="busy quiet readers" ;;
	esac
	for mode in $modes; do
		s2_on "$mode"
		r=$(cyc)
		s2_off "$mode"
		echo "S2 $mode $rep $r" | tee -a /tmp/s2.txt
	done
	rep=$((rep + 1))
done

# hold_on, hold_off: function_graph under kprof's show functions, over
# kprof's functions, the raw locks with interrupts off, and the allocator's
# and the scheduler's entries (so that their own locks have a parent that is
# not kprof's); hold_off prints "MAX_US P99_US SECTIONS" over the locks a kprof
# function takes itself.
HOLD_LOCKS="_raw_spin_lock_irq _raw_spin_unlock_irq _raw_spin_lock_irqsave _raw_spin_unlock_irqrestore"
HOLD_OTHERS="__kmalloc kmalloc_trace __kvmalloc_node kvmalloc_node kfree kvfree __schedule try_to_wake_up"
hold_on() {
	grep -q function_graph "$TR/available_tracers" || fail "no function_graph tracer"
	for f in $HOLD_LOCKS; do
		grep -qx "$f" "$TR/available_filter_functions" || fail "$f cannot be traced (inlined?)"
	done
	awk '$1 ~ /_show$/ && $2 == "[kprof]" { print $1 }' "$TR/available_filter_functions" >/tmp/hold.roots
	[ -s /tmp/hold.roots ] || fail "no kprof show function to trace"
	echo 4096 >"$TR/buffer_size_kb"
	cat /tmp/hold.roots >"$TR/set_graph_function"
	cat /tmp/hold.roots >"$TR/set_ftrace_filter"
	echo kprof_hist_copy >>"$TR/set_ftrace_filter"
	echo "$HOLD_LOCKS" | tr ' ' '\n' >>"$TR/set_ftrace_filter"
	for f in $HOLD_OTHERS; do	# those of this kernel
		! grep -qx "$f" "$TR/available_filter_functions" || echo "$f" >>"$TR/set_ftrace_filter"
	done
	for o in funcgraph-abstime funcgraph-proc; do echo 1 >"$TR/options/$o"; done
	echo 0 >"$TR/options/funcgraph-irqs"
	echo function_graph >"$TR/current_tracer"
}

hold_off() {
	echo 0 >"$TR/tracing_on"	# a change of tracer would clear the buffer
	# Per CPU and task ($2): the open function at each depth (indentation),
	# and from a kprof function's lock's return (a leaf's start plus its
	# duration, $3, or the time of its closing brace) to the unlock's call.
	awk -F'|' '{ f = $4; match(f, /^ */); d = RLENGTH; sub(/^ */, "", f); k = $2 }
	f ~ /^_raw_spin_unlock_irq(restore)?\(\)/ && held[k] {
		printf "%d\n", ($1 - end[k]) * 1e6 + 0.5; held[k] = 0 }
	f ~ /^_raw_spin_lock_irq(save)?\(\);/ && fn[k, d - 2] ~ /\[kprof\]/ {
		t = $3; gsub(/[^0-9.]/, "", t); end[k] = $1 + t / 1e6; held[k] = 1; next }
	f ~ /^_raw_spin_lock_irq(save)?\(\) \{/ && fn[k, d - 2] ~ /\[kprof\]/ { lockd[k] = d }
	f ~ /^\}/ && lockd[k] == d { end[k] = $1; held[k] = 1; lockd[k] = -1; next }
	f ~ /\{$/ { fn[k, d] = f }
	' "$TR/trace" | sort -n >/tmp/hold.us
	n=$(wc -l </tmp/hold.us)
	echo "$(tail -n 1 /tmp/hold.us) $(sed -n "$(((n * 99 + 99) / 100))p" /tmp/hold.us) $n"
	echo nop >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
	: >"$TR/set_graph_function"
	: >"$TR/set_ftrace_filter"
}

if [ "$BENCH_HOLD_S" -gt 0 ]; then
	# The tracer changes while the readers are stopped: 6.1-rt's guest
	# hung now and then in the change's text patching with a reading loop
	# running, kprof's or the control's.
	hold_on
	s2_on readers
	sleep "$BENCH_HOLD_S"
	echo 0 >"$TR/tracing_on"
	s2_off readers
	hold=$(hold_off)
	[ "${hold##* }" -gt 0 ] || fail "no lock section of a reader in the trace"
	echo "S2HOLD $hold" | tee -a /tmp/s2.txt
fi
echo 1 >"$PP/stop"
echo 0 >"$KP/enable"
rmmod kprof_pktproc
