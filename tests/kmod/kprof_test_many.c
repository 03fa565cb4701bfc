// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: many IRQ threads with requests pending at once
 * (tests/vm/girq_many.sh), as a NIC or NVMe controller with a queue per CPU
 * has on a large machine. @threads threaded IRQs on a software IRQ domain;
 * their primary handlers (IRQF_NO_THREAD: hard even on PREEMPT_RT) ask for
 * their threads. Writing 1 to debugfs kprof_test_many/fire raises every
 * IRQ once from a hard hrtimer. The first run of each thread function
 * sleeps until 1 is written to kprof_test_many/release, so that after two
 * fires every thread is in a run with a request pending. kprof_test_many/
 * state holds the module's own counts: hard handler calls, thread runs,
 * threads asleep in their first run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "compat.h"

static unsigned int threads = 512;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "threaded IRQs (1..4096, default 512)");

#define MAX_THREADS	4096

static struct irq_domain *domain;
static unsigned int *virq;
static unsigned int requested;
static struct dentry *dir;
static struct hrtimer fire_timer;
static DECLARE_COMPLETION(gate);
static atomic_t hard_calls = ATOMIC_INIT(0);
static atomic_t runs = ATOMIC_INIT(0);
static atomic_t waiting = ATOMIC_INIT(0);
static bool *ran;	/* a thread's first run has begun; its own thread writes it */

static irqreturn_t many_hard(int irq, void *dev_id)
{
	atomic_inc(&hard_calls);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t many_thread(int irq, void *dev_id)
{
	bool *first = dev_id;

	atomic_inc(&runs);
	if (!*first) {
		*first = true;
		atomic_inc(&waiting);
		wait_for_completion(&gate);
		atomic_dec(&waiting);
	}
	return IRQ_HANDLED;
}

static enum hrtimer_restart fire_fn(struct hrtimer *t)
{
	unsigned int i;

	for (i = 0; i < requested; i++)
		generic_handle_irq(virq[i]);
	return HRTIMER_NORESTART;
}

/* A write of 1 to @file: 0, or why not. */
static int write_one(const char __user *ubuf, size_t count)
{
	unsigned int val;
	int ret = kstrtouint_from_user(ubuf, count, 10, &val);

	if (ret)
		return ret;
	return val == 1 ? 0 : -EINVAL;
}

static ssize_t fire_write(struct file *file, const char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	int ret = write_one(ubuf, count);

	if (ret)
		return ret;
	hrtimer_start(&fire_timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	return count;
}

static const struct file_operations fire_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fire_write,
	.llseek = noop_llseek,
};

static ssize_t release_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	int ret = write_one(ubuf, count);

	if (ret)
		return ret;
	complete_all(&gate);
	return count;
}

static const struct file_operations release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = release_write,
	.llseek = noop_llseek,
};

static int state_show(struct seq_file *m, void *v)
{
	seq_printf(m, "threads %u\nhard %d\nruns %d\nwaiting %d\n", requested,
		   atomic_read(&hard_calls), atomic_read(&runs), atomic_read(&waiting));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

static int many_map(struct irq_domain *d, unsigned int v, irq_hw_number_t hw)
{
	irq_set_chip_and_handler(v, &dummy_irq_chip, handle_simple_irq);
	return 0;
}

static const struct irq_domain_ops many_domain_ops = {
	.map = many_map,
	.xlate = irq_domain_xlate_onecell,
};

/* Every IRQ requested so far freed, every mapping disposed, the domain removed. */
static void many_teardown(void)
{
	unsigned int i;

	complete_all(&gate);
	hrtimer_cancel(&fire_timer);
	for (i = 0; i < requested; i++)
		free_irq(virq[i], &ran[i]);
	for (i = 0; i < threads; i++)
		if (virq[i])
			irq_dispose_mapping(virq[i]);
	irq_domain_remove(domain);
}

static int many_request(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < threads; i++) {
		virq[i] = irq_create_mapping(domain, i);
		if (!virq[i])
			return -ENOMEM;
	}
	for (i = 0; i < threads; i++) {
		ret = request_threaded_irq(virq[i], many_hard, many_thread, IRQF_NO_THREAD,
					   "kprof_many", &ran[i]);
		if (ret)
			return ret;
		requested++;
	}
	return 0;
}

static int __init many_init(void)
{
	int ret = -ENOMEM;

	if (!threads || threads > MAX_THREADS) {
		pr_err("threads=%u: want 1..%u\n", threads, MAX_THREADS);
		return -EINVAL;
	}
	kprof_hrtimer_setup(&fire_timer, fire_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	virq = kcalloc(threads, sizeof(*virq), GFP_KERNEL);
	ran = kcalloc(threads, sizeof(*ran), GFP_KERNEL);
	if (!virq || !ran)
		goto err_free;
	domain = irq_domain_create_linear(NULL, threads, &many_domain_ops, NULL);
	if (!domain)
		goto err_free;
	ret = many_request();
	if (ret)
		goto err_teardown;
	dir = debugfs_create_dir("kprof_test_many", NULL);
	debugfs_create_file("fire", 0200, dir, NULL, &fire_fops);
	debugfs_create_file("release", 0200, dir, NULL, &release_fops);
	debugfs_create_file("state", 0400, dir, NULL, &state_fops);
	pr_info("%u threaded IRQs, %u to %u\n", threads, virq[0], virq[threads - 1]);
	return 0;

err_teardown:
	many_teardown();
err_free:
	kfree(ran);
	kfree(virq);
	return ret;
}

static void __exit many_exit(void)
{
	debugfs_remove_recursive(dir);
	many_teardown();
	kfree(ran);
	kfree(virq);
}

module_init(many_init);
module_exit(many_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprof test: many IRQ threads with requests pending at once");
