/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof's tracepoints. Only kprof.ko emits them (kmod/kprof_hooks.c defines
 * CREATE_TRACE_POINTS); drivers reach them through the inline hooks of
 * <kprof/kprof.h>, which cost a NOP while nobody listens.
 *
 * Every event names the kprof device (as registered) it belongs to. Times
 * are nanoseconds of CLOCK_MONOTONIC (ktime_get_ns()), read by kprof.ko
 * where the sample starts and ends; a delta that would be negative (a start
 * from another CPU whose clock is ahead) is dropped and counted, never
 * emitted.
 *
 * Every event also carries @seq: how many events of its kind the device has
 * emitted so far, this one included (kprof.ko counts an event as emitted
 * when it calls the tracepoint while the tracepoint is enabled, and does
 * both under its CPU's lock, which kprof/<dev>/emitted takes on every CPU
 * after reading). Consecutive seq values mean nothing was
 * lost between them; kprof/<dev>/emitted in debugfs shows the latest value,
 * so a reader that samples it while its events are enabled can tell exactly
 * how many events were emitted in between.
 *
 * Registering a probe on any of these events (enabling it in any tracefs
 * instance, or attaching perf/BPF) turns the hooks' static key on; it goes
 * off again when the last listener leaves (TRACE_EVENT_FN callbacks).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kprof

#if !defined(_TRACE_KPROF_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KPROF_H

#include <linux/tracepoint.h>

#include "compat.h"

int kprof_trace_reg(void);
void kprof_trace_unreg(void);
int kprof_girq_reg(void);
void kprof_girq_unreg(void);

/*
 * A device event's name field: the same __data_loc char[] dev field as
 * __string(dev, dev), filled with the length kprof_dev_register() measured
 * (@dev_len, without the NUL it copies too) instead of a strlen() and a
 * strcpy() per event.
 */
#define KPROF_DEV_FIELD		__dynamic_array(char, dev, (dev_len) + 1)
#define KPROF_DEV_ASSIGN	memcpy(__get_dynamic_array(dev), dev, (dev_len) + 1)

/**
 * kprof_irq_thread_latency - hard-IRQ entry to threaded-handler start
 * @dev:	kprof device name
 * @dev_len:	its length
 * @irq:	Linux IRQ number the device registered (-1 if none)
 * @hard_cpu:	CPU that took the first unserviced hard IRQ
 * @delta_ns:	from the first unserviced kprof_irq_enter() to
 *		kprof_thread_begin()
 * @coalesced:	further IRQs that woke the thread before it ran and were
 *		served by this same run (0 when there was one IRQ)
 * @seq:	see above
 *
 * On PREEMPT_RT the primary handler of a threaded IRQ is itself forced
 * into a thread unless the IRQ was requested with IRQF_NO_THREAD; then
 * kprof_irq_enter() runs in that thread, not in hard-IRQ context, and
 * @delta_ns spans thread to thread.
 */
TRACE_EVENT_FN(kprof_irq_thread_latency,
	TP_PROTO(const char *dev, u32 dev_len, int irq, int hard_cpu, u64 delta_ns, u32 coalesced,
		 u64 seq),
	TP_ARGS(dev, dev_len, irq, hard_cpu, delta_ns, coalesced, seq),
	TP_STRUCT__entry(
		KPROF_DEV_FIELD
		__field(int, irq)
		__field(int, hard_cpu)
		__field(u64, delta_ns)
		__field(u32, coalesced)
		__field(u64, seq)
	),
	TP_fast_assign(
		KPROF_DEV_ASSIGN;
		__entry->irq = irq;
		__entry->hard_cpu = hard_cpu;
		__entry->delta_ns = delta_ns;
		__entry->coalesced = coalesced;
		__entry->seq = seq;
	),
	TP_printk("dev=%s irq=%d hard_cpu=%d delta_ns=%llu coalesced=%u seq=%llu",
		  __get_str(dev), __entry->irq, __entry->hard_cpu,
		  __entry->delta_ns, __entry->coalesced, __entry->seq),
	kprof_trace_reg, kprof_trace_unreg
);

/**
 * kprof_irq_handler - time spent in the hard (primary) handler
 * @dev:	kprof device name
 * @dev_len:	its length
 * @irq:	Linux IRQ number the device registered (-1 if none)
 * @duration_ns: kprof_irq_enter() to kprof_irq_exit()
 * @seq:	see above
 */
