# kprof-timeout: 900
# kprof-qemu: -icount shift=0
# S1's check in make check (#25; make bench measures it: BENCH.md): what
# the IRQ tracker costs the scheduler's hot path, tests/vm/bench/
# bench_sched.sh in 3 rounds of 10,000 round trips. The guest runs with
# QEMU's -icount: its clock counts the instructions it executes (one a
# nanosecond), so a round trip's time is what the guest did, whatever
# else the host runs. Both vCPUs' instructions advance that one clock
# (single-threaded TCG runs them in turn): what kprofctl does on the other
# vCPU counts too. The bounds, on the median round's ratio to none's:
#   inkernel  kprofctl irq --in-kernel, the tracker's probes: 1.04, the
#             goal's 1.03 and a margin (make bench measures 1.015); a
#             probe that took a lock or walked a table on every wake-up
#             or switch would show. (Disabling interrupts and reading the
#             clock on every sched_waking, without the fast path, adds
#             0.7 %: measured, below what this bound resolves.)
#   stream    kprofctl irq, the probes and their events read: 1.10
#   histtrig  the hist-trigger recipe: above inkernel (1.27 measured)
# Each mode must also have measured something (kprofctl's report names
# pktproc's IRQ; the hist triggers' synthetic event has hits).
# kprof-kernels: arm64-7.3
export BENCH_REPS=3 BENCH_ROUNDTRIPS=10000
. /tests/bench_sched.sh

# ratio MODE: the median over the rounds of MODE's ns per round trip over
# none's in the same round, in thousandths
ratio() {
	awk -v m="$1" '{ ns[$3, $2] = $4; if ($3 > n) n = $3 }
		END { for (r = 1; r <= n; r++) printf "%d\n", 1000 * ns[r, m] / ns[r, "none"] }' /tmp/s1.txt | median
}
for mode in inkernel stream histtrig; do
	echo "S1 check: $mode: median round $(ratio "$mode")/1000 of none's"
done
for bound in inkernel:1040 stream:1100; do
	mode=${bound%:*} r=$(ratio "${bound%:*}")
	[ "$r" -le "${bound#*:}" ] || fail "$mode: $r/1000 of none's (bound ${bound#*:})"
	echo "ok: $mode: $r/1000 of none's, within ${bound#*:}"
done
[ "$(ratio inkernel)" -lt "$(ratio histtrig)" ] ||
	fail "the tracker ($(ratio inkernel)/1000) costs no less than the hist triggers ($(ratio histtrig)/1000)"
echo "ok: the tracker costs less than the hist-trigger recipe"
