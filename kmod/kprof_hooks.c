// SPDX-License-Identifier: GPL-2.0
/*
 * The hot path: the out-of-line halves of the driver hooks
 * (include/kprof/kprof.h), which count, time, aggregate and emit kprof's
 * device events. This file defines the events (CREATE_TRACE_POINTS).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "kprof_internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/kprof.h>

/* TRACE_EVENT_FN callbacks: a listener on any kprof event holds the key. */
int kprof_trace_reg(void)
{
	return kprof_key_get();
}

void kprof_trace_unreg(void)
{
	kprof_key_put();
}

static __always_inline void kprof_lat_add(struct kprof_lat *lat, u64 ns)
{
	if (!lat->count || ns < lat->min)
		lat->min = ns;
	if (ns > lat->max)
		lat->max = ns;
	lat->count++;
	lat->sum += ns;
	lat->buckets[fls64(ns)]++;
}

/*
 * The hooks' slow paths: only reached while kprof_active is on. Each reads
 * the clock where its sample starts or ends, before taking any lock (an end
 * hook after taking the start it closes, so that a start another CPU
 * stored is never after its end). A begin hook only stores its start and
 * counts itself (stamp()); the others work with interrupts off under
 * their own CPU's lock (struct kprof_pcpu), which only the readers of that
 * CPU's values contend for, one CPU at a time. What passes between CPUs is
 * lock-free (batch and span starts, seq), or the few stores of the
 * IRQ-to-thread handoff under pend_lock.
 */

DEFINE_PER_CPU(struct kprof_misuse, kprof_misuse);

/* Whether a hook on @dev may run here; counts the misuse if not. */
static bool hook_ok(struct kprof_dev *dev)
{
	if (unlikely(in_nmi())) {
		this_cpu_inc(kprof_misuse.nmi);
		return false;
	}
	if (IS_ERR_OR_NULL(dev)) {
		this_cpu_inc(kprof_misuse.null_dev);
		return false;
	}
	return true;
}

/* hook_ok(), and @id one of @dev's spans. */
static bool span_ok(struct kprof_dev *dev, u32 id)
{
	if (!hook_ok(dev))
		return false;
	if (unlikely(id >= dev->nr_spans)) {
		this_cpu_inc(kprof_misuse.bad_span);
		return false;
	}
	return true;
}

/* This CPU's state of @dev, locked and counted; interrupts off. */
static struct kprof_pcpu *pc_lock(struct kprof_dev *dev)
{
	struct kprof_pcpu *pc = this_cpu_ptr(dev->pcpu);

	raw_spin_lock(&pc->lock);
	pc->c.hook_calls++;
	return pc;
}

static u64 next_seq(struct kprof_dev *dev, enum kprof_event ev)
{
	return atomic64_inc_return(&dev->seq[ev]);
}

/* Aggregate a sample of @kind on this CPU (its lock held). */
static __always_inline void agg_add(struct kprof_dev *dev, enum kprof_kind kind, u64 ns)
{
	struct kprof_dev_agg *a = rcu_dereference_sched(dev->agg);
	u32 id;

	if (!a || !READ_ONCE(a->on))
		return;
	id = raw_smp_processor_id() * kprof_nr_kinds(dev) + kind;
	if (!kprof_cell_add(&a->cell[id].h, &a->stage, &a->stage_lock, id, ns))
		a->cell[id].untracked++;
}

/*
 * A sample of @kind from @start to @now, this CPU's lock held. False, and
 * nothing recorded, if @now is before @start: a start taken on another CPU
 * whose clock is ahead (kprof_span_end_at()). Such a sample is counted in
 * backwards, never clamped. Inlined into each hook with what it calls: as
 * three calls they were a third of an enabled hook pair's own time under
 * TCG (make bench, P2: 237 against 153 ns a pair, the event not counted).
 */