TRACE_EVENT_FN(kprof_irq_handler,
	TP_PROTO(const char *dev, u32 dev_len, int irq, u64 duration_ns, u64 seq),
	TP_ARGS(dev, dev_len, irq, duration_ns, seq),
	TP_STRUCT__entry(
		KPROF_DEV_FIELD
		__field(int, irq)
		__field(u64, duration_ns)
		__field(u64, seq)
	),
	TP_fast_assign(
		KPROF_DEV_ASSIGN;
		__entry->irq = irq;
		__entry->duration_ns = duration_ns;
		__entry->seq = seq;
	),
	TP_printk("dev=%s irq=%d duration_ns=%llu seq=%llu",
		  __get_str(dev), __entry->irq, __entry->duration_ns, __entry->seq),
	kprof_trace_reg, kprof_trace_unreg
);

/**
 * kprof_batch - one processing pass over a batch of packets
 * @dev:	kprof device name
 * @dev_len:	its length
 * @packets:	packets processed in the pass (kprof_batch_end()'s argument)
 * @duration_ns: kprof_batch_begin() to kprof_batch_end()
 * @seq:	see above
 */
TRACE_EVENT_FN(kprof_batch,
	TP_PROTO(const char *dev, u32 dev_len, u32 packets, u64 duration_ns, u64 seq),
	TP_ARGS(dev, dev_len, packets, duration_ns, seq),
	TP_STRUCT__entry(
		KPROF_DEV_FIELD
		__field(u32, packets)
		__field(u64, duration_ns)
		__field(u64, seq)
	),
	TP_fast_assign(
		KPROF_DEV_ASSIGN;
		__entry->packets = packets;
		__entry->duration_ns = duration_ns;
		__entry->seq = seq;
	),
	TP_printk("dev=%s packets=%u duration_ns=%llu seq=%llu",
		  __get_str(dev), __entry->packets, __entry->duration_ns, __entry->seq),
	kprof_trace_reg, kprof_trace_unreg
);

/**
 * kprof_span - a driver-defined begin/end interval
 * @dev:	kprof device name
 * @dev_len:	its length
 * @id:		span id; its name is in debugfs kprof/<dev>/spans
 * @delta_ns:	kprof_span_begin() (or the start the driver passed to
 *		kprof_span_end_at()) to kprof_span_end()
 * @seq:	see above (one sequence for all span ids of a device)
 */
TRACE_EVENT_FN(kprof_span,
	TP_PROTO(const char *dev, u32 dev_len, u32 id, u64 delta_ns, u64 seq),
	TP_ARGS(dev, dev_len, id, delta_ns, seq),
	TP_STRUCT__entry(
		KPROF_DEV_FIELD
		__field(u32, id)
		__field(u64, delta_ns)
		__field(u64, seq)
	),
	TP_fast_assign(
		KPROF_DEV_ASSIGN;
		__entry->id = id;
		__entry->delta_ns = delta_ns;
		__entry->seq = seq;
	),
	TP_printk("dev=%s id=%u delta_ns=%llu seq=%llu",
		  __get_str(dev), __entry->id, __entry->delta_ns, __entry->seq),
	kprof_trace_reg, kprof_trace_unreg
);

/*
 * The generic IRQ tracker (kmod/kprof_girq.c): any IRQ of any driver, no
 * instrumentation needed. Enabling any kprof_girq_* event attaches kprof's
 * probes to the kernel's irq:irq_handler_entry/exit and sched:sched_waking
 * tracepoints, and its kprobes on the IRQ core's thread runs and on
 * handle_nested_irq(), from a work item shortly after (debugfs
 * kprof/girq_counters says "attached: 1"); disabling the last one detaches
 * them. @name is the irqaction's name as in /proc/interrupts, with a mark
 * for the rows of forced threading and nested IRQs:
 *  "NAME (forced)"	a forced-threaded action (threadirqs, PREEMPT_RT):
 *			its hard part (irq_default_primary_handler()) and
 *			the thread that runs the driver's handler;
 *  "NAME (forced handler)"	the driver's handler, timed in that thread,
 *			and the secondary thread (irq/N-s-NAME) that runs
 *			the driver's thread function;
 *  "NAME (nested)"	a child IRQ handled by handle_nested_irq() in its
 *			parent's thread.
 * @irq is the Linux IRQ number.
 *
 * Their @seq counts the events of that kind emitted on the CPU that emitted
 * this one (its ring buffer), this one included; kprof/girq_emitted shows
 * the latest value per CPU.
 */

/**
 * kprof_girq_handler - one run of a hard (primary) IRQ handler
 * @irq:	Linux IRQ number
 * @name:	the irqaction's name (marked: see above)
 * @ret:	what the handler returned (0 IRQ_NONE, 1 IRQ_HANDLED,
 *		2 IRQ_WAKE_THREAD); -1 for a nested child (handle_nested_irq()
 *		returns nothing)
 * @duration_ns: irq_handler_entry to irq_handler_exit; for a forced
 *		handler, its run in the thread (irq_forced_thread_fn()); for a
 *		nested child, handle_nested_irq()
 * @seq:	see above
 */
