#!/usr/bin/env bash
# make bench: kprof's performance figures, written to BENCH.md. Not part of
# make check: the machines are noisy, so every figure is the median of 5
# runs with the spread (min-max) beside it.
#
# Measured so far (issue #11): P4b, the offline decoder's throughput on one
# core, and P5, kprofctl's memory from 10^6 to 10^8 events and the
# percentile error against an exact sort. The guest benchmarks (P1-P3) and
# the comparison with trace-cmd report (P4a) are not written yet.
set -euo pipefail
. "$(dirname "$0")/common.sh"

REPS=${KPROF_BENCH_REPS:-5}
bench=$KPROF_BUILD/host/decode_bench
fixtures=$KPROF_TOP/tests/unit/fixtures/6.1.0-57-amd64
out=${KPROF_BENCH_OUT:-$KPROF_TOP/BENCH.md}

cmake --build "$KPROF_BUILD/host" --target decode_bench -j "$(nproc)" >/dev/null

# field JSON NAME: a number from decode_bench's one-line JSON
field() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" <<<"$1"; }

# stats: median, min, max of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

decode_rows=""
for n in 1000000 10000000 100000000; do
	rates="" rss=""
	for _ in $(seq "$REPS"); do
		line=$("$bench" "$fixtures" "$n")
		rates+="$(field "$line" events_per_s)"$'\n'
		rss+="$(field "$line" maxrss_kb)"$'\n'
	done
	read -r rmed rmin rmax <<<"$(printf %s "$rates" | stats)"
	read -r mmed mmin mmax <<<"$(printf %s "$rss" | stats)"
	decode_rows+=$(awk -v n="$n" -v a="$rmed" -v b="$rmin" -v c="$rmax" -v d="$mmed" -v e="$mmin" -v f="$mmax" \
		'BEGIN { printf "| %d | %.2f M/s | %.2f-%.2f M/s | %d KiB | %d-%d KiB |", n, a / 1e6, b / 1e6, c / 1e6, d, e, f }')$'\n'
	info "decode $n events: median $rmed events/s, max RSS $mmax KiB"
done
acc=$("$bench" --accuracy 10000000)

cat >"$out" <<EOF2
# kprof benchmarks

Written by \`make bench\` on $(date -u +%Y-%m-%d) at commit $(git -C "$KPROF_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown).
Machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -r).
Each figure is the median of $REPS runs, with the spread (min-max) of the same runs.

## P4b: the decoder's throughput on one core (goal: 20 M events/s)

\`decode_bench\` (tests/bench/decode_bench.cpp) decodes the raw pages captured from a 6.1 guest
(tests/unit/fixtures) over and over and aggregates every sample into the report's histograms,
as \`kprofctl latency\` and \`report -i\` do; before each round it gives every latency field a new
value, log-uniform from 16 us to 1 ms, so that the histograms see N distinct samples.
The timed loop includes that patching. One core, no I/O.

| events | decode + aggregate | spread | max RSS | spread |
|---|---|---|---|---|
$decode_rows
## P5: memory and accuracy

Memory: the max RSS column above, from 10^6 to 10^8 events. The histograms allocate a power
of two's buckets (4 KiB) when a value first lands in it, so memory is bounded by the values'
range, not their number.

Accuracy: 10^7 heavy-tailed values, p1 to p99.99 against an exact sort:
\`$acc\` (the bound is 1/1024, the histogram's half bucket width).

## Not measured yet

P1 (a disabled hook in the microbenchmark and in pktproc's per-packet cost against a build
without hooks), P2 (an enabled hook against a bare TRACE_EVENT), P3 (the highest loss-free
rate of streaming, in-kernel aggregation and trace-cmd record) and P4a (\`report -i\` against
\`trace-cmd report | sort | awk\` on the same file of 10^7 events) run in guests and are not
written yet.
EOF2
info "wrote $out"
