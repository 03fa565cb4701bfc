// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: interrupt patterns of real boards on a software IRQ
 * domain, with its own counts as the oracle (tests/vm/girq_demux.sh,
 * tests/vm/girq_sleep.sh). pattern= picks one.
 *
 * pattern=demux: a parent IRQ whose hard handler calls generic_handle_irq()
 * for a child IRQ of the same domain, as a GPIO or PMIC interrupt
 * controller's chained handler does, so that the child's hard handler nests
 * inside the parent's on one CPU. A hard hrtimer raises the parent @irqs
 * times, every @period_us. Both are IRQF_NO_THREAD, hard even on
 * PREEMPT_RT, as a chained handler is. The parent spends @parent_us of its
 * own and the child @child_us.
 *
 * pattern=sleep: a threaded handler that sleeps in its thread, as an I2C,
 * SPI or PMIC driver's does on a bus transfer: msleep(), or (sleep=
 * completion) wait_for_completion() on a completion a hard hrtimer
 * completes, for @sleep_us, on an edge IRQ that is not masked while the
 * thread runs (no IRQF_ONESHOT), so that IRQs keep coming while it sleeps.
 * The primary handler is IRQF_NO_THREAD: hard even on PREEMPT_RT. The
 * oracle mirrors the IRQ core's IRQTF_RUNTHREAD: a request is due until a
 * run starts; each run serves the requests due when it starts, and its
 * delta runs from the first of them to the start of the thread function.
 * debugfs kprof_test_board/served lists, per run in order, that delta
 * and whether its first request came while the thread was in a run
 * (busy); then the totals.
 *
 * pattern=forced: a driver with both a primary handler (@parent_us) and a
 * thread function (@child_us), without IRQF_ONESHOT, as most drivers
 * request them; under threadirqs or PREEMPT_RT the IRQ core forces the
 * primary into the action's thread and the thread function into a
 * secondary thread (irq/N-s-kprof_board_forced). The primary always asks
 * for the thread function. The oracle mirrors both threads' run flags from
 * the timer's raising of the IRQ: per thread, the runs that served a raise
 * (and the sum of their deltas from the first raise they served to the
 * function's start), the idle runs, and the function's own time.
 *
 * pattern=nested: a parent IRQ whose thread function (@parent_us, then the
 * child) calls handle_nested_irq() for a child IRQ, as regmap-irq and the
 * GPIO expanders and PMICs on I2C do; the child (IRQ marked nested, no
 * thread of its own) spends @child_us in its thread function, in the
 * parent's thread. The oracle: the same for the parent's thread and for
 * the child, whose delta runs from the first raise its parent's run served.
 *
 * debugfs kprof_test_board/served holds the oracle of forced and nested
 * as "key value" lines, with "quiet 1" once every raise has been served.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "compat.h"

static unsigned int irqs = 500;
module_param(irqs, uint, 0444);
MODULE_PARM_DESC(irqs, "parent IRQs to raise");
static unsigned int period_us = 2000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "between two parent IRQs");
static unsigned int parent_us = 20;
module_param(parent_us, uint, 0444);
MODULE_PARM_DESC(parent_us, "the parent's hard handler's own time");
static unsigned int child_us = 10;
module_param(child_us, uint, 0444);
MODULE_PARM_DESC(child_us, "the child's hard handler's time");
static char *pattern = "demux";
module_param(pattern, charp, 0444);
MODULE_PARM_DESC(pattern, "demux, sleep, forced or nested");
static char *sleep = "msleep";
module_param(sleep, charp, 0444);
MODULE_PARM_DESC(sleep, "pattern=sleep: how the thread sleeps, msleep or completion");
static unsigned int sleep_us = 3000;
module_param(sleep_us, uint, 0444);
MODULE_PARM_DESC(sleep_us, "pattern=sleep: how long the thread sleeps per run");

/* The oracle: handler runs, read from /sys/module/kprof_test_board/parameters. */
static atomic_t parent_runs = ATOMIC_INIT(0);
static atomic_t child_runs = ATOMIC_INIT(0);
module_param_named(parent_runs, parent_runs.counter, int, 0444);
module_param_named(child_runs, child_runs.counter, int, 0444);

enum { HW_PARENT, HW_CHILD, NR_HW };
#define HW_SLEEP	HW_PARENT	/* pattern=sleep's one IRQ */

