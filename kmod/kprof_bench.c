// SPDX-License-Identifier: GPL-2.0
/*
 * kprof/bench: what a hook costs. Writing N runs N iterations of a small
 * workload in three states, interleaved over several rounds in one run:
 *
 *   baseline  the workload alone, no hook compiled in;
 *   key_off   the workload between kprof_batch_begin()/kprof_batch_end(),
 *             nobody listening (the static branches are NOPs);
 *   key_on    the same with the kprof_batch event enabled in the top-level
 *             tracefs instance (each iteration writes one event).
 *
 * Reading prints ns per iteration (the best round of each state) and the
 * ratio to the baseline. The writer must find kprof idle (no kprof event
 * enabled anywhere, kprof/enable = 0), else -EBUSY.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

#define BENCH_ROUNDS	7
#define BENCH_MAX_ITERS	100000000U

enum { B_BASE, B_OFF, B_ON, B_NR };
static const char * const state_names[B_NR] = { "baseline", "key_off", "key_on" };

static DEFINE_MUTEX(bench_mutex);
static u64 result_ns[B_NR];	/* best round, total ns */
static unsigned int result_iters;

/* The instrumented "driver": a little arithmetic the compiler cannot drop. */
static noinline u32 bench_work(u32 x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static noinline u64 bench_loop_base(struct kprof_dev *dev, unsigned int n, u32 *acc)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++)
		*acc = bench_work(*acc + i);
	return ktime_get_ns() - t0;
}

static noinline u64 bench_loop_hooked(struct kprof_dev *dev, unsigned int n, u32 *acc)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		kprof_batch_begin(dev);
		*acc = bench_work(*acc + i);
		kprof_batch_end(dev, 1);
	}
	return ktime_get_ns() - t0;
}

static u64 bench_round(struct kprof_dev *dev, int state, unsigned int n, u32 *acc)
{
	u64 ns;

	preempt_disable();
	if (state == B_BASE)
		ns = bench_loop_base(dev, n, acc);
	else
		ns = bench_loop_hooked(dev, n, acc);
	preempt_enable();
	return ns;
}

static int bench_run(unsigned int n)
{
	u64 best[B_NR] = { U64_MAX, U64_MAX, U64_MAX };
	struct kprof_dev *dev;
	u32 acc = 1;
	int r, s, ret;

	if (static_key_enabled(&kprof_active))
		return -EBUSY;
	dev = kprof_dev_register("kprof_bench", NULL);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	for (r = 0; r < BENCH_ROUNDS; r++)
		for (s = B_BASE; s <= B_OFF; s++)
			best[s] = min(best[s], bench_round(dev, s, n, &acc));

	ret = trace_set_clr_event("kprof", "kprof_batch", 1);
	if (ret)
		goto out;
	for (r = 0; r < BENCH_ROUNDS; r++)
		best[B_ON] = min(best[B_ON], bench_round(dev, B_ON, n, &acc));
	trace_set_clr_event("kprof", "kprof_batch", 0);

	memcpy(result_ns, best, sizeof(best));
	result_iters = n;
out:
	kprof_dev_unregister(dev);
	/* Keep the workload's result alive. */
	return acc == 0 ? 1 : ret;
}

static int bench_show(struct seq_file *m, void *v)
{
	int s;

	mutex_lock(&bench_mutex);
	if (!result_iters) {
		seq_puts(m, "no run yet: write an iteration count, e.g. 1000000\n");
		goto out;
	}
	seq_printf(m, "iterations: %u\nrounds: %d\n", result_iters, BENCH_ROUNDS);
	for (s = 0; s < B_NR; s++) {
		/* milli-ns per iteration and per-mille of baseline, integer only */
		u64 pns = div64_u64(result_ns[s] * 1000, result_iters);
		u64 ratio = div64_u64(result_ns[s] * 10000, max(result_ns[B_BASE], 1ULL));

		seq_printf(m, "%s: %llu.%03llu ns/iter, %llu.%04llu x baseline\n",
			   state_names[s], pns / 1000, pns % 1000,
			   ratio / 10000, ratio % 10000);
	}
	/* What the two disabled hooks add per iteration, in picoseconds. */
	seq_printf(m, "key_off_overhead: %lld ps/iter\n",
		   div64_s64(((s64)result_ns[B_OFF] - (s64)result_ns[B_BASE]) * 1000,
			     result_iters));
out:
	mutex_unlock(&bench_mutex);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, NULL);
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &n);
	if (ret)
		return ret;
	if (!n || n > BENCH_MAX_ITERS)
		return -EINVAL;
	mutex_lock(&bench_mutex);
	ret = bench_run(n);
	mutex_unlock(&bench_mutex);
	return ret ? ret : count;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.write = bench_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void kprof_bench_init(struct dentry *root)
{
	debugfs_create_file("bench", 0600, root, NULL, &bench_fops);
}
