# kprof-timeout: 300
# Many IRQ threads with requests pending at once (#25 S4), as a NIC or NVMe
# controller with a queue per CPU has on a large machine: 512 threaded IRQs
# of tests/kmod/kprof_test_many.c. The first fire wakes every thread into a
# first run that sleeps; the second finds all 512 in a run, so 512 threads
# hold a request and a run in the tracker's table at once. None may be
# dropped: the table is sized when the tracker attaches for the IRQ threads
# that exist (before it was 64 buckets of 4 slots, and at least 256 of
# these requests were dropped). Then every request is served by a run:
# wake_requests = run_requests, and the tracker's counts equal the module's.
# kprof-kernels: 6.1 6.1-rt arm64-7.3 6.12-debug
. /tests/lib.sh

N=512
debug_kernel && N=256
irq_threads() { cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^irq/' || true; }
load kprof
t0=$(irq_threads)
insmod "$KPROF_MODDIR/kprof_test_many.ko" threads=$N || fail "insmod kprof_test_many"
M=/sys/kernel/debug/kprof_test_many
st() { sed -n "s/^$1 //p" $M/state; }
gc() { sed -n "s/^$1: //p" "$KP/girq_counters"; }
expect_eq "IRQ threads made" $(($(irq_threads) - t0)) $N

# The tracker attaches (girq_aggregate on, left on by the echo).
echo 1 >"$KP/girq_aggregate"
wait_attached
wake0=$(gc wake_requests) run0=$(gc run_requests) dropped0=$(gc dropped_requests)
woken0=$(gc woken) busy0=$(gc busy_requests)

wait_state() {
	n=0
	until [ "$(st "$1")" = "$2" ]; do
		n=$((n + 1)); [ $n -lt 300 ] || fail "$3 within 30 s: $(tr '\n' ' ' <$M/state)"; sleep 0.1
	done
}
echo 1 >$M/fire
wait_state waiting $N "every thread asleep in its first run"
echo 1 >$M/fire
wait_state hard $((2 * N)) "the second round of hard handlers"
# Every thread is in a run with a request pending now: in the table at once.
expect_eq "requests dropped with $N threads pending at once" $(($(gc dropped_requests) - dropped0)) 0
expect_eq "requests made" $(($(gc wake_requests) - wake0)) $((2 * N))
expect_eq "requests that found their thread in a run" $(($(gc busy_requests) - busy0)) $N
echo 1 >$M/release
wait_state runs $((2 * N)) "every thread's second run"
n=0
until [ $(($(gc run_requests) - run0)) -eq $((2 * N)) ]; do
	n=$((n + 1)); [ $n -lt 100 ] || break; sleep 0.1
done
expect_eq "requests served by a run" $(($(gc run_requests) - run0)) $((2 * N))
expect_eq "requests that woke their thread" $(($(gc woken) - woken0)) $N
echo 0 >"$KP/girq_aggregate"
rmmod kprof_test_many
rmmod kprof
echo "ok: $N IRQ threads pending at once, none dropped"