enum { P_DEMUX, P_SLEEP, P_FORCED, P_NESTED, NR_PATTERNS };
static const char * const patterns[NR_PATTERNS] = { "demux", "sleep", "forced", "nested" };
static int pat;

static struct irq_domain *domain;
static unsigned int virq[NR_HW];
static struct hrtimer timer;
static unsigned int raised;
static bool use_completion;	/* sleep=completion */

/* pattern=sleep's oracle; under its lock. */
struct served {
	u64 delta_ns;
	bool busy;
};

static struct {
	raw_spinlock_t lock;
	bool due;		/* IRQTF_RUNTHREAD's mirror */
	bool due_busy;		/* the first due request came in a run */
	bool in_run;
	u64 first;		/* the first due request's time */
	unsigned int requests, busy, coalesced, runs, idle_runs;
	struct served *log;	/* @irqs entries: a run serves at least one */
} o = { .lock = __RAW_SPIN_LOCK_UNLOCKED(o.lock) };

static struct completion done;
static struct hrtimer done_timer;
static struct dentry *dir;

static irqreturn_t child_hard(int irq, void *data)
{
	udelay(child_us);
	atomic_inc(&child_runs);
	return IRQ_HANDLED;
}

static irqreturn_t parent_hard(int irq, void *data)
{
	udelay(parent_us);
	generic_handle_irq(virq[HW_CHILD]);
	atomic_inc(&parent_runs);
	return IRQ_HANDLED;
}

static irqreturn_t sleep_hard(int irq, void *data)
{
	u64 now = ktime_get_ns();

	raw_spin_lock(&o.lock);
	o.requests++;
	if (o.due) {
		o.coalesced++;
	} else {
		o.due = true;
		o.due_busy = o.in_run;
		o.busy += o.in_run;
		o.first = now;
	}
	raw_spin_unlock(&o.lock);
	return IRQ_WAKE_THREAD;
}

static enum hrtimer_restart done_fire(struct hrtimer *t)
{
	complete(&done);
	return HRTIMER_NORESTART;
}

