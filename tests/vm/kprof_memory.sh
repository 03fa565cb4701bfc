# kprof-kernels: 6.1
# kprof-qemu: -smp 2,maxcpus=64
# kprof-timeout: 300
# The aggregations' memory follows use, not possible CPUs: in a guest with
# 2 online and 64 possible CPUs, each mode allocates a histogram for each
# (CPU, IRQ action, event) and (CPU, device, kind) that had samples, which
# the histogram files list (and a few spares while it records):
# kprof/memory counts as many, the rest of its bytes are small, and the
# guest's MemAvailable drops by no more than that.
# Before this design the same run took 172 MiB (girq) and 60 MiB (devices).
# Then a budget too small for them: the allocations refused are counted,
# and so is every sample they cost (untracked), exactly.
. /tests/lib.sh

expect_eq "possible CPUs" "$(cat /sys/devices/system/cpu/possible)" 0-63
expect_eq "online CPUs" "$(cat /sys/devices/system/cpu/online)" 0-1
avail() { sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo; }
mem() { sed -n "s/^$1: //p" "$KP/memory"; }

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 || fail "insmod pktproc"
expect_eq "memory at load" "$(mem used_bytes) $(mem histograms)" "0 0"
# The default budget: an eighth of RAM, at most 256 MiB.
ram=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
b=$(mem budget_bytes)
[ "$b" -gt $((ram * 1024 / 9)) ] && [ "$b" -le $((ram * 1024 / 8)) ] || fail "default budget $b bytes for $ram KiB of RAM"

wait_for_spares() {
	n=0
	until [ "$(mem spare_histograms)" -gt 0 ]; do
		n=$((n + 1)); [ $n -lt 50 ] || fail "no spare histogram while recording"; sleep 0.1
	done
}

# measure FILE SPARES HISTS...: 2 s of traffic into FILE's aggregation,
# frozen; at least SPARES spare histograms once it is on (the start's
# reserve); the histogram lines of HISTS against kprof/memory and
# MemAvailable.
measure() {
	f=$1
	spares=$2
	shift 2
	sync
	echo 3 >/proc/sys/vm/drop_caches
	a0=$(avail)
	echo 1 >"$KP/$f"
	# While it records, spare histograms wait for new cells' first samples.
	wait_for_spares
	[ "$(mem spare_histograms)" -ge "$spares" ] ||
		fail "$f: $(mem spare_histograms) spare histograms at the start, not $spares"
	run_traffic 2
	echo 2 >"$KP/$f"
	expect_eq "$f: spares once frozen" "$(mem spare_histograms)" 0
	cat "$@" >/tmp/h.txt
	a1=$(avail)
	rows=$(grep -cvE '^(layout|state|untracked) ' /tmp/h.txt)
	used=$(mem used_bytes)
	hb=$(mem hist_bytes)
	echo "$f: $rows histograms with samples; kprof/memory: $(tr '\n' ' ' <"$KP/memory"); MemAvailable dropped by $((a0 - a1)) KiB"
	expect_eq "$f: histograms allocated" "$(mem histograms)" "$rows"
	[ "$rows" -ge 4 ] || fail "$f: too few histograms to measure"
	grep -q '^untracked ' /tmp/h.txt && fail "$f: untracked samples within the budget"
	fixed=$((used - rows * hb))
	[ $fixed -ge 0 ] && [ $fixed -le 262144 ] || fail "$f: $fixed bytes besides the histograms"
	[ $((a0 - a1)) -le $((used * 5 / 4096 + 4096)) ] || fail "$f: MemAvailable dropped by more than kprof/memory's $used bytes"
	echo 0 >"$KP/$f"
	expect_eq "$f: memory after the run" "$(mem used_bytes) $(mem histograms)" "0 0"
}
# latency --in-kernel's start reserves a spare for each online CPU and
# kind of each device: 2 x 2 x 4 (the IRQ thread's latency, the handler,
# the batch, the packet span), before any traffic. Without them a start's
# first samples wait in the stage, which the 7.3-rt guest overflowed now
# and then at 5,000 IRQs/s (kprof_inkernel). (irq --in-kernel's reserve
# is taken at once by the timers' first samples.)
measure girq_aggregate 1 "$KP/girq_hist"
measure aggregate 16 "$KP"/pktproc-q*/hist

# A budget for the tracker's fixed part and a few histograms: the rest are
# refused, and each handler run the tracker timed is either aggregated or
# untracked (girq_counters' handlers, read before and after the freeze).
rmmod kprof_pktproc
rmmod kprof
insmod "$KPROF_MODDIR/kprof.ko" agg_budget_kib=512 || fail "insmod kprof agg_budget_kib=512"
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 || fail "insmod pktproc"
expect_eq "budget" "$(mem budget_bytes)" $((512 * 1024))
girq_window
echo "budget 512 KiB: kprof/memory: $(tr '\n' ' ' <"$KP/memory")"
[ "$(mem refused)" -gt 0 ] || fail "no allocation refused within 512 KiB"
# shellcheck disable=SC2154 # set by girq_window
[ "$untracked_all" -gt 0 ] || fail "no sample untracked within 512 KiB"
[ "$(mem used_bytes)" -le $((512 * 1024)) ] || fail "used beyond the budget"
expect_handlers_accounted
echo 0 >"$KP/girq_aggregate"

# kprofctl says why.
kprofctl irq --in-kernel -d 1s >/tmp/k.txt 2>/tmp/k.err &
kpid=$!
wait_for "$KP/girq_aggregate" 1 "kprofctl irq --in-kernel did not switch the aggregation on"
run_traffic 1
wait $kpid || fail "kprofctl irq --in-kernel: $(cat /tmp/k.err)"
grep -q 'agg_budget_kib' /tmp/k.txt || fail "the report does not name the budget: $(cat /tmp/k.txt)"
echo "ok: $(grep -A1 'WARNING' /tmp/k.txt | tr '\n' ' ')"
