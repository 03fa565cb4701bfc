# kprof_pktproc: conservation, batching economics, agreement with kprof,
# runtime control and bad input.
. /tests/lib.sh

load kprof
# Bad module parameters refuse the load.
for bad in batch=0 ring_size=1000 nr_queues=0 nr_queues=9 rate_pps=0 rate_pps=1000000 irq_coalesce=5000; do
	if insmod "$KPROF_MODDIR/kprof_pktproc.ko" $bad 2>/dev/null; then
		fail "insmod with $bad succeeded"
	fi
done
echo "ok: bad module parameters refuse the load"

insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=2000 work_ns=2000 pass_overhead_ns=20000 ||
	fail "insmod pktproc"
D=pktproc-q0
echo 1 >"$KP/enable"

# A real threaded IRQ: an irq/N-kprof_pktproc thread, and (IRQF_NO_THREAD)
# no forced primary-handler thread irq/N-s-... even on PREEMPT_RT.
irq=$(sed -n 's/^q0: irq=\([0-9]*\) .*/\1/p' "$PP/stats")
grep -q "kprof_pktproc" /proc/interrupts || fail "IRQ not in /proc/interrupts"
cat /proc/[0-9]*/comm 2>/dev/null | grep -q "^irq/$irq-kprof_p" || fail "no irq/$irq-kprof_pktproc thread"
if cat /proc/[0-9]*/comm 2>/dev/null | grep -q "^irq/$irq-s-"; then fail "primary handler was force-threaded"; fi
echo "ok: IRQ $irq has its thread irq/$irq-kprof_pktproc and a hard primary handler"

# Bad runtime values: EINVAL, nothing changes.
for v in 0 -1 abc 2000 ""; do expect_einval "$v" "$PP/batch"; done
for v in 0 -5 1000000 x; do expect_einval "$v" "$PP/rate_pps"; done
expect_erange 4294967296 "$PP/rate_pps"
for v in -1 x 1000001; do expect_einval "$v" "$PP/nowake_every"; done
for v in 0 1025 -1 1.5; do expect_einval "$v" "$PP/irq_coalesce"; done
for v in 1000001 -1 abc; do expect_einval "$v" "$PP/work_ns"; done
for v in 0 2 x; do expect_einval "$v" "$PP/start"; expect_einval "$v" "$PP/stop"; done

# run CONFIG...: reset, apply "knob=value" settings, 2 s of traffic, stop.
run() {
	for kv in "$@"; do echo "${kv#*=}" >"$PP/${kv%%=*}"; done
	echo 1 >"$KP/$D/reset"
	rx0=$(pp_stat rx_packets) done0=$(pp_stat processed) drop0=$(pp_stat dropped)
	irq0=$(pp_stat irqs) runs0=$(pp_stat thread_runs) b0=$(pp_stat batches)
	run_traffic 2
	expect_eq "running after stop" "$(cat "$PP"/start)" 0
	rx=$(($(pp_stat rx_packets) - rx0))
	done_=$(($(pp_stat processed) - done0))
	drop=$(($(pp_stat dropped) - drop0))
	expect_eq "conservation rx = processed + dropped ($*)" "$rx" "$((done_ + drop))"
	[ "$rx" -gt 1000 ] || fail "only $rx packets in 2 s at 2000 pps"
	# kprof saw exactly what the driver did.
	expect_eq "kprof irqs = pktproc irqs" "$(counter $D irqs)" "$(($(pp_stat irqs) - irq0))"
	expect_eq "kprof thread_runs = pktproc thread_runs" "$(counter $D thread_runs)" "$(($(pp_stat thread_runs) - runs0))"
	expect_eq "kprof batches = pktproc batches" "$(counter $D batches)" "$(($(pp_stat batches) - b0))"
	expect_eq "kprof packets = pktproc processed" "$(counter $D packets)" "$done_"
	expect_eq "kprof packet spans = processed" "$(counter $D spans)" "$done_"
	# Every hook entry since the reset, the begin hooks' lock-free count
	# too: enter and exit per IRQ, a thread begin per run, begin and end
	# per pass, a span_end_at per packet (a backwards sample would blur it).
	if [ "$(counter $D backwards)" = 0 ]; then
		expect_eq "kprof hook_calls = the hooks the driver called" "$(counter $D hook_calls)" \
			"$((2 * $(counter $D irqs) + $(counter $D thread_runs) + 2 * $(counter $D batches) + done_))"
	else
		echo "note: $(counter $D backwards) backwards samples: hook_calls not compared"
	fi
}

