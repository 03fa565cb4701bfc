# The guest half of 'make demo': the packet processor, profiled with
# kprofctl per packet and then batched, each drawn as a picture that the
# host receives in build/vm-out/<kernel>/demo/. Then the whole loop on the
# same driver with its hooks off: kprofctl func per packet and batched,
# and kprofctl diff of the two.
# kprof-host-check: tests/host/export.sh --svg demo-per-packet.svg demo-batched.svg demo-diff.svg
# kprof-kernels: 6.1
. /tests/lib.sh
load kprof
load kprof_pktproc
for cfg in "1 1 per-packet" "64 64 batched"; do
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $cfg
	echo "$1" >"$PP/batch"
	echo "$2" >"$PP/irq_coalesce"
	echo 1 >"$PP/start"
	echo
	echo "### pktproc at $(cat "$PP"/rate_pps) packets/s, batch=$1 irq_coalesce=$2: kprofctl latency -d 5s --svg demo-$3.svg"
	kprofctl latency -d 5s --svg "/tmp/demo-$3.svg" | cat	# not a TTY: no progress line in the log
	echo 1 >"$PP/stop"
done
rmmod kprof_pktproc

# The same driver with its kprof hooks compiled in but unused
# (kprof_hooks=0): a driver nobody instrumented, seen by the IRQ tracker.
insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 || fail "insmod pktproc kprof_hooks=0"
echo 1 >"$PP/start"
echo
echo "### pktproc with kprof_hooks=0 at $(cat "$PP"/rate_pps) packets/s: kprofctl irq -d 5s"
kprofctl irq -d 5s | cat
echo 1 >"$PP/stop"
rmmod kprof_pktproc

# The loop on a driver nobody instrumented: which of its functions run how
# often and how long, per packet, then batched, and what changed.
for b in 1 64; do
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 batch=$b irq_coalesce=$b || fail "insmod pktproc"
	echo 1 >"$PP/start"
	echo
	echo "### pktproc with kprof_hooks=0, batch=$b: kprofctl func -d 5s --save batch$b.json pktproc_poll pktproc_rx_one"
	kprofctl func -d 5s --save /tmp/batch$b.json pktproc_poll pktproc_rx_one 2>/dev/null | cat
	echo 1 >"$PP/stop"
	rmmod kprof_pktproc
done
echo
echo "### kprofctl diff batch1.json batch64.json --fail-if p99+10% --svg demo-diff.svg"
rc=0
kprofctl diff /tmp/batch1.json /tmp/batch64.json --fail-if p99+10% --svg /tmp/demo-diff.svg || rc=$?
echo "(exit status $rc)"
rmmod kprof
ship /tmp/demo-per-packet.svg
ship /tmp/demo-batched.svg
ship /tmp/demo-diff.svg
ship /tmp/batch1.json
ship /tmp/batch64.json
