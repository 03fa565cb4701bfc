# In-kernel aggregation (kprofctl latency --in-kernel) against streaming on
# the same traffic: the same samples, so identical counts, min, max and
# percentiles (the same buckets), and the mean to float rounding. Then with
# streaming into a small buffer whose reader stops for a second, so that it
# loses events: in-kernel loses none (the module's counters are the oracle).
# kprof-sets: core
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 irq_coalesce=4 || fail insmod
A=$KP/aggregate
expect_eq "aggregation off at load" "$(cat "$A")" 0
expect_einval 2 "$A"	# nothing to freeze
expect_einval 3 "$A"

# Both modes over the same window; the traffic runs only inside it.
kprofctl latency --json -b 2048 >/tmp/s.json 2>/tmp/s.err &
spid=$!
kprofctl latency --in-kernel --json --per-cpu >/tmp/k.json 2>/tmp/k.err &
kpid=$!
wait_collecting
wait_aggregating
kprofctl status | grep '^aggregation: on ' || fail "status does not show the aggregation on"
run_traffic 2
kill -INT $spid $kpid
wait $spid || fail "streaming run failed: $(cat /tmp/s.err)"
wait $kpid || fail "in-kernel run failed: $(cat /tmp/k.err)"
expect_eq "aggregation off after the run" "$(cat "$A")" 0
kprofctl status | grep '^aggregation: off ' || fail "status does not show the aggregation off"
awk -f /tests/kprofctl_json.awk /tmp/s.json >/tmp/s.txt
awk -f /tests/kprofctl_json.awk /tmp/k.json >/tmp/k.txt
grep -q '^lost false$' /tmp/s.txt || fail "streaming lost events at a low rate: the comparison needs all of them"
grep -q '"mode": "in-kernel"' /tmp/k.json || fail "the in-kernel report does not say so"
grep -q '"mode": "streaming"' /tmp/s.json || fail "the streaming report does not say so"
n=0
for d in pktproc-q0 pktproc-q1; do
	for ev in irq_thread_latency irq_handler batch span:packet; do
		s=$(grep "^stat $ev $d null " /tmp/s.txt) || fail "no streaming stats for $ev on $d"
		k=$(grep "^stat $ev $d null " /tmp/k.txt) || fail "no in-kernel stats for $ev on $d"
		echo "streaming: $s"
		echo "in-kernel: $k"
		expect_eq "$d $ev count, min, max, p50" "$k" "$s"
		# shellcheck disable=SC2086 # split into words on purpose
		set -- $s
		[ "$5" -gt 100 ] || fail "$d $ev: only $5 samples"
		s=$(grep "^pct $ev $d null " /tmp/s.txt)
		k=$(grep "^pct $ev $d null " /tmp/k.txt)
		expect_eq "$d $ev p90, p99, p99.9" "$(echo "$k" | cut -d' ' -f5-7)" "$(echo "$s" | cut -d' ' -f5-7)"
		echo "$s $k" | awk '{ d = $8 - $16; if (d < 0) d = -d; if (d > $8 * 1e-9) exit 1 }' ||
			fail "$d $ev: mean $(echo "$k" | cut -d' ' -f8) in-kernel, $(echo "$s" | cut -d' ' -f8) streaming"
		n=$((n + 1))
	done
done
expect_eq "kinds x devices compared" $n 8
# Per CPU, the in-kernel rows add up to the total.
for d in pktproc-q0 pktproc-q1; do
	tot=$(grep "^stat batch $d null " /tmp/k.txt | cut -d' ' -f5)
	sum=$(grep "^stat batch $d [0-9]" /tmp/k.txt | awk '{ s += $5 } END { print s + 0 }')
	expect_eq "$d batch: per-CPU counts add up" "$sum" "$tot"
done

# A killed run leaves the aggregation on; the next run takes it over,
# says so, and switches it off.
kprofctl latency --in-kernel >/dev/null 2>&1 &
kpid=$!
wait_aggregating
kill -KILL $kpid
wait $kpid || true
expect_eq "aggregation after kill -9" "$(cat "$A")" 1
kprofctl latency --in-kernel -d 300ms >/tmp/k.txt 2>/tmp/k.err || fail "run after a killed one: $(cat /tmp/k.err)"
grep -q "restarting the in-kernel aggregation" /tmp/k.err || fail "no word about the aggregation left on"
grep -q "no ring buffer, so no event could be lost" /tmp/k.txt || fail "the text report does not say where it came from"
expect_eq "aggregation after the next run" "$(cat "$A")" 0

