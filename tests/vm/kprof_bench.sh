# The hook microbenchmark (kprof/bench): runs in bounded rounds, reports
# six states with their spread and an enabled hook pair against a bare
# one-field event (issue #11 P2) and taken apart (two clock reads around
# the bare event; the kprof_batch event alone), writes its events only into its own
# instance, and refuses to run while someone listens. Its numbers are
# reported, not asserted, except where a real measurement cannot go: an
# enabled event costs more than a NOP.
. /tests/lib.sh

load kprof
expect_eq "bench before a run" "$(head -n 1 "$KP"/bench | cut -d: -f1)" "no run yet"
echo 1 >"$TR/tracing_on"
echo >"$TR/trace"
ratio() { sed -n "s/^$1: .* min \([0-9.]*\) x baseline$/\1/p" "$KP/bench" | tr -d .; }
echo 200000 >"$KP/bench"
cat "$KP/bench"
grep -q "^rounds: [0-9]* of [0-9]* iterations per state, interleaved, in sections of [0-9]*$" "$KP/bench" || fail "no rounds line"
rounds=$(sed -n 's/^rounds: \([0-9]*\) .*/\1/p' "$KP/bench")
[ "$rounds" -ge 10 ] || fail "only $rounds rounds"
for s in baseline key_off key_on bare_on clock2 batch_ev; do
	grep -q "^$s: min [0-9.]* median [0-9.]* max [0-9.]* ns/iter, min [0-9.]* x baseline$" "$KP/bench" ||
		fail "no $s line"
done
# key_off below the baseline is not a real cost: under TCG a jump to another
# page costs more, and where the module's layout puts the loops and their
# work function decides which state pays it (6.12: key_off at 0.49x after
# an unrelated change moved them). Reported, not asserted, until the bench
# is layout-proof (issue #11 P1).
[ "$(ratio key_off)" -ge 9000 ] ||
	echo "note: key_off at $(ratio key_off)/10000 of the baseline: a code-layout artifact under TCG, not a measurement"
[ "$(ratio key_on)" -gt "$(ratio key_off)" ] || fail "an enabled event costs no more than a NOP"
[ "$(ratio bare_on)" -gt 10000 ] || fail "an enabled bare event costs nothing"
for r in key_on_vs_bare_on clock2_vs_bare_on batch_ev_vs_bare_on; do
	grep -q "^$r: min [0-9]*\.[0-9]* x$" "$KP/bench" || fail "no $r line"
done
# Each decomposing state does what it names: two clock reads more than
# bare_on, and the kprof_batch event costs something.
[ "$(ratio clock2)" -gt "$(ratio bare_on)" ] || fail "two clock reads and a bare event cost no more than the bare event"
[ "$(ratio batch_ev)" -gt "$(ratio key_off)" ] || fail "an enabled kprof_batch costs no more than a NOP"
# The benchmark cleaned up after itself: key off, its instance gone, no
# device, and nothing written into the top-level buffer.
expect_eq "kprof events in the top-level buffer" "$(grep -c 'kprof_' "$TR"/trace || true)" 0
[ ! -e "$TR/instances/kprof_bench" ] || fail "bench instance left behind"
expect_eq "kprof_batch enabled after bench" "$(cat "$TR"/events/kprof/kprof_batch/enable)" 0
expect_eq "kprof_bench_bare enabled after bench" "$(cat "$TR"/events/kprof_bench/kprof_bench_bare/enable)" 0
[ ! -e "$KP/kprof_bench" ] || fail "bench device left registered"

# Busy while anyone listens.
echo 1 >"$KP/enable"
if echo 1000 >"$KP/bench" 2>/dev/null; then fail "bench ran while kprof was listening"; fi
echo "ok: bench refuses to run while enable=1"
echo 0 >"$KP/enable"

# A second writer waits for a running bench interruptibly (state S, not D:
# a D wait as long as a run is a hung-task report), and a signal ends both
# the wait and the run (EINTR).
sh -c "echo 100000000 >$KP/bench" 2>/dev/null &
run=$!
sleep 1
sh -c "echo 1000 >$KP/bench" 2>/dev/null &
waiter=$!
sleep 1
state() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status"; }
expect_eq "the waiting writer's state" "$(state $waiter)" S
kill $waiter $run
if wait $waiter; then fail "the interrupted wait succeeded"; fi
if wait $run; then fail "the interrupted run succeeded"; fi
echo "ok: a wait for a running bench is interruptible, and so is the run"
rmmod kprof
