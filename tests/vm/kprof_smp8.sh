# kprof-timeout: 900
# kprof-qemu: -smp 8
# Many CPUs (#25 S3): an 8-vCPU guest (multi-threaded TCG) with pktproc's 8
# queues, one per CPU (each queue's timer on its own CPU, its IRQ thread
# where the scheduler puts it), every hook on every CPU at once. Streaming
# kprofctl latency and kprofctl latency --in-kernel over the same window:
# streaming reads every event kprof.ko emitted (seq window, per device and
# event), nothing lost; both report the same count, min and max as kprof.ko's
# own counters (kprof/<dev>/latency) for every device and kind; the batch
# counts equal pktproc's passes, and the packets pktproc's processed count.
# Then kprofctl irq --in-kernel: every handler run the tracker timed on the
# 8 CPUs is aggregated or counted untracked.
# kprof-kernels: arm64-7.3 6.1
. /tests/lib.sh

expect_eq "online CPUs" "$(grep -c '^processor' /proc/cpuinfo)" 8
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=8 rate_pps=500 batch=4 irq_coalesce=2 || fail insmod
cpus=$(sed -n 's/^q[0-9]*: irq=[0-9]* timer_cpu=\([0-9]*\).*/\1/p' "$PP/stats" | sort -u | wc -l)
expect_eq "CPUs with a queue's timer" "$cpus" 8
devs=$(seq 0 7 | sed 's/^/pktproc-q/')
for d in $devs; do echo 1 >"$KP/$d/reset"; done

kprofctl latency --json -b 4096 >/tmp/s.json 2>/tmp/s.err &
spid=$!
kprofctl latency --in-kernel --json >/tmp/k.json 2>/tmp/k.err &
kpid=$!
wait_collecting
wait_aggregating
p0=$(pp_stat processed)
run_traffic 3
kill -INT $spid $kpid
wait $spid || fail "streaming run failed: $(cat /tmp/s.err)"
wait $kpid || fail "in-kernel run failed: $(cat /tmp/k.err)"
processed=$(($(pp_stat processed) - p0))
awk -f /tests/kprofctl_json.awk /tmp/s.json >/tmp/s.txt
awk -f /tests/kprofctl_json.awk /tmp/k.json >/tmp/k.txt
grep -q '^lost false$' /tmp/s.txt || fail "streaming lost events"
expect_eq "buffer_lost" "$(sed -n 's/^buffer_lost //p' /tmp/s.txt)" 0
expect_eq "devices x events cross-checked" "$(grep -c '^check ' /tmp/s.txt)" 32
grep '^check ' /tmp/s.txt | while read -r _ dev ev got want; do
	[ "$got" = "$want" ] || fail "$dev $ev: read $got events, kprof.ko emitted $want"
	[ "$want" -gt 0 ] || fail "$dev $ev: nothing emitted in the window"
done
echo "ok: every event emitted on 8 CPUs read, none lost"

# Both reports against kprof.ko's own per-device totals. The streaming
# window and the in-kernel one both hold all the traffic (started after
# both were collecting, stopped before either ended).
packets=0
for d in $devs; do
	for kind in irq_thread_latency irq_handler batch span:packet; do
		line=$(grep "^$kind count=" "$KP/$d/latency")
		want=$(echo "$line" | sed 's/.*count=\([0-9]*\) min_ns=\([0-9]*\) .*max_ns=\([0-9]*\).*/\1 \2 \3/')
		for m in s k; do
			# shellcheck disable=SC2046 # split into words on purpose
			set -- $(grep "^stat $kind $d null " /tmp/$m.txt)
			[ $# -eq 8 ] || fail "$m: no stats for $kind on $d"
			expect_eq "$m: $d $kind count, min, max vs kprof.ko" "$5 $6 $7" "$want"
		done
	done
	packets=$((packets + $(counter "$d" packets)))
done
expect_eq "packets hooked vs pktproc's processed" "$packets" "$processed"

# The tracker on 8 CPUs: every handler run accounted.
girq_window
expect_handlers_accounted
echo 0 >"$KP/girq_aggregate"
# shellcheck disable=SC2154 # set by girq_window
echo "ok: $agg handler samples aggregated, $untracked untracked, of $runs_lo-$runs_hi runs on 8 CPUs"
rmmod kprof_pktproc
rmmod kprof
