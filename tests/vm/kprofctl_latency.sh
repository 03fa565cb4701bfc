# kprofctl latency against pktproc: counts match the module's counters,
# min/max match the in-kernel histogram, and losses are reported.
# kprof-sets: core
. /tests/lib.sh

# Without the module: a clear error, exit 1.
set +e
kprofctl latency -d 1s 2>/tmp/err; rc=$?
set -e
expect_eq "exit status without kprof.ko" "$rc" 1
grep -q "kprof.ko is not loaded" /tmp/err || fail "unclear error: $(cat /tmp/err)"

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 irq_coalesce=4 || fail insmod
for d in pktproc-q0 pktproc-q1; do echo 1 >"$KP/$d/reset"; done

# latency_run NAME READER [OPTION...]: kprofctl latency --json under 2 s of
# traffic, with KPROFCTL_READER=READER unless empty; its report flattened
# into /tmp/NAME.txt
latency_run() {
	_name=$1 _reader=$2
	shift 2
	env ${_reader:+KPROFCTL_READER=$_reader} kprofctl latency --json "$@" >"/tmp/$_name.json" 2>"/tmp/$_name.err" &
	pid=$!
	wait_collecting
	run_traffic 2
	kill -INT $pid
	wait $pid || fail "kprofctl latency ${_reader:+with $_reader }failed: $(cat "/tmp/$_name.err")"
	awk -f /tests/kprofctl_json.awk "/tmp/$_name.json" >"/tmp/$_name.txt"
}

latency_run l "" -b 2048
cat /tmp/l.txt
# Piped output: no progress line anywhere.
if grep -q 'events, .* missed' /tmp/l.err /tmp/l.json; then fail "progress line in piped output"; fi
grep -q '^lost false$' /tmp/l.txt || fail "events were lost in a quiet run"
expect_eq "missed" "$(sed -n 's/^missed_total //p' /tmp/l.txt)" 0
[ "$(sed -n 's/^events_read //p' /tmp/l.txt)" -gt 2000 ] || fail "too few events read"
# Under live traffic, nothing lost: every event kprof.ko emitted while
# kprofctl collected was read, exactly (seq window), and every record the
# ring buffers handed over was decoded.
[ "$(grep -c '^check ' /tmp/l.txt)" -eq 8 ] || fail "expected 4 events x 2 devices in the cross-check"
grep '^check ' /tmp/l.txt | while read -r _ dev ev got want; do
	[ "$got" = "$want" ] || fail "$dev $ev: read $got events, kprof.ko emitted $want"
	[ "$want" -gt 0 ] || fail "$dev $ev: nothing emitted in the window"
done
expect_eq "not_read" "$(sed -n 's/^not_read //p' /tmp/l.txt)" 0
expect_eq "buffer_lost" "$(sed -n 's/^buffer_lost //p' /tmp/l.txt)" 0
expect_eq "reader" "$(sed -n 's/^reader //p' /tmp/l.txt)" "$(expected_reader)"
if [ "$(expected_reader)" = splice ]; then
	[ "$(sed -n 's/^spliced //p' /tmp/l.txt)" -gt 0 ] || fail "no page was spliced whole"
