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
# checkers TCG took about 10 s a cycle on CI's 2-core machine alone, and
# 20 to 30 s beside other guests (a 1 s kprofctl run starts in seconds
# there while the traffic's FIFO threads hold the vCPUs), and CI's time is
# bounded. At least
# min_cycles run, past the budget if need be (the kprof-timeout bounds
# them). The figure says how many ran.
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
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - t0)) -ge "$budget" ] && [ $i -ge "$min_cycles" ]; then
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
	# The loss summary's lines (the report's top-level "loss" object, 4
	# spaces in): flattening the whole report with kprofctl_json.awk takes
	# busybox awk 10 to 20 s a report under the debug kernel.
	for f in /tmp/l.json /tmp/i.json; do
		grep -E '^    "(lost|events_read|missed_total|not_read)": ' $f >/tmp/f.txt
		grep -q '"lost": false' /tmp/f.txt || fail "cycle $i: $f lost events: $(tr -d '\n' </tmp/f.txt)"
		n=$(sed -n 's/^ *"events_read": \([0-9]*\),*$/\1/p' /tmp/f.txt)
		[ "${n:-0}" -gt 0 ] || fail "cycle $i: $f read no event"
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