static __always_inline bool sample(struct kprof_dev *dev, struct kprof_pcpu *pc,
				   enum kprof_kind kind, u64 start, u64 now, u64 *ns)
{
	if (unlikely(now < start)) {
		pc->c.backwards++;
		return false;
	}
	*ns = now - start;
	kprof_lat_add(&pc->lat[kind], *ns);
	agg_add(dev, kind, *ns);
	return true;
}

/*
 * A woken IRQ stamped at @start waits for a thread run; if one already
 * waits, the first stamp is kept and this one is coalesced into its run.
 */
static void pend_add(struct kprof_dev *dev, u64 start)
{
	raw_spin_lock(&dev->pend_lock);
	if (!dev->pending_irqs++) {
		dev->pending_since = start;
		dev->pending_cpu = raw_smp_processor_id();
	}
	raw_spin_unlock(&dev->pend_lock);
}

/*
 * The woken IRQs a thread run that began at @now serves: none if the first
 * was stamped after @now, an IRQ during this run that the IRQ core runs the
 * thread again for. Returns their number, the first's stamp and CPU.
 */
static u32 pend_take(struct kprof_dev *dev, u64 now, u64 *since, int *cpu)
{
	u32 irqs = 0;

	raw_spin_lock(&dev->pend_lock);
	if (dev->pending_irqs && dev->pending_since <= now) {
		irqs = dev->pending_irqs;
		*since = dev->pending_since;
		*cpu = dev->pending_cpu;
		dev->pending_irqs = 0;
	}
	raw_spin_unlock(&dev->pend_lock);
	return irqs;
}

/*
 * A begin hook: count it on this CPU, and leave @now in @slot. It takes no
 * lock: the count is this CPU's own local64_t, and the start is one store.
 */
static void stamp(struct kprof_dev *dev, atomic64_t *slot, u64 now)
{
	preempt_disable();
	local64_inc(&this_cpu_ptr(dev->pcpu)->begins);
	preempt_enable();
	atomic64_set(slot, now);
}

void __kprof_irq_enter(struct kprof_dev *dev)
{
	struct kprof_pcpu *pc;
	unsigned long flags;
	u64 now;

	if (!hook_ok(dev))
		return;
	now = ktime_get_ns();
	local_irq_save(flags);
	pc = pc_lock(dev);
	pc->c.irqs++;
	pc->hard_start = now;
	raw_spin_unlock(&pc->lock);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_irq_enter);

void __kprof_irq_exit(struct kprof_dev *dev, irqreturn_t ret)
{
	struct kprof_pcpu *pc;
	unsigned long flags;
	u64 now, start, ns;

	if (!hook_ok(dev))
		return;
	now = ktime_get_ns();
	local_irq_save(flags);
	pc = pc_lock(dev);
	start = pc->hard_start;
	pc->hard_start = 0;
	if (!start)
		goto out;	/* the key came on after the entry */
	/*
	 * Only a woken IRQ waits for a thread run: the rest bill nobody. The
	 * IRQ core wakes the thread for exactly IRQ_WAKE_THREAD, not for a
	 * value with its bit set (IRQ_HANDLED | IRQ_WAKE_THREAD).
	 */
	if (ret == IRQ_WAKE_THREAD)
		pc->c.wakes++;
	if (sample(dev, pc, KPROF_K_IRQ_HANDLER, start, now, &ns) &&
	    trace_kprof_irq_handler_enabled())
		trace_kprof_irq_handler(dev->name, dev->name_len, dev->irq, ns,
					next_seq(dev, KPROF_EV_IRQ_HANDLER));
out:
	raw_spin_unlock(&pc->lock);
	if (start && ret == IRQ_WAKE_THREAD)
		pend_add(dev, start);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_irq_exit);

