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
s1_out=$(KPROF_VM_APPEND="kprof_bench_reps=$REPS" guest bench_sched | tr -d '\r' | grep -a '^S1 ')
s1_rows=$(awk '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
	END { for (r = 1; r <= n; r++) printf "| %d | %d | %d (%.3fx) | %d (%.3fx) | %d (%.3fx) |\n", r, ns[r, "none"],
		ns[r, "inkernel"], ns[r, "inkernel"] / ns[r, "none"], ns[r, "stream"], ns[r, "stream"] / ns[r, "none"],
		ns[r, "histtrig"], ns[r, "histtrig"] / ns[r, "none"] }' <<<"$s1_out")
s1_ratio() {
	awk -v m="$1" '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "%.4f\n", ns[r, m] / ns[r, "none"] }' <<<"$s1_out" | stats
}
# Whether 3 % can be told at all: none's own runs' spread.
s1_spread=$(awk '$2 == "none" { if (!n++ || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
	END { printf "%.0f", 100 * (hi / lo - 1) }' <<<"$s1_out")
s1_verdict="not resolved: none's own runs differ by up to $s1_spread %, more than the goal"
[ "$s1_spread" -gt 6 ] || s1_verdict="resolved: none's runs within $s1_spread %"
s1_summary=""
for mode in inkernel stream histtrig; do
	read -r med min max <<<"$(s1_ratio "$mode")"
	s1_summary+="- **$mode**: median **${med}x** none ($min-$max)"$'\n'
done
info "S1 done"

# S2: per RT kernel, one row per round, then the medians and spreads.
s2_section=""
for k in 6.1-rt 7.3-rt; do
	s2_out=$(KPROF_VM_APPEND="kprof_bench_reps=$REPS" guest bench_rt "$k" | tr -d '\r' | grep -a '^S2 ')
	rows=$(awk '{ mx[$3, $2] = $4; av[$3, $2] = $5; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "| %d | %d | %d | %d | %d |\n", r, mx[r, "quiet"], av[r, "quiet"],
			mx[r, "readers"], av[r, "readers"] }' <<<"$s2_out")
	read -r qmed qmin qmax <<<"$(awk '$2 == "quiet" { print $4 }' <<<"$s2_out" | stats)"
	read -r rmed rmin rmax <<<"$(awk '$2 == "readers" { print $4 }' <<<"$s2_out" | stats)"
	s2_section+="### guest $k"$'\n\n'"| round | quiet max us | quiet avg us | readers max us | readers avg us |"$'\n'
	s2_section+="|---|---|---|---|---|"$'\n'"$rows"$'\n\n'
	s2_section+="Largest latency, median of the rounds: quiet **$qmed us** ($qmin-$qmax), readers **$rmed us** ($rmin-$rmax)."$'\n\n'
	info "S2 $k done"
done

# S3 and S4: the figures the tests print.
s3_out=$(guest kprof_memory | tr -d '\r' | grep -a 'MemAvailable dropped\|^budget ')
info "S3 done"
s4_out=$(guest girq_many | tr -d '\r' | grep -a '^ok: ')
info "S4 done"

section=$(cat <<EOF2
$BEGIN
## S1: what measuring IRQ threads costs the scheduler's hot path (goal: tracker <= 1.03x, and below the hist triggers)

tests/vm/bench/bench_sched.sh, one boot of guest $KERNEL, QEMU TCG, 2 vCPUs, written $(date -u +%Y-%m-%d) at
commit $(git -C "$KPROF_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown): kprof-pingpong
(tests/guest/pingpong.c: two processes bouncing a byte over pipes, both on CPU 0; each round trip
is two wake-ups and two context switches) while pktproc's IRQ thread serves 1,000 IRQs/s, in
four modes in rotating order per round: nothing attached (none), \`kprofctl irq --in-kernel\`
(inkernel), streaming \`kprofctl irq\` (stream), and the kernel's own way (histtrig: hist
triggers on sched_waking and sched_switch feeding a synthetic event with each IRQ thread's
wake-up latency, the wakeup_latency recipe of Documentation/trace/histogram.rst filtered on
IRQ threads). ns per round trip, and over none's of the same round.

| round | none | inkernel | stream | histtrig |
|---|---|---|---|---|
$s1_rows

Over the $REPS rounds:
$s1_summary
The 3 % goal: **$s1_verdict**. Under TCG the workload's speed drifts with the emulation
(translated-block reuse, the host's scheduling of the vCPU threads) by more than the probes
cost; the tracker's probe on sched_waking is a load and a branch for a task nobody waits for
(kmod/kprof_girq.c, girq_waking()), and on a CPU this would be resolved with perf stat's
cycle counts, which a TCG guest does not have.

## S2: kprof's readers against a real-time task on PREEMPT_RT

tests/vm/bench/bench_rt.sh, one boot per RT kernel, QEMU TCG, 2 vCPUs of 64 possible:
cyclictest (\`-m -p 95 -i 200\`, a thread per CPU, 10,000 loops) while pktproc's hooks count on
2 queues at 2,000 packets/s, with nothing reading kprof (quiet) and with a loop reading every
kprof debugfs file plus \`kprofctl top --interval 100ms\` in a terminal (readers), alternating
which goes first. Under TCG a guest's latencies are milliseconds, set by the emulation and the
host, not by the guest's kernel: the question is only whether the readers add to them.
Before #25 (aef3cfe: each device reader walked every possible CPU under the device's one lock,
which every hook of every CPU took), the same script on 6.1-rt measured a median largest
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
if [ -f "$out" ] && grep -qF "$BEGIN" "$out"; then
	awk -v b="$BEGIN" -v e="$END" -v f=<(printf '%s\n' "$section") '
		$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$out" >"$out.new"
	mv "$out.new" "$out"
else
	printf '\n%s\n' "$section" >>"$out"
fi
info "wrote the S section of $out"
