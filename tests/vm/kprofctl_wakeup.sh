# kprofctl's reading loop sleeps in poll() on the per-CPU buffers: idle,
# it wakes about once a second and uses next to no CPU; under traffic it
# wakes on data and paces its passes by the rate it reads (an eighth of
# the buffer between passes, 10 to 250 ms), so a buffer that fills in well
# under the idle wait loses nothing. Its pages go to the decoding thread
# through a bounded queue, whose figures the report gives; a trickle of
# events must not make it spin on pages it cannot take.
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 irq_coalesce=4 || fail insmod

# status_field PID NAME: a line of /proc/PID/status
status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}

# wakeups_during PID COMMAND...: PID's voluntary context switches (its
# reading thread's) while COMMAND runs, into $wakeups
wakeups_during() {
	local pid=$1 v0
	shift
	v0=$(status_field "$pid" voluntary_ctxt_switches)
	"$@"
	wakeups=$(($(status_field "$pid" voluntary_ctxt_switches) - v0))
}

# Idle for 4 s: the voluntary context switches of the collecting phase (a
# 50 ms sleep loop makes 40 of them in 2 s), and the CPU used.
kprofctl latency --json -d 4s >/tmp/idle.json 2>/tmp/idle.err &
pid=$!
wait_collecting
sleep 1
wakeups_during $pid sleep 2
wait $pid || fail "idle run: $(cat /tmp/idle.err)"
echo "idle: $wakeups voluntary context switches in 2 s"
[ $wakeups -le 4 ] || fail "kprofctl woke $wakeups times in 2 s idle"
cpu=$(sed -n 's/^ *"kprofctl_cpu_s": \([0-9.e-]*\),*$/\1/p' /tmp/idle.json)
echo "idle: kprofctl used $cpu s of CPU in 4 s"
awk -v c="$cpu" 'BEGIN { exit !(c < 0.1) }' || fail "kprofctl used $cpu s of CPU idle"
grep -q '"events_read": 0,' /tmp/idle.json || fail "events read while idle"

# A 64 KiB buffer per CPU fills in about 0.4 s at this rate (4 events per
# 8 packets, 2 queues), well inside the 1 s idle wait: only waking on data
# keeps up.
kprofctl latency --json -b 64 >/tmp/l.json 2>/tmp/l.err &
pid=$!
wait_collecting
# The decoding thread goes by its name (top -H, make bench's P3 profile).
grep -q '^Name:[[:space:]]*kprof-decode$' /proc/$pid/task/*/status ||
	fail "no thread of kprofctl is named kprof-decode: $(cat /proc/$pid/task/*/comm | tr '\n' ' ')"
wakeups_during $pid run_traffic 3
kill -INT $pid
wait $pid || fail "run under traffic: $(cat /tmp/l.err)"
awk -f /tests/kprofctl_json.awk /tmp/l.json >/tmp/l.txt
echo "traffic: $wakeups wakeups in 3 s, $(sed -n 's/^events_read //p' /tmp/l.txt) events read"
grep -q '^lost false$' /tmp/l.txt || fail "events lost with a 64 KiB buffer: $(grep -E '^(missed_total|buffer_lost|not_read) ' /tmp/l.txt | tr '\n' ' ')"
[ "$(sed -n 's/^events_read //p' /tmp/l.txt)" -gt 10000 ] || fail "too few events to fill the buffer"
[ $wakeups -gt 3 ] || fail "kprofctl did not wake on data ($wakeups wakeups)"
grep '^check ' /tmp/l.txt | while read -r _ dev ev got want; do
	[ "$got" = "$want" ] || fail "$dev $ev: read $got events, kprof.ko emitted $want"
done
# The queue: as large as the instance's buffers together, but at least
# 1 MiB; it held pages (the reader handed them over), never more than that.
read -r _ limit high waits <<EOF_Q
$(grep '^queue ' /tmp/l.txt)
EOF_Q
echo "traffic: page queue limit $limit, high water $high bytes, $waits waits"
[ "$limit" = 1048576 ] || fail "queue limit $limit, not 1 MiB"
[ "$high" -gt 0 ] && [ "$high" -le "$limit" ] || fail "queue high water $high (limit $limit)"

# A trickle (20 packets/s: an event every few tens of ms) keeps the
# writer's page partly filled: each pass takes what it holds and waits for
# the next event, a few dozen wakeups a second at most. A loop that woke on
# a page it could not take would spin every 10 ms (200 in 2 s).
echo 20 >"$PP/rate_pps"
kprofctl latency --json -d 4s >/tmp/t.json 2>/tmp/t.err &
pid=$!
wait_collecting
echo 1 >"$PP/start"
sleep 1
wakeups_during $pid sleep 2
echo 1 >"$PP/stop"
wait $pid || fail "trickle run: $(cat /tmp/t.err)"
awk -f /tests/kprofctl_json.awk /tmp/t.json >/tmp/t.txt
echo "trickle: $wakeups wakeups in 2 s, $(sed -n 's/^events_read //p' /tmp/t.txt) events read"
grep -q '^lost false$' /tmp/t.txt || fail "events lost at 20 packets/s"
[ "$(sed -n 's/^events_read //p' /tmp/t.txt)" -gt 0 ] || fail "trickle run read no event"
[ $wakeups -le 120 ] || fail "kprofctl woke $wakeups times in 2 s at 20 packets/s"
