# The hook microbenchmark (kprof/bench): runs, reports three states in one
# run, and refuses to run while someone listens. Its numbers are reported,
# not asserted, except that an enabled event must cost more than a NOP.
. /tests/lib.sh

load kprof
expect_eq "bench before a run" "$(head -n 1 $KP/bench | cut -d: -f1)" "no run yet"
echo 200000 >"$KP/bench"
cat "$KP/bench"
for s in baseline key_off key_on; do
	grep -q "^$s: [0-9.]* ns/iter, [0-9.]* x baseline$" "$KP/bench" || fail "no $s line"
done
ratio() { sed -n "s/^$1: .* \([0-9.]*\) x baseline$/\1/p" "$KP/bench" | tr -d .; }
[ "$(ratio key_on)" -gt "$(ratio key_off)" ] || fail "an enabled event costs no more than a NOP"
# The benchmark cleaned up after itself: key off, event off, no device.
expect_eq "kprof_batch enabled after bench" "$(cat $TR/events/kprof/kprof_batch/enable)" 0
[ ! -e "$KP/kprof_bench" ] || fail "bench device left registered"

# Busy while anyone listens.
echo 1 >"$KP/enable"
if echo 1000 >"$KP/bench" 2>/dev/null; then fail "bench ran while kprof was listening"; fi
echo "ok: bench refuses to run while enable=1"
echo 0 >"$KP/enable"
rmmod kprof
