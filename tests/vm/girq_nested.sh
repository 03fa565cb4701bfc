# Nested IRQs (tests/kmod/kprof_test_board.c pattern=nested): a parent IRQ
# whose thread function calls handle_nested_irq() for a child IRQ, as
# regmap-irq and the GPIO expanders and PMICs on I2C do. The child has no
# irq_handler_entry/exit and no thread of its own; the tracker's nested
# probe (a kretprobe on handle_nested_irq()) gives it rows of its own,
# "NAME (nested)", against the module's own counts and times:
#  - its handler: every run timed (ret -1: handle_nested_irq() returns
#    nothing), its mean at least the module's own, by the probes' time;
#  - entry_to_running from the parent's hard-IRQ entry to the child's
#    start, for every child in a measured run of the parent's thread (the
#    others counted in nested_orphans), the mean as above;
#  - kprofctl irq's row for the child, as its events say.
# On 32-bit arm, whose kprobes cannot read arguments, there is no nested
# probe: kprofctl irq says so, and prints no child rows.
# kprof-kernels: 6.1 6.1-rt 7.3 7.3-rt arm64-7.3 armhf-6.12 6.12-debug
. /tests/lib.sh

IRQS=400
load kprof
I=$TR/instances/nested
mkdir "$I"
echo 8192 >"$I"/buffer_size_kb
echo mono >"$I"/trace_clock
for e in handler thread; do echo 1 >"$I"/events/kprof/kprof_girq_$e/enable; done
kprofctl irq --json -b 4096 >/tmp/k.json 2>/tmp/k.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
g() { sed -n "s/^$1: //p" "$KP/girq_counters"; }
probe=1
[ "$(uname -m)" != armv7l ] || probe=0
expect_eq "nested probe" "$(g nested_probe)" $probe
insmod "$KPROF_MODDIR/kprof_test_board.ko" pattern=nested irqs=$IRQS period_us=4000 \
	parent_us=200 child_us=500 || fail "insmod kprof_test_board pattern=nested"
parent=$(dmesg | sed -n 's/.*nested parent IRQ \([0-9]*\), child IRQ.*/\1/p' | tail -n 1)
child=$(dmesg | sed -n 's/.*nested parent IRQ [0-9]*, child IRQ \([0-9]*\).*/\1/p' | tail -n 1)
S=/sys/kernel/debug/kprof_test_board/served
n=0
until grep -q '^quiet 1$' $S; do
	n=$((n + 1)); [ $n -lt 200 ] || fail "the board's IRQs did not end within 20 s"; sleep 0.1
done
kill -INT $pid
wait $pid || { cat /tmp/k.err; fail "kprofctl irq failed"; }
for e in handler thread; do echo 0 >"$I"/events/kprof/kprof_girq_$e/enable; done
cat "$I"/trace >/tmp/t.txt
cat $S >/tmp/o.txt
o() { sed -n "s/^$1 //p" /tmp/o.txt; }
C="kprof_board_nchild (nested)"
echo "parent IRQ $parent: $(o primary_runs) runs, $(o primary_idle_runs) idle; child IRQ $child: $(o secondary_runs) runs"
awk -f /tests/kprofctl_json.awk /tmp/k.json >/tmp/k.txt

if [ $probe = 0 ]; then
	grep -q 'could not probe handle_nested_irq()' /tmp/k.json ||
		{ cat /tmp/k.json; fail "kprofctl irq does not say that nested IRQs are not measured"; }
	expect_eq "child rows" "$(grep -c "^irq $child " /tmp/k.txt)" 0
	echo "ok: no nested probe on this architecture, and kprofctl irq says so"
	rmmod kprof_test_board
	rmdir "$I"
	rmmod kprof
	exit 0
fi

# near WHAT GOT WANT: GOT within 20 % + 200 us of WANT (ns): the probes'
# own time on TCG (100 % + 1 ms under the debug kernel's checkers). A
# wrong model is off by the parent's whole run or by a period.
near() {
	d=$(($2 - $3)) tol=$(($3 / 5 + 200000))
	! debug_kernel || tol=$(($3 + 1000000))
	[ "${d#-}" -le "$tol" ] || fail "$1: $2 ns, the module's $3 ns"
	echo "ok: $1: $2 ns, the module's $3 ns"
}
# holds WHAT GOT WANT: a handler's mean GOT, timed by probes around the
# function the module times itself in, is at least the module's WANT, and
# at most 50 % + 300 us more (the probes' own time: 0.1-0.25 ms on TCG;
# 200 % + 2 ms under the debug kernel's checkers).
holds() {
	tol=$(($3 / 2 + 300000))
	! debug_kernel || tol=$(($3 * 2 + 2000000))
	[ "$2" -ge "$3" ] && [ "$2" -le $(($3 + tol)) ] || fail "$1: $2 ns, the module's $3 ns"
	echo "ok: $1: $2 ns, the module's $3 ns"
}

expect_eq "nested_ends_missed" "$(g nested_ends_missed)" 0
set -- $(girq_field /tmp/t.txt handler "$C" ret | sort | uniq -c)
expect_eq "$C: handler runs (the module's), all ret -1" "$*" "$(o secondary_runs) -1"
set -- $(girq_field /tmp/t.txt handler "$C" duration_ns | sum_mean)
holds "$C: handler mean" "$3" $(($(o secondary_own_sum) / ($(o secondary_runs) + $(o secondary_idle_runs))))
set -- $(girq_field /tmp/t.txt thread "$C" delta_ns | sum_mean)
lat=$1
expect_eq "$C: entry_to_running samples + nested_orphans" $((lat + $(g nested_orphans))) "$(o secondary_runs)"
# Orphans: children in the parent's runs the tracker did not measure (idle).
[ "$(g nested_orphans)" -le "$(g idle_runs)" ] ||
	fail "$(g nested_orphans) nested orphans, $(g idle_runs) idle runs"
near "$C: entry_to_running mean" "$3" $(($(o secondary_delta_sum) / $(o secondary_runs)))
set -- $(json_irq /tmp/k.txt "$child" "$C")
[ $# -eq 7 ] || { cat /tmp/k.txt; fail "no kprofctl irq row for IRQ $child $C"; }
expect_eq "kprofctl: $C: handlers" "$1" "$(o secondary_runs)"
expect_eq "kprofctl: $C: runs (entry_to_running samples)" "$4" "$lat"
set -- $(json_irq /tmp/k.txt "$parent" kprof_board_nparent)
[ $# -eq 7 ] || { cat /tmp/k.txt; fail "no kprofctl irq row for the parent IRQ $parent"; }
expect_eq "kprofctl: the parent's unserved" "$7" 0
rmmod kprof_test_board
rmdir "$I"
rmmod kprof
echo "ok: the nested child's rows against the module's"
