#!/usr/bin/env bash
# make bench, issue #25's figures: what kprof costs at production scale,
# written into BENCH.md between the markers of its "S" section (replaced
# whole, so that this part can be run alone: bash ci/bench_scale.sh).
#   S1  the scheduler's hot path: tests/vm/bench/bench_sched.sh, one boot
#       of KPROF_BENCH_KERNEL, REPS rounds of the four modes in rotating
#       order; per round each mode's ns per round trip over none's
#   S2  readers against cyclictest on 6.1-rt and 7.3-rt: tests/vm/bench/
#       bench_rt.sh, one boot each, REPS rounds of both modes
#   S3  memory of each aggregation mode at 64 possible CPUs:
#       tests/vm/kprof_memory.sh's figures
#   S4  many IRQ threads pending at once: tests/vm/girq_many.sh's figures
set -euo pipefail
. "$(dirname "$0")/common.sh"

REPS=${KPROF_BENCH_REPS:-5}
KERNEL=${KPROF_BENCH_KERNEL:-6.1}
out=${KPROF_BENCH_OUT:-$KPROF_TOP/BENCH.md}
BEGIN='<!-- S: written by ci/bench_scale.sh -->'
END='<!-- S: end -->'

# guest TEST [KERNEL]: run a guest script, print what it printed
guest() {
	KPROF_VM_TIMEOUT=2400 "$KPROF_TOP/tests/vm/harness/vm-run.sh" "${2:-$KERNEL}" "$1" ||
		die "$1 failed on ${2:-$KERNEL}"
}

# S1: one row per round, then per mode the median ratio and its spread.
# Under -icount (S1_QEMU) the guest's clock counts its instructions.
S1_KERNEL=${KPROF_BENCH_S1_KERNEL:-arm64-7.3}
S1_QEMU="-icount shift=0"
s1_out=$(KPROF_VM_QEMU="$S1_QEMU" KPROF_VM_APPEND="kprof_bench_reps=$REPS" guest bench_sched "$S1_KERNEL" |
	tr -d '\r' | grep -a '^S1 ')