# Per-packet processing against batched, at the same rate.
run batch=1 irq_coalesce=1
set -- $(batch_stats $D)
p1=$1 n1=$2 t1=$3
run batch=64 irq_coalesce=64
set -- $(batch_stats $D)
p64=$1 n64=$2 t64=$3
c1=$((t1 / n1)) c64=$((t64 / n64))
echo "batch=1:  $p1 passes for $n1 packets, $c1 ns CPU per packet"
echo "batch=64: $p64 passes for $n64 packets, $c64 ns CPU per packet"
echo "passes per packet fell $((p1 * n64 / (p64 * n1)))x, CPU per packet fell $((c1 * 10 / c64 / 10)).$((c1 * 10 / c64 % 10))x"
[ $((p1 * n64)) -ge $((32 * p64 * n1)) ] || fail "batching cut passes per packet by less than half the batch factor"
[ $((c1)) -ge $((3 * c64)) ] || fail "batching did not cut the per-packet CPU cost 3x"

# coalesce_usecs alone raises IRQs when irq_coalesce is never reached.
rmmod kprof_pktproc
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=2000 irq_coalesce=1024 coalesce_usecs=5000 ||
	fail "insmod with coalesce_usecs"
echo 1 >"$KP/$D/reset"
run_traffic 2
irqs=$(pp_stat irqs) rx=$(pp_stat rx_packets)
echo "coalesce_usecs=5000: $irqs IRQs for $rx packets"
# About one IRQ per 5 ms (10 packets); never one per packet, never none.
[ "$irqs" -gt $((rx / 40)) ] && [ "$irqs" -lt $((rx / 5)) ] ||
	fail "coalesce_usecs=5000 gave $irqs IRQs for $rx packets"
expect_eq "conservation with coalesce_usecs" "$rx" "$(($(pp_stat processed) + $(pp_stat dropped)))"

# Runtime changes while running: rate doubles the packet flow.
echo 1000 >"$PP/rate_pps"
echo 1 >"$PP/start"
sleep 1
a=$(pp_stat rx_packets)
sleep 1
b=$(pp_stat rx_packets)
echo 4000 >"$PP/rate_pps"
sleep 1
c=$(pp_stat rx_packets)
echo 8 >"$PP/batch"
echo 4 >"$PP/irq_coalesce"
echo 1000 >"$PP/work_ns"
sleep 1
echo 1 >"$PP/stop"
echo "rx per second at 1000 pps: $((b - a)); at 4000 pps: $((c - b))"
[ $((c - b)) -gt $((2 * (b - a))) ] || fail "raising rate_pps at runtime did not raise the packet rate"
expect_eq "rate_pps reads back" "$(cat "$PP"/rate_pps)" 4000
expect_eq "conservation after runtime changes" "$(pp_stat rx_packets)" "$(($(pp_stat processed) + $(pp_stat dropped)))"

# A ring too small for the load drops, and the drops are counted.
rmmod kprof_pktproc
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=5000 ring_size=4 batch=1 work_ns=400000 ||
	fail "insmod small ring"
run_traffic 1
[ "$(pp_stat dropped)" -gt 0 ] || fail "no drops with a 4-packet ring and a slow thread"
expect_eq "conservation with drops" "$(pp_stat rx_packets)" "$(($(pp_stat processed) + $(pp_stat dropped)))"

# kprof_hooks=0: a driver nobody instrumented. It registers no kprof device
# and calls no hook, even with every kprof event on, and still works.
rmmod kprof_pktproc
insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 nr_queues=2 rate_pps=2000 ||
	fail "insmod kprof_hooks=0"
[ ! -e "$KP/pktproc-q0" ] && [ ! -e "$KP/pktproc-q1" ] || fail "kprof_hooks=0 registered a kprof device"
echo 1 >"$TR/events/kprof/enable"
echo >"$TR/trace"
run_traffic 1
echo 0 >"$TR/events/kprof/enable"
[ "$(pp_stat rx_packets)" -gt 0 ] && [ "$(pp_stat thread_runs)" -gt 0 ] || fail "no traffic with kprof_hooks=0"
expect_eq "conservation without hooks" "$(pp_stat rx_packets)" "$(($(pp_stat processed) + $(pp_stat dropped)))"
expect_eq "kprof events from an uninstrumented pktproc" "$(grep -c 'dev=pktproc' "$TR/trace" || true)" 0
expect_eq "kprof_hooks reads back" "$(cat /sys/module/kprof_pktproc/parameters/kprof_hooks)" N
echo 0 >"$KP/enable"
rmmod kprof_pktproc
rmmod kprof