void __kprof_thread_begin(struct kprof_dev *dev)
{
	struct kprof_pcpu *pc;
	unsigned long flags;
	u64 now, since, ns;
	int hard_cpu;
	u32 irqs;

	if (!hook_ok(dev))
		return;
	now = ktime_get_ns();
	local_irq_save(flags);
	irqs = pend_take(dev, now, &since, &hard_cpu);
	pc = pc_lock(dev);
	pc->c.thread_runs++;
	if (!irqs) {
		/*
		 * Nothing to pair: a wake that was served by the previous
		 * run (the IRQ core re-runs the thread for a wake that came
		 * while it ran; that wake was counted as coalesced there, or
		 * is left for the next run if it came after this run's
		 * clock read), or the key came on after the IRQ fired.
		 */
		pc->c.unpaired_runs++;
		goto out;
	}
	if (!sample(dev, pc, KPROF_K_IRQ_THREAD, since, now, &ns))
		goto out;
	pc->c.coalesced += irqs - 1;
	if (trace_kprof_irq_thread_latency_enabled())
		trace_kprof_irq_thread_latency(dev->name, dev->name_len, dev->irq, hard_cpu,
					       ns, irqs - 1,
					       next_seq(dev, KPROF_EV_IRQ_THREAD));
out:
	raw_spin_unlock(&pc->lock);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_thread_begin);

void __kprof_batch_begin(struct kprof_dev *dev)
{
	if (hook_ok(dev))
		stamp(dev, &dev->batch_start, ktime_get_ns());
}
EXPORT_SYMBOL_GPL(__kprof_batch_begin);

void __kprof_batch_end(struct kprof_dev *dev, u32 npackets)
{
	struct kprof_pcpu *pc;
	unsigned long flags;
	u64 now, start, ns;

	if (!hook_ok(dev))
		return;
	local_irq_save(flags);
	start = atomic64_xchg(&dev->batch_start, 0);
	now = ktime_get_ns();
	pc = pc_lock(dev);
	if (start && sample(dev, pc, KPROF_K_BATCH, start, now, &ns)) {
		pc->c.batches++;
		pc->c.packets += npackets;
		if (trace_kprof_batch_enabled())
			trace_kprof_batch(dev->name, dev->name_len, npackets, ns,
					  next_seq(dev, KPROF_EV_BATCH));
	}
	raw_spin_unlock(&pc->lock);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_batch_end);

void __kprof_span_begin(struct kprof_dev *dev, u32 id)
{
	if (span_ok(dev, id))
		stamp(dev, &dev->span_start[id], ktime_get_ns());
}
EXPORT_SYMBOL_GPL(__kprof_span_begin);

/* A span sample from @start (0: none) to @now. */
static void span_end(struct kprof_dev *dev, u32 id, u64 start, u64 now)
{
	struct kprof_pcpu *pc = pc_lock(dev);
	u64 ns;

	if (start && sample(dev, pc, KPROF_K_SPAN0 + id, start, now, &ns)) {
		pc->c.spans++;
		if (trace_kprof_span_enabled())
			trace_kprof_span(dev->name, dev->name_len, id, ns,
					 next_seq(dev, KPROF_EV_SPAN));
	}
	raw_spin_unlock(&pc->lock);
}

void __kprof_span_end(struct kprof_dev *dev, u32 id)
{
	unsigned long flags;
	u64 start;

	if (!span_ok(dev, id))
		return;
	local_irq_save(flags);
	start = atomic64_xchg(&dev->span_start[id], 0);
	span_end(dev, id, start, ktime_get_ns());
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_span_end);

void __kprof_span_end_at(struct kprof_dev *dev, u32 id, u64 start_ns)
{
	unsigned long flags;
	u64 now;

	if (!span_ok(dev, id))
		return;
	now = ktime_get_ns();
	local_irq_save(flags);
	span_end(dev, id, start_ns, now);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(__kprof_span_end_at);

u64 __kprof_now(void)
{
	/* In NMI the clock's seqcount may be held by the code interrupted. */
	if (unlikely(in_nmi())) {
		this_cpu_inc(kprof_misuse.nmi);
		return 0;
	}
	return ktime_get_ns();
}
EXPORT_SYMBOL_GPL(__kprof_now);