s1_rows=$(awk '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
	END { for (r = 1; r <= n; r++) printf "| %d | %d | %d (%.3fx) | %d (%.3fx) | %d (%.3fx) |\n", r, ns[r, "none"],
		ns[r, "inkernel"], ns[r, "inkernel"] / ns[r, "none"], ns[r, "stream"], ns[r, "stream"] / ns[r, "none"],
		ns[r, "histtrig"], ns[r, "histtrig"] / ns[r, "none"] }' <<<"$s1_out")
s1_ratio() {
	awk -v m="$1" '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "%.4f\n", ns[r, m] / ns[r, "none"] }' <<<"$s1_out" | stats
}
# none's own runs' spread: what a ratio can be told from
s1_spread=$(awk '$2 == "none" { if (!n++ || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
	END { printf "%.1f", 100 * (hi / lo - 1) }' <<<"$s1_out")
s1_summary=""
declare -A s1_med
for mode in inkernel stream histtrig; do
	read -r med min max <<<"$(s1_ratio "$mode")"
	s1_med[$mode]=$med
	s1_summary+="- **$mode**: median **${med}x** none ($min-$max)"$'\n'
done
s1_verdict="not met: the tracker's median is ${s1_med[inkernel]}x"
if awk -v t="${s1_med[inkernel]}" -v h="${s1_med[histtrig]}" 'BEGIN { exit !(t <= 1.03 && t < h) }'; then
	s1_verdict="met: the tracker's median is ${s1_med[inkernel]}x, the hist triggers' ${s1_med[histtrig]}x"
fi
info "S1 done"

# spread V LO HI: "within" or "outside" [LO, HI]
spread() {
	if [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then echo within; else echo outside; fi
}

# S2: per RT kernel, one row per round, then the medians and spreads.
s2_section=""
declare -A s2_lat
for k in 6.1-rt 7.3-rt; do
	s2_all=$(KPROF_TCG_THREAD=multi KPROF_VM_APPEND="kprof_bench_reps=$REPS kprof_bench_pin=1" guest bench_rt "$k" |
		tr -d '\r')
	s2_out=$(grep -a '^S2 ' <<<"$s2_all")
	read -r _ hold_us hold_p99 hold_n <<<"$(grep -a '^S2HOLD ' <<<"$s2_all")"
	rows=$(awk '{ mx[$3, $2] = $4; av[$3, $2] = $5; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "| %d | %d | %d | %d | %d | %d | %d |\n", r, mx[r, "quiet"], av[r, "quiet"],
			mx[r, "busy"], av[r, "busy"], mx[r, "readers"], av[r, "readers"] }' <<<"$s2_out")
	s2_section+="### guest $k"$'\n\n'"| round | quiet max us | quiet avg us | busy max us | busy avg us | readers max us | readers avg us |"$'\n'
	s2_section+="|---|---|---|---|---|---|---|"$'\n'"$rows"$'\n\n'"Over the rounds, median (lowest-highest):"$'\n'
	for mode in quiet busy readers; do
		read -r med min max <<<"$(awk -v m="$mode" '$2 == m { print $4 }' <<<"$s2_out" | stats)"
		read -r amed amin amax <<<"$(awk -v m="$mode" '$2 == m { print $5 }' <<<"$s2_out" | stats)"
		s2_section+="- $mode: largest **$med us** ($min-$max), average **$amed us** ($amin-$amax)"$'\n'
		s2_lat[$mode]="$med $min $max"
	done
	read -r rmed _ _ <<<"${s2_lat[readers]}"
	read -r _ bmin bmax <<<"${s2_lat[busy]}"
	read -r _ qmin qmax <<<"${s2_lat[quiet]}"
	s2_section+=$'\n'"The readers' median largest latency ($rmed us) is $(spread "$rmed" "$bmin" "$bmax")"
	s2_section+=" the control's spread ($bmin-$bmax us) and $(spread "$rmed" "$qmin" "$qmax") quiet's ($qmin-$qmax us)"
	if [ "$rmed" -le "$qmax" ]; then s2_section+=", and no higher than quiet's highest"; fi
	s2_section+="."$'\n\n'
	s2_section+="The longest a reader held a CPU's lock with interrupts off, over $hold_n such sections of the readers under function_graph: **$hold_us us**; 99 % of them $hold_p99 us or less."$'\n\n'
	info "S2 $k done"
done

# S3 and S4: the figures the tests print.
s3_out=$(guest kprof_memory | tr -d '\r' | grep -a 'MemAvailable dropped\|^budget ')
# The core set on 8 vCPUs, each test as make check runs it on 2.
S3_KERNEL=${KPROF_BENCH_S3_KERNEL:-arm64-7.3}
S3_CORE="kprof_events kprof_inkernel kprofctl_latency kprof_unload girq_inkernel girq_sleep girq_nested girq_forced"
s3_core=""
for t in $S3_CORE; do
	t0=$(date +%s)
	KPROF_VM_QEMU="-smp 8" KPROF_VM_LOG="${t}_smp8" guest "$t" "$S3_KERNEL" >/dev/null
	s3_core+="| $t | passed | $(($(date +%s) - t0)) s |"$'\n'
done
info "S3 done"
s4_out=$(guest girq_many | tr -d '\r' | grep -a '^ok: ')
info "S4 done"

section=$(cat <<EOF2
$BEGIN
## S1: what measuring IRQ threads costs the scheduler's hot path (goal: tracker <= 1.03x, and below the hist triggers)

tests/vm/bench/bench_sched.sh, one boot of guest $S1_KERNEL, QEMU TCG with \`$S1_QEMU\`, 2 vCPUs,
written $(date -u +%Y-%m-%d) at commit $(git -C "$KPROF_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown):
kprof-pingpong (tests/guest/pingpong.c: two processes bouncing a byte over pipes, both on CPU 0;
each round trip is two wake-ups and two context switches) while pktproc's IRQ thread serves
1,000 IRQs/s, in four modes in rotating order per round: nothing attached (none),
\`kprofctl irq --in-kernel\` (inkernel), streaming \`kprofctl irq\` (stream), and the kernel's
own way (histtrig: hist triggers on sched_waking and sched_switch feeding a synthetic event with
each IRQ thread's wake-up latency, the wakeup_latency recipe of Documentation/trace/histogram.rst
filtered on IRQ threads). ns per round trip, and over none's of the same round.

With \`-icount shift=0\` the guest's clock counts the instructions the guest executes, one a
nanosecond, so the ratios are instruction counts: what the host does beside the guest does not
enter them. TCG runs the two vCPUs in turn on one clock, so what kprofctl does on the other vCPU
(the stream mode's reading and decoding) counts in the workload's time as well: a bound on
what a CPU pays, not a cycle count. Without -icount (before this method, on guest 6.1) none's
own runs differed by up to 56 %, and 3 % could not be told.

| round | none | inkernel | stream | histtrig |
|---|---|---|---|---|
$s1_rows

Over the $REPS rounds (none's own runs within $s1_spread % of each other):
$s1_summary
The goal (the tracker at most 1.03x, and below the hist triggers): **$s1_verdict**. The
tracker's probe on sched_waking is a per-CPU load and a branch for a task nobody waits for
(kmod/kprof_girq.c, girq_waking()); without that fast path (interrupts off and a clock read on
every wake-up) girq_sched_cost's three rounds measured 1.022x instead of 1.015x.

## S2: kprof's readers against a real-time task on PREEMPT_RT

tests/vm/bench/bench_rt.sh, one boot per RT kernel, QEMU TCG, 2 vCPUs of 64 possible, each vCPU
on a host thread of its own (multi-threaded TCG): cyclictest (\`-m -p 95 -i 200 -a 0 -t 1\`, one
thread on CPU 0, 10,000 loops) while pktproc's hooks count on 2 queues at 2,000 packets/s (its
IRQs on both CPUs), with nothing reading kprof (quiet), with a loop reading every kprof debugfs
file plus \`kprofctl top --interval 100ms\` in a terminal, both on CPU 1 (readers), and with
the control (busy: the same loop over as many tracefs files that are not kprof's, and a loop
reading /proc/interrupts every 100 ms, on CPU 1), in rotating order. A reader on CPU 1 takes
CPU 0's lock to copy CPU 0's counters and histograms while CPU 0's hooks run: that is what the
readers can cost cyclictest. Under TCG a guest's latencies are milliseconds, set by the
emulation and the host, not by the guest's kernel, so after the rounds the readers run once
more under the kernel's function_graph tracer (every kprof debugfs show function a root; the
kernels have no irqsoff tracer): from each raw lock a kprof function takes with interrupts off
to its unlock, the tracer's own cost inside included. That is the longest a hook on the
lock's CPU, or that CPU's timer, waits for a reader. With 2 of 64 possible CPUs busy it does
not show what a walk over many busy CPUs would cost: the pre-#25 shape (latency walking every
CPU under one lock) measured 126 us against 102 us, the other 62 CPUs' state being empty.
(make check's kprof_rt_readers runs
single-threaded TCG, where the vCPUs take turns on one host thread and any busy vCPU delays the
other's timer; it bounds the readers against the control there.)
Before #25 (aef3cfe: each device reader walked every possible CPU under the device's one lock,
which every hook of every CPU took), the script of the time (single-threaded TCG, a cyclictest
thread on each CPU, no control) on 6.1-rt measured a median largest
latency of 4,442 us quiet (3,266-9,402) and 6,992 us with the readers (4,935-13,595): the
readers add one to two milliseconds before and after, the cost of their CPU time under
emulation, not of kprof's locks, which at 2 online CPUs were never held long.

$s2_section
## S3: the aggregations' memory at 64 possible CPUs

tests/vm/kprof_memory.sh (guest 6.1, \`-smp 2,maxcpus=64\`, pktproc on 2 queues, 2 s): the
guest's MemAvailable before and during each mode. Before #25 the same script measured
176,108 KiB for girq_aggregate and 61,424 KiB for aggregate.

\`\`\`
$s3_out
\`\`\`

The core set on guest $S3_KERNEL with \`-smp 8\` (QEMU TCG runs the 8 vCPUs in turn on one host
thread), each test unchanged: its exact counts, its comparisons of the in-kernel and streaming
statistics, nothing lost. \`kprof_smp8\` (in make check, 6.1 and arm64-7.3) adds pktproc's 8
queues, one per CPU, and \`girq_inkernel_smp8\` keeps girq_inkernel's 8-vCPU run in make check:
at 8 vCPUs it found every CPU's timer and IPIs wanting histograms at once, 226 to 13,517 samples a
run lost to full stages, before the start reserved 4 spares an online CPU and the fill work
became unbound.

| test | result | wall |
|---|---|---|
$s3_core
## S4: many IRQ threads with requests pending at once

tests/vm/girq_many.sh (guest $KERNEL, tests/kmod/kprof_test_many.c): 512 threaded IRQs, every
thread asleep in its first run and then each with a request pending. Before #25 the tracker's
table (64 buckets of 4 slots) dropped 512 of the 1,024 requests.

\`\`\`
$s4_out
\`\`\`
$END
EOF2
)
bench_section "$out" "$BEGIN" "$END" "$section"
info "wrote the S section of $out"
