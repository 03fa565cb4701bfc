# kprof-timeout: 400
# Soak (issue #12, R1): cycles of loading kprof and pktproc (2 queues),
# traffic, kprofctl latency and kprofctl irq reading at once in their own
# instances, kprof/enable flipped meanwhile, then both modules removed
# while the traffic still runs. Every cycle's readers must exit 0 having
# read events and lost none; the harness scans dmesg over all cycles. The
# figure line is what doc/testing.md's Reliability table is made from.
# kprof-sets: debug
. /tests/lib.sh

# 25 cycles on the generic kernels. Where kmemleak watches (the debug
# kernel), up to 100, for as long as budget seconds allow: under its
# checkers TCG takes 5 s a cycle on a fast machine and 30 s on a slow one,
# and CI's time is bounded. Fewer than min_cycles in the budget fails: that
# is not a soak. The figure says how many ran.
# 'make soak' asks for a number of cycles on the kernel command line
# (kprof.soak_cycles=N) and runs them all, with no time bound.
cycles=25 budget=0
if debug_kernel; then
	cycles=100 budget=150 min_cycles=5
fi
full=$(kernel_arg kprof.soak_cycles)
[ -z "$full" ] || { cycles=$full budget=0; }
events=0
i=0
t0=$(date +%s)
while [ $i -lt "$cycles" ]; do
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - t0)) -ge "$budget" ]; then
		[ $i -ge "$min_cycles" ] || fail "only $i cycles in ${budget} s"
		echo "soak: ${budget} s spent, $i cycles done"
		break
	fi
	[ $((i % 10)) -ne 0 ] || echo "soak: cycle $i at $(($(date +%s) - t0)) s"
	load kprof
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=500 || fail "cycle $i: insmod pktproc"
	kprofctl latency -d 1s --json >/tmp/l.json 2>/tmp/l.err &
	lp=$!
	kprofctl irq --instance irq -d 1s --json >/tmp/i.json 2>/tmp/i.err &
	ip=$!
	echo 1 >"$PP/start"
	for v in 1 0 1 0; do
		echo $v >"$KP/enable"
		sleep 0.1
	done
	wait $lp || fail "cycle $i: kprofctl latency: $(cat /tmp/l.err)"
	wait $ip || fail "cycle $i: kprofctl irq: $(cat /tmp/i.err)"
	for f in /tmp/l.json /tmp/i.json; do
		awk -f /tests/kprofctl_json.awk $f >/tmp/f.txt
		grep -q '^lost false$' /tmp/f.txt || fail "cycle $i: $f lost events: $(grep -E '^(missed_total|not_read)' /tmp/f.txt)"
		n=$(sed -n 's/^events_read //p' /tmp/f.txt)
		[ "$n" -gt 0 ] || fail "cycle $i: $f read no event"
		events=$((events + n))
	done
	rmmod kprof_pktproc	# the traffic is still running
	rmmod kprof
	i=$((i + 1))
done
# On a debug kernel, kmemleak has the last word: nothing kprof or pktproc
# allocated may be left unreferenced after the cycles. An object is only
# reported once it is 5 s old, and a scan needs a second one to confirm.
leaks=n/a
if [ -w "$KMEMLEAK" ]; then
	sleep 6
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	leaks=$(grep -c '^unreferenced object' "$KMEMLEAK" || true)
	[ "$leaks" -eq 0 ] || { cat "$KMEMLEAK"; fail "kmemleak: $leaks suspected leaks after $i cycles"; }
fi
echo "KPROF-FIGURE: soak kernel=$(uname -r) cycles=$i events=$events failures=0 seconds=$(($(date +%s) - t0)) kmemleak=$leaks budget=$budget"
