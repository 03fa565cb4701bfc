# Load order: kprof's events switched on while kprof.ko is COMING, before
# its init has run, then a load whose init fails (girq_agg_slots=0) and a
# good one. Twice: through set_event's ":mod:kprof" where the kernel has it
# (6.14 and later), and on every kernel through a test module's notifier
# (tests/kmod/kprof_test_coming.c), which does what ":mod:" or a
# perf_event_open() in that window does. A failed init must leave no probe
# attached and no work queued: the console stays clean through the context
# switches after it, with the debug kernel's checkers watching (a lock
# taken before its init is a "spinlock bad magic" BUG there). A good load's
# events and hooks work from its first IRQ.
# kprof-kernels: 6.1 7.3 7.3-rt arm64-7.3 6.12-debug
. /tests/lib.sh

# switches SECONDS: context switches on every CPU for that long
switches() {
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.01 & sleep 0.01 & wait
	done
}

# arm HOW: switch kprof's events on for kprof.ko's next load, while it is
# COMING: set_event's ":mod:kprof" (a load consumes it), or the test
# module's notifier (on for every load while it is there)
arm() {
	case $1 in
	:mod:) echo ':mod:kprof' >"$TR"/set_event || fail "set_event does not take ':mod:kprof' on $(uname -r)"
		grep -q ':mod:kprof' "$TR"/set_event || { cat "$TR"/set_event; fail "':mod:kprof' is not in set_event"; } ;;
	notifier) [ -d /sys/module/kprof_test_coming ] || load kprof_test_coming ;;
	esac
}

# round HOW: the failed load, the switches, the good load, its checks
round() {
	arm "$1"
	if insmod "$KPROF_MODDIR/kprof.ko" girq_agg_slots=0 2>/dev/null; then
		fail "$1: insmod kprof.ko girq_agg_slots=0 succeeded"
	fi
	[ ! -d /sys/module/kprof ] || fail "$1: kprof is loaded after its failed init"
	switches 3
	echo "ok: $1: a failed init with the events on, then 3 s of context switches"

	arm "$1"
	load kprof
	expect_eq "$1: kprof_girq_thread on from COMING" "$(cat "$TR"/events/kprof/kprof_girq_thread/enable)" 1
	expect_eq "$1: kprof_irq_handler on from COMING" "$(cat "$TR"/events/kprof/kprof_irq_handler/enable)" 1
	wait_attached
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=1000 || fail "insmod pktproc"
	irq=$(sed -n 's/^q0: irq=\([0-9]*\) .*/\1/p' "$PP/stats")
	run_traffic 1
	cat "$TR"/trace >/tmp/lo.trace
	irqs=$(counter pktproc-q0 irqs)
	moved=$(irq_count "$irq")
	[ "$irqs" -gt 0 ] || fail "$1: pktproc's hooks counted no IRQ"
	expect_eq "$1: pktproc's IRQs counted by its hooks (from its first)" "$irqs" "$moved"
	expect_eq "$1: kprof_irq_handler events traced" "$(count_events /tmp/lo.trace kprof_irq_handler)" \
		"$(emitted pktproc-q0 kprof_irq_handler)"
	# The tracker's probes, attached at the end of init, saw pktproc's
	# first IRQ too (the kernel may run a handler again for an edge that
	# came while it ran, uncounted in /proc/interrupts).
	handlers=$(grep -c " kprof_girq_handler: irq=$irq " /tmp/lo.trace)
	expect_irq_runs "$1: the tracker's kprof_girq_handler events of IRQ $irq" "$handlers" "$moved"
	echo "ok: $1: $irqs IRQs, every one counted and traced by the hooks and by the tracker"
	rmmod kprof_pktproc
	rmmod kprof
	echo >"$TR"/trace
}

echo 4096 >"$TR"/buffer_size_kb
major=$(uname -r | cut -d. -f1) minor=$(uname -r | cut -d. -f2)
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 14 ]; }; then
	round ":mod:"
else
	echo "no ':mod:' in set_event before 6.14: the notifier round only"
fi
round "notifier"
rmmod kprof_test_coming
