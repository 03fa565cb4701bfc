// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_stress: a test-only driver that races kprof's hooks on one device.
 * One kthread per online CPU (bound to it) and a hard-IRQ hrtimer on each
 * CPU call every hook of the device "stress" concurrently: span 0 is begun
 * by the timer and by the threads, IRQs are entered and exited by the timer
 * and the threads, thread runs begin from the threads. Whatever lands
 * between another hook's clock read and its use must never produce a
 * negative (wrapped) or clamped delta. Writing N to
 * /sys/kernel/debug/kprof_stress/run races for N seconds and returns when
 * every source has stopped, so that a reader can open and close its window
 * while the device is quiet.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>

#include <kprof/kprof.h>

#include "compat.h"

static unsigned int burst = 20;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "hook rounds per thread between sleeps (default 20)");

static unsigned int sleep_us = 500;
module_param(sleep_us, uint, 0444);
MODULE_PARM_DESC(sleep_us, "thread sleep between bursts in us (default 500)");

static unsigned int timer_us = 100;
module_param(timer_us, uint, 0644);
MODULE_PARM_DESC(timer_us, "hrtimer period in us (default 100; takes effect at the next expiry)");

static struct kprof_dev *kdev;
static struct dentry *dir;
static DEFINE_MUTEX(run_mutex);
static const char * const spans[] = { "race", NULL };

struct stress_cpu {
	struct hrtimer timer;
	struct task_struct *thread;
};

static DEFINE_PER_CPU(struct stress_cpu, stress);

static enum hrtimer_restart stress_timer(struct hrtimer *t)
{
	kprof_span_begin(kdev, 0);
	kprof_irq_enter(kdev);
	kprof_irq_exit(kdev, IRQ_WAKE_THREAD);
	hrtimer_forward_now(t, ns_to_ktime((u64)timer_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void stress_round(void)
{
	u64 t = kprof_now();

	kprof_span_begin(kdev, 0);
	kprof_irq_enter(kdev);
	kprof_irq_exit(kdev, IRQ_WAKE_THREAD);
	kprof_batch_begin(kdev);
	kprof_thread_begin(kdev);
	kprof_span_end(kdev, 0);
	kprof_batch_end(kdev, 1);
	kprof_span_end_at(kdev, 0, t);
}

static int stress_thread(void *unused)
{
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < burst; i++)
			stress_round();
		usleep_range(sleep_us, sleep_us + 50);
	}
	return 0;
}

static void stress_stop(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct stress_cpu *s = per_cpu_ptr(&stress, cpu);

		if (s->thread)
			kthread_stop(s->thread);
		s->thread = NULL;
		hrtimer_cancel(&s->timer);
	}
}

static void stress_start_timer(void *unused)
{
	hrtimer_start(&this_cpu_ptr(&stress)->timer, ns_to_ktime((u64)timer_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int stress_start(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct stress_cpu *s = per_cpu_ptr(&stress, cpu);

		/* kthread_create_on_cpu() is not exported before 5.13. */
		s->thread = kthread_create(stress_thread, NULL, "kprof_stress/%u", cpu);
		if (IS_ERR(s->thread)) {
			int ret = PTR_ERR(s->thread);

			s->thread = NULL;
			stress_stop();
			return ret;
		}
		kthread_bind(s->thread, cpu);
		wake_up_process(s->thread);
	}
	on_each_cpu(stress_start_timer, NULL, 1);
	return 0;
}

/* Race for the number of seconds written, then stop everything. */
static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	unsigned int secs;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &secs);
	if (ret)
		return ret;
	if (!secs || secs > 600)
		return -EINVAL;
	mutex_lock(&run_mutex);
	cpus_read_lock();
	ret = stress_start();
	cpus_read_unlock();
	if (!ret) {
		msleep_interruptible(secs * MSEC_PER_SEC);
		cpus_read_lock();
		stress_stop();
		cpus_read_unlock();
	}
	mutex_unlock(&run_mutex);
	return ret ? ret : count;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = run_write,
	.llseek = noop_llseek,
};

static int __init stress_init(void)
{
	struct kprof_dev_info info = { .irq = -1, .span_names = spans };
	int cpu;

	if (!burst || !timer_us)
		return -EINVAL;
	kdev = kprof_dev_register("stress", &info);
	if (IS_ERR(kdev))
		return PTR_ERR(kdev);
	for_each_possible_cpu(cpu)
		kprof_hrtimer_setup(&per_cpu_ptr(&stress, cpu)->timer, stress_timer,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0200, dir, NULL, &run_fops);
	return 0;
}

static void __exit stress_exit(void)
{
	/* Waits for a run in progress: its writer holds the module. */
	debugfs_remove_recursive(dir);
	kprof_dev_unregister(kdev);
}

module_init(stress_init);
module_exit(stress_exit);

MODULE_DESCRIPTION("kprof test: hooks of one device raced from threads and hard IRQ on every CPU");
MODULE_LICENSE("GPL");
