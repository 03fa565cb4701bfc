# samples/oot, built against the installed kprof only, loads, pins kprof,
# and produces events.
. /tests/lib.sh

load kprof
load kprof_example
expect_eq "example's spans" "$(cat "$KP"/example/spans)" "0 poll"
[ -e /sys/module/kprof/holders/kprof_example ] || fail "kprof_example does not pin kprof"
if rmmod kprof 2>/dev/null; then fail "kprof unloaded under its user"; fi
I=$TR/instances/oot
mkdir "$I"
echo 1 >"$I/events/kprof/kprof_span/enable"
sleep 1
echo 0 >"$I/events/kprof/kprof_span/enable"
n=$(grep -c 'kprof_span: dev=example id=0 ' "$I/trace" || true)
echo "kprof_span events from the example in 1 s: $n"
[ "$n" -ge 20 ] || fail "the out-of-tree example produced $n events in 1 s at a 10 ms period"
# The example never stops polling, so one poll may finish at each edge while
# the event is being switched (counted, not traced): counter - events is 0..2.
# On 32-bit ARM each switch patches the kernel's text under stop_machine(),
# which under TCG takes long enough for more 10 ms polls (3 seen): 0..6 there.
slack=2
[ "$(uname -m)" != armv7l ] || slack=6
c=$(counter example spans)
[ "$c" -ge "$n" ] && [ "$c" -le $((n + slack)) ] || fail "span counter $c against $n events (want 0..$slack more)"
echo "ok: span counter $c, events $n"
rmdir "$I"
rmmod kprof_example
rmmod kprof
