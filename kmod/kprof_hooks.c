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

static void kprof_lat_add(struct kprof_lat *lat, u64 ns)
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
 * The hooks' slow paths: only reached while kprof_active is on. Each takes
 * dev->lock (IRQs off) for all it does; see struct kprof_dev.
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

static struct kprof_counters *hook_enter(struct kprof_dev *dev)
{
	struct kprof_counters *c = &this_cpu_ptr(dev->pcpu)->c;

	c->hook_calls++;
	return c;
}

/* Aggregate a sample of @kind on this CPU (dev->lock held). */
static void agg_add(struct kprof_dev *dev, enum kprof_kind kind, u64 ns)
{
	u32 id = raw_smp_processor_id() * kprof_nr_kinds(dev) + kind;
	struct kprof_dev_cell *c = &dev->agg->cell[id];

	if (!kprof_cell_add(&c->h, &dev->agg->stage, id, ns))
		c->untracked++;
}

/*
 * A sample of @kind from @start to now, with dev->lock held. False, and
 * nothing recorded, if the clock reads before @start: a start taken on
 * another CPU whose clock is ahead (kprof_span_end_at()). Such a sample is
 * counted in backwards, never clamped.
 */
static bool sample(struct kprof_dev *dev, enum kprof_kind kind, u64 start, u64 *ns)
{
	struct kprof_pcpu *pc = this_cpu_ptr(dev->pcpu);
	u64 now = ktime_get_ns();

	if (unlikely(now < start)) {
		pc->c.backwards++;
		return false;
	}
	*ns = now - start;
	kprof_lat_add(&pc->lat[kind], *ns);
	if (dev->agg_on)
		agg_add(dev, kind, *ns);
	return true;
}

/* Close the interval opened at *@slot (dev->lock held); false if none was. */
static bool close_interval(struct kprof_dev *dev, u64 *slot,
			   enum kprof_kind kind, u64 *ns)
{
	u64 start = *slot;

	*slot = 0;
	return start && sample(dev, kind, start, ns);
}

void __kprof_irq_enter(struct kprof_dev *dev)
{
	unsigned long flags;

	if (!hook_ok(dev))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	hook_enter(dev)->irqs++;
	dev->hard_start = ktime_get_ns();
	dev->hard_cpu = raw_smp_processor_id();
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_irq_enter);

void __kprof_irq_exit(struct kprof_dev *dev, irqreturn_t ret)
{
	struct kprof_counters *c;
	unsigned long flags;
	u64 start, ns;

	if (!hook_ok(dev))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	c = hook_enter(dev);
	start = dev->hard_start;
	dev->hard_start = 0;
	if (!start)
		goto out;	/* the key came on after the entry */
	/*
	 * Only a woken IRQ waits for a thread run: the rest bill nobody. The
	 * IRQ core wakes the thread for exactly IRQ_WAKE_THREAD, not for a
	 * value with its bit set (IRQ_HANDLED | IRQ_WAKE_THREAD).
	 */
	if (ret == IRQ_WAKE_THREAD) {
		c->wakes++;
		if (!dev->pending_irqs++) {
			dev->pending_since = start;
			dev->pending_cpu = dev->hard_cpu;
		}
	}
	if (sample(dev, KPROF_K_IRQ_HANDLER, start, &ns) && trace_kprof_irq_handler_enabled())
		trace_kprof_irq_handler(dev->name, dev->irq, ns,
					++dev->seq[KPROF_EV_IRQ_HANDLER]);
out:
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_irq_exit);

void __kprof_thread_begin(struct kprof_dev *dev)
{
	struct kprof_counters *c;
	unsigned long flags;
	u32 irqs;
	u64 ns;

	if (!hook_ok(dev))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	c = hook_enter(dev);
	c->thread_runs++;
	irqs = dev->pending_irqs;
	dev->pending_irqs = 0;
	if (!irqs) {
		/*
		 * Nothing to pair: a wake that was served by the previous
		 * run (the IRQ core re-runs the thread for a wake that came
		 * while it ran; that wake was counted as coalesced there), or
		 * the key came on after the IRQ fired.
		 */
		c->unpaired_runs++;
		goto out;
	}
	if (!sample(dev, KPROF_K_IRQ_THREAD, dev->pending_since, &ns))
		goto out;
	c->coalesced += irqs - 1;
	if (trace_kprof_irq_thread_latency_enabled())
		trace_kprof_irq_thread_latency(dev->name, dev->irq, dev->pending_cpu,
					       ns, irqs - 1,
					       ++dev->seq[KPROF_EV_IRQ_THREAD]);
out:
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_thread_begin);

void __kprof_batch_begin(struct kprof_dev *dev)
{
	unsigned long flags;

	if (!hook_ok(dev))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	hook_enter(dev);
	dev->batch_start = ktime_get_ns();
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_batch_begin);

void __kprof_batch_end(struct kprof_dev *dev, u32 npackets)
{
	struct kprof_counters *c;
	unsigned long flags;
	u64 ns;

	if (!hook_ok(dev))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	c = hook_enter(dev);
	if (close_interval(dev, &dev->batch_start, KPROF_K_BATCH, &ns)) {
		c->batches++;
		c->packets += npackets;
		if (trace_kprof_batch_enabled())
			trace_kprof_batch(dev->name, npackets, ns,
					  ++dev->seq[KPROF_EV_BATCH]);
	}
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_batch_end);

void __kprof_span_begin(struct kprof_dev *dev, u32 id)
{
	unsigned long flags;

	if (!span_ok(dev, id))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	hook_enter(dev);
	dev->span_start[id] = ktime_get_ns();
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_span_begin);

/* A span sample is in: count and emit it (dev->lock held). */
static void span_done(struct kprof_dev *dev, struct kprof_counters *c, u32 id, u64 ns)
{
	c->spans++;
	if (trace_kprof_span_enabled())
		trace_kprof_span(dev->name, id, ns, ++dev->seq[KPROF_EV_SPAN]);
}

void __kprof_span_end(struct kprof_dev *dev, u32 id)
{
	struct kprof_counters *c;
	unsigned long flags;
	u64 ns;

	if (!span_ok(dev, id))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	c = hook_enter(dev);
	if (close_interval(dev, &dev->span_start[id], KPROF_K_SPAN0 + id, &ns))
		span_done(dev, c, id, ns);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_span_end);

void __kprof_span_end_at(struct kprof_dev *dev, u32 id, u64 start_ns)
{
	struct kprof_counters *c;
	unsigned long flags;
	u64 ns;

	if (!span_ok(dev, id))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	c = hook_enter(dev);
	if (sample(dev, KPROF_K_SPAN0 + id, start_ns, &ns))
		span_done(dev, c, id, ns);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
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