# One owner at a time: the file that switched an aggregation on owns it
# until it switches it off or is closed; writes through any other file fail
# with EBUSY and change nothing, so a second run cannot zero or free the
# first's histograms. Both switches (girq_aggregate shares the code).
for f in $A $KP/girq_aggregate; do
	exec 3>"$f"
	echo 1 >&3
	expect_errno 0 "$f" "Device or resource busy"
	expect_errno 1 "$f" "Device or resource busy"
	echo 2 >&3
	exec 3>&-
	expect_eq "$f left by its closed owner" "$(cat "$f")" 2
	echo 0 >"$f" || fail "$f: another file cannot write once the owner closed"
done
# kprofctl: a second --in-kernel run fails at its start, naming the first,
# which goes on and reports.
kprofctl latency --in-kernel --json >/tmp/k.json 2>/tmp/k.err &
kpid=$!
wait_aggregating
expect_aggregation_owned "a second --in-kernel run" "$kpid"
expect_eq "aggregation after the second run failed" "$(cat "$A")" 1
run_traffic 1
kill -INT $kpid
wait $kpid || fail "the first run failed: $(cat /tmp/k.err)"
grep -q '"count"' /tmp/k.json || fail "the first run reported nothing"
expect_eq "aggregation after the first run" "$(cat "$A")" 0

# A device registered while the aggregation is on records from then on; one
# frozen records nothing more; unloading kprof with it on is clean (the
# harness checks dmesg).
rmmod kprof_pktproc
echo 1 >"$A"
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=2000 || fail insmod
run_traffic 1
echo 2 >"$A"
n1=$(awk '$1 == "batch" { s += $3 } END { print s + 0 }' "$KP"/pktproc-q0/hist)
[ "$n1" -gt 100 ] || fail "a device registered while aggregating recorded $n1 batches"
run_traffic 1
expect_eq "batches recorded while frozen" "$(awk '$1 == "batch" { s += $3 } END { print s + 0 }' "$KP"/pktproc-q0/hist)" "$n1"
echo 1 >"$A"
grep -q '^batch ' "$KP"/pktproc-q0/hist && fail "a restart kept the old samples"
rmmod kprof_pktproc
rmmod kprof
load kprof

# Streaming into an 8 KiB buffer with its reader stopped for a second
# loses events; the in-kernel run over the same window has every sample
# the module's counters saw. (20000 packets/s livelocked a 6.1-rt guest
# in hard IRQs: the ring buffer's reader then warned that a writer made
# no progress for a second.)
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 batch=1 work_ns=0 pass_overhead_ns=0 || fail insmod
D=pktproc-q0
c0() { counter $D "$1"; }
irqs0=$(c0 irqs) runs0=$(c0 thread_runs) unp0=$(c0 unpaired_runs) b0=$(c0 batches) sp0=$(c0 spans) bw0=$(c0 backwards)
kprofctl latency --json -b 8 >/tmp/s.json 2>/tmp/s.err &
spid=$!
kprofctl latency --in-kernel --json --device $D >/tmp/k.json 2>/tmp/k.err &
kpid=$!
wait_collecting
wait_aggregating
run_traffic_stalled $spid
kill -INT $spid $kpid
wait $spid || fail "streaming run failed: $(cat /tmp/s.err)"
wait $kpid || fail "in-kernel run failed: $(cat /tmp/k.err)"
awk -f /tests/kprofctl_json.awk /tmp/s.json >/tmp/s.txt
awk -f /tests/kprofctl_json.awk /tmp/k.json >/tmp/k.txt
grep -q '^lost true$' /tmp/s.txt || fail "streaming into 8 KiB with its reader stopped lost nothing"
echo "streaming: $(sed -n 's/^missed_total //p' /tmp/s.txt) events lost"
grep -q '^lost false$' /tmp/k.txt ||
	fail "the in-kernel report claims a loss: $(grep -E '^(missed_total|buffer_lost|not_read|untracked) ' /tmp/k.txt | tr '\n' ' ')$(cat "$KP"/memory)"
expect_eq "backwards samples" "$(c0 backwards)" "$bw0"
kc() { grep "^stat $1 $D null " /tmp/k.txt | cut -d' ' -f5; }
expect_eq "in-kernel irq_handler = irqs counted" "$(kc irq_handler)" $(($(c0 irqs) - irqs0))
expect_eq "in-kernel irq_thread_latency = thread runs paired" "$(kc irq_thread_latency)" \
	$(($(c0 thread_runs) - runs0 - $(c0 unpaired_runs) + unp0))
expect_eq "in-kernel batch = batches counted" "$(kc batch)" $(($(c0 batches) - b0))
expect_eq "in-kernel span:packet = spans counted" "$(kc span:packet)" $(($(c0 spans) - sp0))
[ "$(kc batch)" -gt 1000 ] || fail "only $(kc batch) batches in 3 s at 5000 pps"
grep -q pktproc-q1 /tmp/k.txt && fail "--device $D reported another device"
echo "in-kernel: $(kc batch) batches, $(kc irq_handler) IRQs, none lost"
rmmod kprof_pktproc
