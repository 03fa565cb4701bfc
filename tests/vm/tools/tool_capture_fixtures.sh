# Not a test: captures decoder fixtures from a real guest (run with
# ci/capture-fixtures.sh). Prints a base64 tar between markers.
. /tests/lib.sh
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=3000 batch=4 irq_coalesce=2 || fail insmod
F=/tmp/fx
mkdir -p $F/formats
cp "$TR"/events/header_page $F/header_page
for e in "$TR"/events/kprof/kprof_*; do cp "$e/format" "$F/formats/$(basename "$e")"; done
# The threshold analysis' context events, laid out as in tracefs.
for e in irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit sched/sched_switch sched/sched_waking; do
	mkdir -p "$F/events/$e"
	cp "$TR/events/$e/format" "$F/events/$e/format"
done
# The device events only: the system-wide switch would attach the IRQ tracker.
DEV_EVENTS="kprof_irq_thread_latency kprof_irq_handler kprof_batch kprof_span"
dev_events() {
	for e in $DEV_EVENTS; do echo "$2" >"$1/events/kprof/$e/enable"; done
}

# A normal capture: text view first (non-consuming), then the raw pages.
I=$TR/instances/fx
mkdir "$I"
echo 512 >"$I"/buffer_size_kb
echo 1000 >"$PP"/rate_pps
dev_events "$I" 1
run_traffic 0.5
dev_events "$I" 0
echo 0 >"$I"/tracing_on
cat "$I"/trace >$F/normal.txt
for c in 0 1; do timeout 2 cat "$I"/per_cpu/cpu$c/trace_pipe_raw >$F/normal.cpu$c.raw || true; done
rmdir "$I"

# An overrun: a tiny buffer that nobody reads while traffic runs.
mkdir "$I"
echo 4 >"$I"/buffer_size_kb
echo 3000 >"$PP"/rate_pps
dev_events "$I" 1
run_traffic 1
dev_events "$I" 0
echo 0 >"$I"/tracing_on
cat "$I"/trace >$F/overrun.txt
for c in 0 1; do
	cat "$I"/per_cpu/cpu$c/stats >$F/overrun.cpu$c.stats
	timeout 2 cat "$I"/per_cpu/cpu$c/trace_pipe_raw >$F/overrun.cpu$c.raw || true
done
rmdir "$I"

# The IRQ tracker with the context events, as kprofctl irq -T collects them.
mkdir "$I"
echo 1024 >"$I"/buffer_size_kb
echo 1000 >"$PP"/rate_pps
echo mono >"$I"/trace_clock
for e in kprof/kprof_girq_handler kprof/kprof_girq_wake kprof/kprof_girq_thread irq/irq_handler_entry \
	irq/irq_handler_exit irq/softirq_entry irq/softirq_exit sched/sched_switch sched/sched_waking; do
	echo 1 >"$I"/events/$e/enable
done
wait_attached
run_traffic 0.5
echo 0 >"$I"/tracing_on
cat "$I"/trace >$F/tracker.txt
for c in 0 1; do timeout 2 cat "$I"/per_cpu/cpu$c/trace_pipe_raw >$F/tracker.cpu$c.raw || true; done
for e in kprof/kprof_girq_handler kprof/kprof_girq_wake kprof/kprof_girq_thread irq/irq_handler_entry \
	irq/irq_handler_exit irq/softirq_entry irq/softirq_exit sched/sched_switch sched/sched_waking; do
	echo 0 >"$I"/events/$e/enable
done
rmdir "$I"
uname -r >$F/kernel
print_fixtures