fi
# Counts and exact min/max equal the module's own histogram (the same samples).
for d in pktproc-q0 pktproc-q1; do
	for k in irq_thread_latency:irq_thread_latency irq_handler:irq_handler batch:batch span:packet:span:packet; do
		ev=${k%%:*}; [ "$ev" = span ] && ev=span:packet
		kind=${k#*:}; [ "$ev" = span:packet ] && kind=span:packet
		line=$(grep "^$kind count=" "$KP/$d/latency")
		kc=$(echo "$line" | sed 's/.*count=\([0-9]*\).*/\1/')
		kmin=$(echo "$line" | sed 's/.*min_ns=\([0-9]*\).*/\1/')
		kmax=$(echo "$line" | sed 's/.*max_ns=\([0-9]*\).*/\1/')
		set -- $(grep "^stat $ev $d null " /tmp/l.txt)
		[ $# -eq 8 ] || fail "no stats for $ev on $d"
		expect_eq "$d $ev count vs debugfs" "$5" "$kc"
		expect_eq "$d $ev min vs debugfs" "$6" "$kmin"
		expect_eq "$d $ev max vs debugfs" "$7" "$kmax"
	done
done

# Whole pages by splice() where the buffers could be mapped too: the same
# exact counts. And a reader kprofctl does not know is refused by name.
if [ "$(expected_reader)" != splice ]; then
	latency_run s splice
	expect_eq "reader with KPROFCTL_READER=splice" "$(sed -n 's/^reader //p' /tmp/s.txt)" splice
	[ "$(sed -n 's/^spliced //p' /tmp/s.txt)" -gt 0 ] || fail "splice(): no page was spliced whole"
	grep -q '^lost false$' /tmp/s.txt || fail "splice(): events were lost in a quiet run"
	[ "$(grep -c '^check ' /tmp/s.txt)" -eq 8 ] || fail "splice(): expected 4 events x 2 devices in the cross-check"
	grep '^check ' /tmp/s.txt | while read -r _ dev ev got want; do
		[ "$got" = "$want" ] || fail "splice(): $dev $ev: read $got events, kprof.ko emitted $want"
	done
fi
set +e
env KPROFCTL_READER=mapped kprofctl latency -d 1s >/dev/null 2>/tmp/err; rc=$?
set -e
expect_eq "exit status with KPROFCTL_READER=mapped" "$rc" 2
grep -q "KPROFCTL_READER='mapped': expected mmap, splice or read" /tmp/err || fail "unclear error: $(cat /tmp/err)"

# The text report, the CSV and the per-CPU view on the same kind of run.
kprofctl latency --per-cpu --hist -u us >/tmp/l.txt 2>&1 &
pid=$!
wait_collecting
run_traffic 1
kill -INT $pid
wait $pid
cat /tmp/l.txt
grep -q '^irq_thread_latency  *pktproc-q0  *all ' /tmp/l.txt || fail "no all-CPU row in the text report"
grep -q '^irq_thread_latency  *pktproc-q0  *[0-9][0-9]* ' /tmp/l.txt || fail "no per-CPU row in the text report"
grep -q 'ring buffer per CPU' /tmp/l.txt || fail "no loss line in the text report"
grep -q 'cross-check (events read / emitted' /tmp/l.txt || fail "no cross-check in the text report"
grep -q '|#' /tmp/l.txt || fail "no histogram bars"
# CSV with filters, under traffic: rows only for batch on pktproc-q1, and
# there are some. An event kprofctl enable left on in the instance (span)
# is no row either.
kprofctl enable kprof_span >/dev/null
kprofctl latency --csv --device pktproc-q1 -e batch >/tmp/l.csv 2>/tmp/csv.err &
pid=$!
wait_collecting kprof kprof_batch
run_traffic 1
kill -INT $pid
wait $pid || fail "CSV run: $(cat /tmp/csv.err)"
kprofctl disable 'kprof:*' >/dev/null
rmdir "$TR/instances/kprof"
cat /tmp/l.csv
head -n 1 /tmp/l.csv | grep -q '^event,device,cpu,count,min_us' || fail "bad CSV header"
grep -q '^batch,pktproc-q1,all,[1-9]' /tmp/l.csv || fail "no batch row for pktproc-q1 under traffic"
if grep -v '^event' /tmp/l.csv | grep -v '^batch,pktproc-q1,'; then fail "CSV has rows outside the filters"; fi

# An overrun: a 4 KiB buffer whose reader stops for a second. The report
# says so.
echo 5000 >"$PP/rate_pps"
echo 1 >"$PP/batch"
echo 1 >"$PP/irq_coalesce"
kprofctl latency -b 4 --json >/tmp/o.json 2>/tmp/o.err &
pid=$!
wait_collecting
run_traffic_stalled $pid
kill -INT $pid
wait $pid
awk -f /tests/kprofctl_json.awk /tmp/o.json >/tmp/o.txt
echo "overrun run: $(grep -E '^(missed_total|events_read|lost)' /tmp/o.txt | tr '\n' ' ')"
[ "$(sed -n 's/^missed_total //p' /tmp/o.txt)" -gt 0 ] || fail "no missed events reported with a 4 KiB buffer"
grep -q '^lost true$' /tmp/o.txt || fail "JSON does not flag the loss"
grep -q 'WARNING: .* events lost' /tmp/o.err || fail "no warning line on stderr: $(cat /tmp/o.err)"
[ "$(sed -n 's/^buffer_lost //p' /tmp/o.txt)" -gt 0 ] || fail "the ring buffer's loss is not reported"
[ "$(sed -n 's/^not_read //p' /tmp/o.txt)" -gt 0 ] || fail "the seq window does not show the loss"
# Exactly: the events kprofctl reports missed are the kernel's overrun
# figure (per_cpu/cpuN/stats), and the events kprof.ko emitted but kprofctl
# never read (seq). Per CPU, the page headers carry the same count, except
# where a page had no room to store it (lossy pages: flagged, uncounted).
grep '^cpuloss ' /tmp/o.txt
grep '^cpuloss ' /tmp/o.txt | while read -r _ cpu ov cov drop unread hm lossy; do
	expect_eq "cpu$cpu: commit overrun, dropped, unread" "$cov $drop $unread" "0 0 0"
	if [ "$lossy" -eq 0 ]; then
		expect_eq "cpu$cpu: events lost per page headers" "$hm" "$ov"
	elif [ "$hm" -ge "$ov" ]; then
		fail "cpu$cpu: page headers count $hm of $ov lost, with $lossy pages flagged but not counted"
	fi
done
overrun=$(awk '$1 == "cpuloss" { s += $3 } END { print s + 0 }' /tmp/o.txt)
lossy=$(awk '$1 == "cpuloss" { s += $8 } END { print s + 0 }' /tmp/o.txt)
expect_eq "events reported missed = the kernel's overrun" "$(sed -n 's/^missed_total //p' /tmp/o.txt)" "$overrun"
expect_eq "events emitted and not read (seq) = the kernel's overrun" "$(sed -n 's/^not_read //p' /tmp/o.txt)" "$overrun"
echo "KPROF-FIGURE: overrun kernel=$(uname -r) missed=$(sed -n 's/^missed_total //p' /tmp/o.txt) not_read=$(sed -n 's/^not_read //p' /tmp/o.txt) overrun=$overrun uncounted_pages=$lossy"

# A filter loses events too, and is reported as loss, never as expected.
# This run reads the buffers with read() where they could be mapped too.
echo 2000 >"$PP/rate_pps"
kprofctl enable kprof_batch --filter 'packets > 1' >/dev/null
latency_run f read
kprofctl disable 'kprof:*' >/dev/null
grep '^check .* kprof_batch ' /tmp/f.txt
set -- $(grep '^check pktproc-q0 kprof_batch ' /tmp/f.txt)
[ "$4" -lt "$5" ] || fail "a filtered event shows no loss: read $4 of $5"
grep -q '^lost true$' /tmp/f.txt || fail "JSON does not flag the filtered events as lost"
expect_eq "buffer_lost with a filter" "$(sed -n 's/^buffer_lost //p' /tmp/f.txt)" 0
expect_eq "reader with KPROFCTL_READER=read" "$(sed -n 's/^reader //p' /tmp/f.txt)" read
if grep -q expected /tmp/f.json /tmp/f.err; then fail "a loss is called expected"; fi
rmmod kprof_pktproc
rmmod kprof
