# kprof-timeout: 900
# kprof-qemu: -smp 2,maxcpus=64
# kprof-serial
# S2's check in make check (#25; make bench measures it: BENCH.md): kprof's
# readers against a real-time task, tests/vm/bench/bench_rt.sh in 3 rounds
# of 5,000 cyclictest loops on 2 CPUs of 64 possible. A reader holds a CPU's
# lock, interrupts off, for one CPU's copy at a time; before #25 the
# counters, latency and reset walked every possible CPU under the device's
# lock. Loose bounds, for a noisy TCG guest: the median of the rounds'
# largest latency with the readers running is at most twice that with the
# control's loops (busy: the same reading of other files), plus 1 ms.
# kprof-kernels: 6.1-rt
export BENCH_REPS=3 BENCH_LOOPS=5000 BENCH_HOLD_S=0
. /tests/bench_rt.sh

# largest MODE: the median of MODE's largest latencies, us
largest() {
	awk -v m="$1" '$2 == m { print $4 }' /tmp/s2.txt | median
}
quiet=$(largest quiet) readers=$(largest readers) busy=$(largest busy)
echo "S2 check: largest latency, median of the rounds: quiet $quiet us, readers $readers us, busy $busy us"
[ "$readers" -le $((2 * busy + 1000)) ] || fail "with kprof's readers $readers us against $busy us with the control (bound 2x + 1 ms)"
echo "ok: readers within 2x + 1 ms of the control"