static irqreturn_t sleep_thread(int irq, void *data)
{
	u64 now = ktime_get_ns();

	raw_spin_lock_irq(&o.lock);
	if (o.due) {
		o.log[o.runs].delta_ns = now - o.first;
		o.log[o.runs].busy = o.due_busy;
		o.runs++;
		o.due = false;
	} else {
		o.idle_runs++;
	}
	o.in_run = true;
	raw_spin_unlock_irq(&o.lock);
	if (use_completion) {
		reinit_completion(&done);
		hrtimer_start(&done_timer, ns_to_ktime((u64)sleep_us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
		wait_for_completion(&done);
	} else {
		msleep(DIV_ROUND_UP(sleep_us, 1000));
	}
	raw_spin_lock_irq(&o.lock);
	o.in_run = false;
	raw_spin_unlock_irq(&o.lock);
	return IRQ_HANDLED;
}

/*
 * pattern=forced and nested: a thread's run flag mirrored, the raise it
 * serves from, and its runs; under o.lock.
 */
struct mirror {
	bool due;
	u64 first;
	unsigned int runs, idle_runs;
	u64 delta_sum;		/* from the first raise served to the start */
	u64 own_sum;		/* the function's own time */
};

static struct mirror primary, secondary;	/* forced; nested: parent, child */
static u64 serving;		/* the raise the current primary (parent) run serves */

/* A raise for @m's thread at @t; o.lock held. */
static void mirror_raise(struct mirror *m, u64 t)
{
	if (!m->due) {
		m->due = true;
		m->first = t;
	}
}

/* @m's thread function starts at @now: the raise it serves, or 0; o.lock held. */
static u64 mirror_start(struct mirror *m, u64 now)
{
	if (!m->due) {
		m->idle_runs++;
		return 0;
	}
	m->due = false;
	m->runs++;
	m->delta_sum += now - m->first;
	return m->first;
}

/* The forced primary runs with interrupts off (irq_forced_thread_fn()). */
static void mirror_own(struct mirror *m, u64 start)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	raw_spin_lock_irqsave(&o.lock, flags);
	m->own_sum += now - start;
	raw_spin_unlock_irqrestore(&o.lock, flags);
}

/*
 * Spin @us by the clock the tracker reads: udelay() under TCG runs far off
 * its time, either way.
 */
static void spin_us(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* forced: the driver's primary handler, in its forced thread. */
static irqreturn_t forced_primary(int irq, void *data)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	raw_spin_lock_irqsave(&o.lock, flags);
	serving = mirror_start(&primary, now) ?: now;
	raw_spin_unlock_irqrestore(&o.lock, flags);
	spin_us(parent_us);
	mirror_own(&primary, now);
	/* The IRQ core wakes the secondary when this returns. */
	raw_spin_lock_irqsave(&o.lock, flags);
	mirror_raise(&secondary, serving);
	raw_spin_unlock_irqrestore(&o.lock, flags);
	return IRQ_WAKE_THREAD;
}

/* forced: the thread function, in the secondary thread; nested: the child. */
static irqreturn_t second_thread(int irq, void *data)
{
	u64 now = ktime_get_ns();

	raw_spin_lock_irq(&o.lock);
	if (pat == P_NESTED)
		mirror_raise(&secondary, serving);
	mirror_start(&secondary, now);
	raw_spin_unlock_irq(&o.lock);
	spin_us(child_us);
	mirror_own(&secondary, now);
	return IRQ_HANDLED;
}

/* nested: the parent's thread function demultiplexes to the child. */
static irqreturn_t nested_parent(int irq, void *data)
{
	u64 now = ktime_get_ns();

	raw_spin_lock_irq(&o.lock);
	serving = mirror_start(&primary, now) ?: now;
	raw_spin_unlock_irq(&o.lock);
	spin_us(parent_us);
	mirror_own(&primary, now);
	handle_nested_irq(virq[HW_CHILD]);
	return IRQ_HANDLED;
}

static void mirror_show(struct seq_file *m, const char *name, const struct mirror *r)
{
	seq_printf(m, "%s_runs %u\n%s_idle_runs %u\n%s_delta_sum %llu\n%s_own_sum %llu\n",
		   name, r->runs, name, r->idle_runs, name, r->delta_sum, name, r->own_sum);
}

static int served_show(struct seq_file *m, void *v)
{
	unsigned int i;

	raw_spin_lock_irq(&o.lock);
	if (pat != P_SLEEP) {
		mirror_show(m, "primary", &primary);
		mirror_show(m, "secondary", &secondary);
		seq_printf(m, "raised %u\nquiet %d\n", raised,
			   raised >= irqs && !primary.due && !secondary.due);
		raw_spin_unlock_irq(&o.lock);
		return 0;
	}
	for (i = 0; i < o.runs; i++)
		seq_printf(m, "run %llu %d\n", o.log[i].delta_ns, o.log[i].busy);
	seq_printf(m, "requests %u\nbusy %u\ncoalesced %u\nruns %u\nidle_runs %u\nquiet %d\n",
		   o.requests, o.busy, o.coalesced, o.runs, o.idle_runs,
		   raised >= irqs && !o.due && !o.in_run);
	raw_spin_unlock_irq(&o.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(served);

static enum hrtimer_restart board_timer(struct hrtimer *t)
{
	if (pat == P_FORCED || pat == P_NESTED) {
		raw_spin_lock(&o.lock);
		mirror_raise(&primary, ktime_get_ns());
		raw_spin_unlock(&o.lock);
	}
	generic_handle_irq(virq[HW_PARENT]);
	if (++raised >= irqs)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime((u64)period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int board_map(struct irq_domain *d, unsigned int v, irq_hw_number_t hw)
{
	irq_set_chip_and_handler(v, &dummy_irq_chip, handle_simple_irq);
	return 0;
}

static const struct irq_domain_ops board_domain_ops = {
	.map = board_map,
	.xlate = irq_domain_xlate_onecell,
};

static int request_demux(void)
{
	int ret;

	ret = request_irq(virq[HW_CHILD], child_hard, IRQF_NO_THREAD, "kprof_board_child", NULL);
	if (ret)
		return ret;
	ret = request_irq(virq[HW_PARENT], parent_hard, IRQF_NO_THREAD, "kprof_board_parent", NULL);
	if (ret)
		free_irq(virq[HW_CHILD], NULL);
	else
		pr_info("parent IRQ %u, child IRQ %u\n", virq[HW_PARENT], virq[HW_CHILD]);
	return ret;
}

static void oracle_file(void)
{
	dir = debugfs_create_dir("kprof_test_board", NULL);
	debugfs_create_file("served", 0400, dir, NULL, &served_fops);
}

static int request_forced(void)
{
	int ret;

	ret = request_threaded_irq(virq[HW_PARENT], forced_primary, second_thread, 0,
				   "kprof_board_forced", NULL);
	if (ret)
		return ret;
	oracle_file();
	pr_info("forced IRQ %u\n", virq[HW_PARENT]);
	return 0;
}

static int request_nested(void)
{
	int ret;

	irq_set_nested_thread(virq[HW_CHILD], true);
	ret = request_threaded_irq(virq[HW_CHILD], NULL, second_thread, IRQF_ONESHOT,
				   "kprof_board_nchild", NULL);
	if (ret)
		return ret;
	ret = request_threaded_irq(virq[HW_PARENT], NULL, nested_parent, IRQF_ONESHOT,
				   "kprof_board_nparent", NULL);
	if (ret) {
		free_irq(virq[HW_CHILD], NULL);
		return ret;
	}
	oracle_file();
	pr_info("nested parent IRQ %u, child IRQ %u\n", virq[HW_PARENT], virq[HW_CHILD]);
	return 0;
}

static int request_sleep(void)
{
	int ret;

	o.log = kcalloc(irqs, sizeof(*o.log), GFP_KERNEL);
	if (!o.log)
		return -ENOMEM;
	init_completion(&done);
	kprof_hrtimer_setup(&done_timer, done_fire, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ret = request_threaded_irq(virq[HW_SLEEP], sleep_hard, sleep_thread, IRQF_NO_THREAD,
				   "kprof_board_sleep", NULL);
	if (ret) {
		kfree(o.log);
		return ret;
	}
	oracle_file();
	pr_info("sleep IRQ %u (%s, %u us)\n", virq[HW_SLEEP], sleep, sleep_us);
	return 0;
}

static void free_sleep(void)
{
	debugfs_remove_recursive(dir);
	free_irq(virq[HW_SLEEP], NULL);
	hrtimer_cancel(&done_timer);
	kfree(o.log);
}

static int __init kprof_test_board_init(void)
{
	int ret = -ENOMEM, i;

	pat = match_string(patterns, NR_PATTERNS, pattern);
	use_completion = !strcmp(sleep, "completion");
	if (pat < 0 || (!use_completion && strcmp(sleep, "msleep")) || !irqs || !period_us)
		return -EINVAL;
	domain = irq_domain_create_linear(NULL, NR_HW, &board_domain_ops, NULL);
	if (!domain)
		return -ENOMEM;
	for (i = 0; i < NR_HW; i++) {
		virq[i] = irq_create_mapping(domain, i);
		if (!virq[i])
			goto err_map;
	}
	switch (pat) {
	case P_SLEEP:
		ret = request_sleep();
		break;
	case P_FORCED:
		ret = request_forced();
		break;
	case P_NESTED:
		ret = request_nested();
		break;
	default:
		ret = request_demux();
	}
	if (ret)
		goto err_map;
	kprof_hrtimer_setup(&timer, board_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_start(&timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL_HARD);
	return 0;

err_map:
	while (--i >= 0)
		irq_dispose_mapping(virq[i]);
	irq_domain_remove(domain);
	return ret;
}

static void __exit kprof_test_board_exit(void)
{
	int i;

	hrtimer_cancel(&timer);
	if (pat == P_SLEEP) {
		free_sleep();
	} else {
		debugfs_remove_recursive(dir);
		free_irq(virq[HW_PARENT], NULL);
		if (pat != P_FORCED)
			free_irq(virq[HW_CHILD], NULL);
	}
	for (i = NR_HW - 1; i >= 0; i--)
		irq_dispose_mapping(virq[i]);
	irq_domain_remove(domain);
}

module_init(kprof_test_board_init);
module_exit(kprof_test_board_exit);

MODULE_DESCRIPTION("kprof test: board interrupt patterns (demultiplexing, a thread that sleeps, forced threading, nested IRQs) on a software IRQ domain");
MODULE_LICENSE("GPL");
