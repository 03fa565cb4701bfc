# kprof-timeout: 300
# Many IRQ threads with requests pending at once (#25 S4), as a NIC or NVMe
# controller with a queue per CPU has on a large machine: 512 threaded IRQs
# of tests/kmod/kprof_test_many.c. The first fire wakes every thread into a
# first run that sleeps; the second finds all 512 in a run, so 512 threads
# hold a request and a run in the tracker's table at once. None may be
# dropped: the table is sized when the tracker attaches for the IRQ threads
# that exist (before it was 64 buckets of 4 slots, and 512 of these
# requests were dropped). Then kprofctl irq's rows of the 512 actions hold
# the module's counts: 1,024 hard handler runs and requests, 512 woken,
# 512 busy, every request served by a run.
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

# The tracker attaches: streaming kprofctl irq, whose report has a row per
# action (the system-wide counters also count other IRQs' requests: every
# IRQ is a thread on PREEMPT_RT).
kprofctl irq --json -b 4096 >/tmp/m.json 2>/tmp/m.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
dropped0=$(gc dropped_requests)

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
echo 1 >$M/release
wait_state runs $((2 * N)) "every thread's second run"
wait_state waiting 0 "every first run's end"
sleep 0.5
kill -INT $pid
wait $pid || fail "kprofctl irq: $(cat /tmp/m.err)"
expect_eq "requests dropped over the run" $(($(gc dropped_requests) - dropped0)) 0
awk -f /tests/kprofctl_json.awk /tmp/m.json >/tmp/m.txt
grep -q '^lost false$' /tmp/m.txt || fail "kprofctl irq lost events"
# Per action: HANDLERS REQUESTS WOKEN RUNS COALESCED BUSY UNSERVED, summed.
# shellcheck disable=SC2046 # the seven sums, split on purpose
set -- $(awk '$1 == "irq" && $3 == "kprof_many" { n++; for (i = 4; i <= 10; i++) s[i] += $i }
	END { print n + 0, s[4] + 0, s[5] + 0, s[6] + 0, s[7] + 0, s[8] + 0, s[9] + 0, s[10] + 0 }' /tmp/m.txt)
expect_eq "actions in the report" "$1" $N
expect_eq "hard handler runs" "$2" $((2 * N))
expect_eq "requests" "$3" $((2 * N))
expect_eq "requests that woke their thread" "$4" $N
expect_eq "requests served by a run (1 + coalesced each)" $(($5 + $6)) $((2 * N))
expect_eq "requests that found their thread in a run" "$7" $N
expect_eq "requests not served" "$8" 0
rmmod kprof_test_many
rmmod kprof
echo "ok: $N IRQ threads pending at once, none dropped"
