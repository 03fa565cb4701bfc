# kprof-timeout: 900
# S1's check in make check (#25; make bench measures it: BENCH.md): what
# the IRQ tracker costs the scheduler's hot path, tests/vm/bench/
# bench_sched.sh in 5 rounds of 5,000 round trips. Loose bounds, for a
# noisy TCG guest: with the tracker attached (kprofctl irq --in-kernel, or
# streaming), the median over the rounds of the workload's time over its time
# with nothing attached in the same round is at most 1.25. Each mode must also have measured
# something (kprofctl's report names pktproc's IRQ; the hist triggers'
# synthetic event has hits).
# kprof-kernels: 6.1
export BENCH_REPS=5 BENCH_ROUNDTRIPS=5000
. /tests/bench_sched.sh

# ratio MODE: the median over the rounds of MODE's ns per round trip over
# none's in the same round, in thousandths
ratio() {
	awk -v m="$1" '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "%d\n", 1000 * ns[r, m] / ns[r, "none"] }' /tmp/s1.txt |
		sort -n | sed -n 3p
}
for mode in inkernel stream histtrig; do
	echo "S1 check: $mode: median $(ratio "$mode")/1000 of none's time per round trip"
done
for mode in inkernel stream; do
	r=$(ratio $mode)
	[ "$r" -le 1250 ] || fail "$mode: the workload took $r/1000 of its time with nothing attached (bound 1250)"
	echo "ok: $mode within 25 % of none"
done
