// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: interrupt patterns of real boards on a software IRQ
 * domain, with its own counts as the oracle (tests/vm/girq_demux.sh).
 *
 * Demultiplexing: a parent IRQ whose hard handler calls generic_handle_irq()
 * for a child IRQ of the same domain, as a GPIO or PMIC interrupt
 * controller's chained handler does, so that the child's hard handler nests
 * inside the parent's on one CPU. A hard hrtimer raises the parent @irqs
 * times, every @period_us. Both are IRQF_NO_THREAD, hard even on
 * PREEMPT_RT, as a chained handler is. The parent spends @parent_us of its
 * own and the child @child_us.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/module.h>

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

/* The oracle: handler runs, read from /sys/module/kprof_test_board/parameters. */
static atomic_t parent_runs = ATOMIC_INIT(0);
static atomic_t child_runs = ATOMIC_INIT(0);
module_param_named(parent_runs, parent_runs.counter, int, 0444);
module_param_named(child_runs, child_runs.counter, int, 0444);

enum { HW_PARENT, HW_CHILD, NR_HW };

static struct irq_domain *domain;
static unsigned int virq[NR_HW];
static struct hrtimer timer;
static unsigned int raised;

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

static enum hrtimer_restart board_timer(struct hrtimer *t)
{
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

static int __init kprof_test_board_init(void)
{
	int ret = -ENOMEM, i;

	domain = irq_domain_create_linear(NULL, NR_HW, &board_domain_ops, NULL);
	if (!domain)
		return -ENOMEM;
	for (i = 0; i < NR_HW; i++) {
		virq[i] = irq_create_mapping(domain, i);
		if (!virq[i])
			goto err_map;
	}
	ret = request_irq(virq[HW_CHILD], child_hard, IRQF_NO_THREAD, "kprof_board_child", NULL);
	if (ret)
		goto err_map;
	ret = request_irq(virq[HW_PARENT], parent_hard, IRQF_NO_THREAD, "kprof_board_parent", NULL);
	if (ret)
		goto err_child;
	pr_info("parent IRQ %u, child IRQ %u\n", virq[HW_PARENT], virq[HW_CHILD]);
	kprof_hrtimer_setup(&timer, board_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_start(&timer, ns_to_ktime((u64)period_us * NSEC_PER_USEC), HRTIMER_MODE_REL_HARD);
	return 0;

err_child:
	free_irq(virq[HW_CHILD], NULL);
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
	free_irq(virq[HW_PARENT], NULL);
	free_irq(virq[HW_CHILD], NULL);
	for (i = NR_HW - 1; i >= 0; i--)
		irq_dispose_mapping(virq[i]);
	irq_domain_remove(domain);
}

module_init(kprof_test_board_init);
module_exit(kprof_test_board_exit);

MODULE_DESCRIPTION("kprof test: board interrupt patterns (demultiplexing) on a software IRQ domain");
MODULE_LICENSE("GPL");
