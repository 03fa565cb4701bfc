# kprof-arch: amd64
# make bench, P2's profile (not part of make check): where an enabled
# hook pair's time goes, against a bare one-field event's. perf record
# -e cpu-clock -g -a while kprof/bench runs its four states interleaved
# (kprof.bench_iters iterations each, default 2,000,000), in the guest
# (the harness copies perf in with KPROF_VM_PERF=1). A line per kernel
# symbol down to 0.5 % of the samples, with its share including what it
# calls (CHILDREN) and its own (SELF):
#   PHOOK CHILDREN_PCT SELF_PCT SYMBOL
# then kprof/bench's own figures for the run.
. /tests/lib.sh

command -v perf >/dev/null || fail "no perf in the guest (the harness copies it with KPROF_VM_PERF=1)"
N=$(kernel_arg kprof.bench_iters)
N=${N:-2000000}

load kprof
echo 1 >"$TR/tracing_on"
perf record -q -e cpu-clock -F 4000 -g -a -o /tmp/p.data -- sh -c "echo $N >$KP/bench" 2>/dev/null ||
	fail "perf record of kprof/bench"
perf report -i /tmp/p.data --stdio --children -g none --sort sym --percent-limit 0.5 2>/dev/null |
	awk '$1 ~ /%$/ && $2 ~ /%$/ { c = $1; s = $2; sub(/%/, "", c); sub(/%/, "", s)
		$1 = ""; $2 = ""; sub(/^ +\[[^]]*\] +/, ""); printf "PHOOK %s %s %s\n", c, s, $0 }'
grep -q "^key_on_vs_bare_on: min" "$KP/bench" || fail "kprof/bench gave no figures: $(cat "$KP/bench")"
cat "$KP/bench"
rmmod kprof
