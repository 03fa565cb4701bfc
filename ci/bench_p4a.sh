#!/usr/bin/env bash
# make bench, P4a: the offline report against the pipeline a user would
# write instead, on the same trace-cmd file of at least 10^7 events.
# usage: bench_p4a.sh KERNEL REPS; prints BENCH.md's P4a section.
# The file is recorded in a guest of KERNEL (tests/vm/bench/bench_record.sh) and
# carried out raw on a virtio disk; both analyses run on the host, REPS
# times each, interleaved.
set -euo pipefail
. "$(dirname "$0")/common.sh"

kernel=${1:?usage: bench_p4a.sh KERNEL REPS} reps=${2:?usage: bench_p4a.sh KERNEL REPS}
dir=$KPROF_BUILD/bench
dat=$dir/trace.dat
kprofctl=$KPROF_BUILD/host/kprofctl
mkdir -p "$dir"

img=$dir/disk.img
rm -f "$img"
truncate -s 4G "$img"
out=$(KPROF_VM_QEMU="-m 3G -drive file=$img,format=raw,if=virtio" KPROF_VM_TIMEOUT=900 \
	"$KPROF_TOP/tests/vm/harness/vm-run.sh" "$kernel" bench_record) || die "bench_record failed on $kernel: $out"
bytes=$(sed -n 's/^P4a bytes //p' <<<"$out")
[ -n "$bytes" ] || die "bench_record printed no size"
head -c "$bytes" "$img" >"$dat"
rm -f "$img"
info "P4a: $(du -h "$dat" | cut -f1) recorded on $kernel"

# The pipeline: each kprof latency event's kind and value, sorted, then
# count, min, p50, p90, p99, p99.9 and max per kind (nearest rank).
pipeline() {
	trace-cmd report -i "$dat" 2>/dev/null |
		awk '{ for (i = 1; i <= NF; i++) {
			if ($i ~ /^kprof_(irq_thread_latency|irq_handler|batch|span):$/) ev = $i
			else if (ev != "" && $i ~ /^(delta_ns|duration_ns)=/) { sub(/^[a-z_]*=/, "", $i); print ev, $i; ev = ""; break }
		} ev = "" }' |
		LC_ALL=C sort -k1,1 -k2,2n |
		awk 'function flush(   i) { if (n) { printf "%s count=%d min=%d", key, n, v[1]
				split("50 90 99 99.9", q, " "); for (i = 1; i <= 4; i++) printf " p%s=%d", q[i], v[int((n - 1) * q[i] / 100) + 1]
				printf " max=%d\n", v[n] } n = 0 }
			$1 != key { flush(); key = $1 } { v[++n] = $2 } END { flush() }'
}

# now: seconds since the epoch, to the ns
now() { date +%s.%N; }

kp_times="" pipe_times=""
for _ in $(seq "$reps"); do
	t0=$(now)
	"$kprofctl" report -i "$dat" --json >"$dir/report.json"
	t1=$(now)
	pipeline >"$dir/pipeline.txt"
	t2=$(now)
	kp_times+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"$'\n'
	pipe_times+="$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')"$'\n'
	info "P4a: kprofctl $(tail -n 1 <<<"${kp_times%$'\n'}") s, pipeline $(tail -n 1 <<<"${pipe_times%$'\n'}") s"
done
read -r kmed kmin kmax <<<"$(printf %s "$kp_times" | stats)"
read -r pmed pmin pmax <<<"$(printf %s "$pipe_times" | stats)"
events=$(awk '{ sub(/.*count=/, ""); sub(/ .*/, ""); s += $0 } END { print s }' "$dir/pipeline.txt")
ratio=$(awk -v p="$pmed" -v k="$kmed" 'BEGIN { printf "%.1f", p / k }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 10 ? "met" : "not met") }')

cat <<EOF
## P4a: \`kprofctl report -i\` against \`trace-cmd report | sort | awk\` (goal: >= 10x), host

A file of $(du -h "$dat" | cut -f1) that \`trace-cmd record -e kprof_irq_thread_latency -e kprof_irq_handler -e kprof_batch -e kprof_span -b 65536\` wrote in a $kernel guest
while kprof_stress raced its hooks (tests/vm/bench/bench_record.sh): **$events** latency events. Both
analyses read it from the page cache on this host, $reps times each, interleaved:

- \`kprofctl report -i trace.dat --json\` (count, min, mean, stddev, percentiles, max per event,
  device and CPU);
- \`trace-cmd report -i trace.dat | awk (kind, value) | LC_ALL=C sort -k1,1 -k2,2n | awk\`
  (count, min, p50, p90, p99, p99.9, max per kind; ci/bench_p4a.sh).

| analysis | wall s, median | spread |
|---|---|---|
| kprofctl report -i | $kmed | $kmin-$kmax |
| trace-cmd report, sort, awk | $pmed | $pmin-$pmax |

The pipeline takes **${ratio}x** as long: **$verdict**. Its result per kind:

\`\`\`
$(cat "$dir/pipeline.txt")
\`\`\`
EOF
