# A real in-kernel driver whose threaded handler sleeps: the GPIO character
# device's edge detection (gpiolib-cdev: edge_irq_handler() in hard IRQ,
# edge_irq_thread() in the IRQ thread, IRQF_ONESHOT, so not forced into a
# thread even under PREEMPT_RT) on a gpio-sim line, the kernel's own GPIO
# test driver (=m in Debian's 7.x kernels only; gpio-sim's IRQ, on an
# irq_sim domain, is not masked while the thread runs). kprof-gpioev
# (tests/guest/gpioev.c) requests the line with both edges and flips it
# through gpio-sim's sysfs "pull" in two phases:
#  - sleeping: from the CPU the IRQ thread runs on, one flip each 2 ms.
#    gpio-sim raises the edge's IRQ (irq_work, on that CPU) while it holds
#    its chip's mutex, the thread preempts the flipper, and
#    edge_irq_thread() sleeps on that mutex in gpio_sim_get()
#    (gpiod_get_value_cansleep()): off CPU inside its run, on most runs
#    (checked: else the phase proves nothing);
#  - busy: from the other CPU, one flip each 100 us: edges while a run is
#    pending (coalesced) or under way (busy).
#
# The oracle is the kernel's own tracepoints, in a trace instance next to
# kprofctl irq (tests/vm/lib/thread_match.awk): every tracker sample claims
# the oldest unserved irq_handler_entry (after it, before the next one; 1 %
# and 2 may miss), no sample taken when the thread comes back into the
# middle of its run (late), every entry served; the samples against the
# thread's runs (the line's events, one per run: line_seqno without gaps),
# within the runs idle to the tracker; kprofctl irq's row as the trace.
# kprof-kernels: 7.3 7.3-rt arm64-7.3
. /tests/lib.sh

TOGGLES=400
for m in configfs gpio-sim; do
	[ ! -f /lib/kmods/$m.ko ] || insmod /lib/kmods/$m.ko || fail "insmod $m"
done
mount -t configfs none /sys/kernel/config
G=/sys/kernel/config/gpio-sim/kprof
mkdir $G $G/bank0
echo 1 >$G/bank0/num_lines
echo 1 >$G/live
chip=$(cat $G/bank0/chip_name)
PULL=/sys/devices/platform/$(cat $G/dev_name)/$chip/sim_gpio0/pull
[ -w "$PULL" ] || fail "gpio-sim made no $PULL"

load kprof
I=$TR/instances/gpiosim
mkdir "$I"
echo 8192 >"$I"/buffer_size_kb
echo mono >"$I"/trace_clock
echo 'prev_comm ~ "irq/*" || next_comm ~ "irq/*"' >"$I"/events/sched/sched_switch/filter

# phase WHAT GPIOEV_ARGS...: one window of kprofctl irq and the trace
phase() {
	what=$1
	shift
	echo "== $what"
	echo >"$I"/trace
	for e in irq/irq_handler_entry sched/sched_switch kprof/kprof_girq_thread; do
		echo 1 >"$I"/events/$e/enable
	done
	idle0=$(g idle_runs)
	kprofctl irq --json -b 4096 >/tmp/k.json 2>/tmp/k.err &
	pid=$!
	wait_collecting kprof kprof_girq_thread
	wait_attached
	kprof-gpioev "$@" /dev/"$chip" 0 "$PULL" >/tmp/g.txt || fail "kprof-gpioev failed"
	kill -INT $pid
	wait $pid || { cat /tmp/k.err; fail "kprofctl irq failed"; }
	for e in irq/irq_handler_entry sched/sched_switch kprof/kprof_girq_thread; do
		echo 0 >"$I"/events/$e/enable
	done
	cat /tmp/g.txt
	irq=$(v irq) thread=$(v thread) events=$(v events)
	expect_eq "$what: line events lost by gpiolib's queue" "$(v seqno_gaps)" 0
	name=kpgpio
	echo "IRQ $irq, thread $thread $(v comm): $events events"
	awk -v IRQ="$irq" -v PID="$thread" -v NAME="$name" -v TOL=50000 -f /tests/thread_match.awk \
		"$I"/trace >/tmp/m.txt 2>/tmp/m.err || fail "thread_match.awk"
	cat /tmp/m.txt
	head -n 10 /tmp/m.err
	set -- $(cat /tmp/m.txt)
	samples=$2 matched=$4 late=$8 busy=${10} served=${12} entries=${14} off=${16}
	idle=$(($(g idle_runs) - idle0))
	# A request made after the IRQ core took its thread's IRQTF_RUNTHREAD
	# and before the run probe is coalesced into that run, though the next
	# run serves it, which is then idle to the tracker (doc/kprofctl.md: the limits of
	# the per-IRQ table); idle_runs counts every IRQ's.
	[ "$samples" -le "$events" ] && [ "$events" -le $((samples + idle)) ] ||
		fail "$what: $samples tracker samples, $events thread runs (the line's events), $idle idle runs"
	echo "ok: $what: $samples tracker samples, $events thread runs (the line's events), $idle idle runs of any IRQ"
	miss=$((samples - matched))
	[ $miss -le 2 ] || [ $((miss * 100)) -le "$samples" ] ||
		fail "$what: $miss of $samples samples claim no unserved IRQ entry"
	echo "ok: $what: $matched of $samples samples claim the oldest unserved IRQ entry"
	expect_eq "$what: samples taken when the thread came back into its run (late)" "$late" 0
	expect_eq "$what: IRQ entries served" "$served" "$entries"
	awk -f /tests/kprofctl_json.awk /tmp/k.json >/tmp/k.txt
	set -- $(json_irq /tmp/k.txt "$irq" "$name")
	[ $# -eq 7 ] || { cat /tmp/k.txt; fail "no kprofctl irq row for IRQ $irq $name"; }
	expect_eq "$what: kprofctl: $name: runs" "$4" "$samples"
	expect_eq "$what: kprofctl: $name: requests (IRQ entries)" "$2" "$entries"
	expect_eq "$what: kprofctl: $name: busy" "$6" "$busy"
	expect_eq "$what: kprofctl: $name: unserved" "$7" 0
}
v() { sed -n "s/^$1 //p" /tmp/g.txt; }
g() { sed -n "s/^$1: //p" "$KP/girq_counters"; }

# Flips from the thread's CPU, one each 2 ms: the handler sleeps on most
# runs (else this proves nothing about sleeping handlers).
phase sleeping -c -n $TOGGLES -p 2000
[ $((off * 2)) -ge "$samples" ] || fail "the handler was off CPU in $off of $samples runs only"
echo "ok: the handler was off CPU (asleep on gpio-sim's mutex) $off times in $samples runs"
# Flips from the other CPU, one each 100 us, less than the thread's wake-up
# and run under TCG: requests while a run is pending (coalesced) or runs
# (busy).
phase busy -a -n $TOGGLES -p 100
[ $((entries - samples)) -gt 0 ] || [ "$busy" -gt 0 ] ||
	fail "no IRQ arrived while the thread ran or was pending"
echo "ok: $((entries - samples)) requests coalesced, $busy busy, the handler off CPU $off times"
echo 0 >$G/live
rmdir $G/bank0 $G
rmdir "$I"
rmmod kprof
echo "ok: gpio-sim's threaded IRQ, a handler that sleeps, against the kernel's tracepoints"