TRACE_EVENT_FN(kprof_girq_handler,
	TP_PROTO(int irq, const char *name, int ret, u64 duration_ns, u64 seq),
	TP_ARGS(irq, name, ret, duration_ns, seq),
	TP_STRUCT__entry(
		__field(int, irq)
		__string(name, name)
		__field(int, ret)
		__field(u64, duration_ns)
		__field(u64, seq)
	),
	TP_fast_assign(
		__entry->irq = irq;
		kprof_assign_str(name, name);
		__entry->ret = ret;
		__entry->duration_ns = duration_ns;
		__entry->seq = seq;
	),
	TP_printk("irq=%d name=%s ret=%d duration_ns=%llu seq=%llu",
		  __entry->irq, __get_str(name), __entry->ret,
		  __entry->duration_ns, __entry->seq),
	kprof_girq_reg, kprof_girq_unreg
);

DECLARE_EVENT_CLASS(kprof_girq_delta,
	TP_PROTO(int irq, const char *name, int hard_cpu, u64 delta_ns,
		 u32 coalesced, u32 busy, u64 seq),
	TP_ARGS(irq, name, hard_cpu, delta_ns, coalesced, busy, seq),
	TP_STRUCT__entry(
		__field(int, irq)
		__string(name, name)
		__field(int, hard_cpu)
		__field(u64, delta_ns)
		__field(u32, coalesced)
		__field(u32, busy)
		__field(u64, seq)
	),
	TP_fast_assign(
		__entry->irq = irq;
		kprof_assign_str(name, name);
		__entry->hard_cpu = hard_cpu;
		__entry->delta_ns = delta_ns;
		__entry->coalesced = coalesced;
		__entry->busy = busy;
		__entry->seq = seq;
	),
	TP_printk("irq=%d name=%s hard_cpu=%d delta_ns=%llu coalesced=%u busy=%u seq=%llu",
		  __entry->irq, __get_str(name), __entry->hard_cpu,
		  __entry->delta_ns, __entry->coalesced, __entry->busy, __entry->seq)
);

/**
 * kprof_girq_wake - a hard IRQ woke its sleeping IRQ thread
 * @irq:	Linux IRQ number
 * @name:	the irqaction's name (marked: see above)
 * @hard_cpu:	CPU that took the IRQ (and emitted this event, except for a
 *		secondary thread, which the forced thread's CPU wakes)
 * @delta_ns:	irq_handler_entry to sched_waking of the action's thread
 * @coalesced:	always 0
 * @busy:	always 0
 * @seq:	see above
 *
 * Only a handler that returned IRQ_WAKE_THREAD while the thread waited for
 * its next run (irq_wait_for_interrupt()) is a wake; a request that finds
 * a request pending, the thread in a run of its handler (even asleep in
 * it), or running towards its wait does not wake it (see girq_counters).
 */
DEFINE_EVENT_FN(kprof_girq_delta, kprof_girq_wake,
	TP_PROTO(int irq, const char *name, int hard_cpu, u64 delta_ns,
		 u32 coalesced, u32 busy, u64 seq),
	TP_ARGS(irq, name, hard_cpu, delta_ns, coalesced, busy, seq),
	kprof_girq_reg, kprof_girq_unreg
);

/**
 * kprof_girq_thread - an IRQ thread starts the run that serves a request
 * @irq:	Linux IRQ number of the first request the run serves
 * @name:	the irqaction's name (marked: see above)
 * @hard_cpu:	CPU that took that IRQ
 * @delta_ns:	its irq_handler_entry to the run's start (the IRQ core's
 *		irq_thread_fn() or irq_forced_thread_fn(), just before the
 *		driver's thread function), on the CPU that emitted this event
 * @coalesced:	further wake requests of the action (IRQs that returned
 *		IRQ_WAKE_THREAD) before the run started: it serves them too
 * @busy:	1 if the first request found the thread in a run of its
 *		handler (a handler that sleeps in its thread, or one still
 *		running): @delta_ns then holds the rest of that run
 * @seq:	see above
 *
 * A secondary thread's @delta_ns runs from the IRQ's entry too; a nested
 * child's from its parent run's first IRQ's entry to the child's start
 * (@coalesced and @busy 0).
 */
DEFINE_EVENT_FN(kprof_girq_delta, kprof_girq_thread,
	TP_PROTO(int irq, const char *name, int hard_cpu, u64 delta_ns,
		 u32 coalesced, u32 busy, u64 seq),
	TP_ARGS(irq, name, hard_cpu, delta_ns, coalesced, busy, seq),
	kprof_girq_reg, kprof_girq_unreg
);

#endif /* _TRACE_KPROF_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trace/events
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kprof
#include <trace/define_trace.h>
