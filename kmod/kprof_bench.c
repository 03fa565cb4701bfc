// SPDX-License-Identifier: GPL-2.0
/*
 * kprof/bench: what a hook costs. Writing N times a small workload N
 * times in each of six states:
 *
 *   baseline  the workload alone, no hook compiled in;
 *   key_off   the workload between kprof_batch_begin()/kprof_batch_end(),
 *             nobody listening (the static branches are NOPs);
 *   key_on    the same with kprof_batch enabled in the bench's own trace
 *             instance "kprof_bench" (each iteration writes one event there,
 *             never into the top-level buffer);
 *   bare_on   the workload, then a bare one-field event (kprof_bench_bare,
 *             kprof_bench_trace.h) enabled in the same instance: what an
 *             enabled hook pair is measured against.
 *
 * and two that take key_on apart, each with its event enabled there too:
 *
 *   clock2    the workload between two ktime_get_ns() reads, then the bare
 *             event with their difference: the least any hook pair that
 *             times the workload and emits costs;
 *   batch_ev  the workload, then trace_kprof_batch() with the device's name
 *             and made-up values: the kprof_batch event alone, without
 *             the hooks' clock reads, lock, counters and pairing.
 *
 * The iterations run in at most BENCH_MAX_ROUNDS rounds of the same size
 * for every state (enabling and disabling an event costs text patching, so
 * key_on and bare_on rounds are few), each round in sections that take about
 * a millisecond in the key_on state; preemption is off only inside a
 * section, and the writer can be interrupted between sections. Each round
 * runs the states in a rotating order, so drift in clock speed or cache state
 * hits them alike. Reading prints, per state, the minimum,
 * median and maximum over the rounds in ns per iteration, and the ratio of
 * the minima to the baseline's. The writer must find kprof idle (no kprof
 * event enabled anywhere, kprof/enable = 0), else -EBUSY.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "kprof_internal.h"

#include <trace/events/kprof.h>

#define CREATE_TRACE_POINTS
#include "kprof_bench_trace.h"

#define BENCH_MAX_ITERS		100000000U
#define BENCH_SECTION_NS	NSEC_PER_MSEC	/* a key_on section, about */
#define BENCH_MIN_SECTION	16U
#define BENCH_MAX_ROUNDS	50U
#define BENCH_INSTANCE		"kprof_bench"

enum { B_BASE, B_OFF, B_ON, B_BARE, B_CLOCK2, B_BATCH_EV, B_NR };
static const char * const state_names[B_NR] = {
	"baseline", "key_off", "key_on", "bare_on", "clock2", "batch_ev",
};

static DEFINE_MUTEX(bench_mutex);
static struct {
	unsigned int iters, rounds, chunk, section;
	u64 min_ps[B_NR], med_ps[B_NR], max_ps[B_NR];	/* per iteration */
} result;

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

static noinline u64 bench_loop_bare(struct kprof_dev *dev, unsigned int n, u32 *acc)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		*acc = bench_work(*acc + i);
		trace_kprof_bench_bare(*acc);
	}
	return ktime_get_ns() - t0;
}

static noinline u64 bench_loop_clock2(struct kprof_dev *dev, unsigned int n, u32 *acc)
{
	u64 t0 = ktime_get_ns(), t;
	unsigned int i;

	for (i = 0; i < n; i++) {
		t = ktime_get_ns();
		*acc = bench_work(*acc + i);
		trace_kprof_bench_bare(*acc + (u32)(ktime_get_ns() - t));
	}
	return ktime_get_ns() - t0;
}

static noinline u64 bench_loop_batch_ev(struct kprof_dev *dev, unsigned int n, u32 *acc)
{
	u64 t0 = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < n; i++) {
		*acc = bench_work(*acc + i);
		trace_kprof_batch(dev->name, dev->name_len, 1, *acc, i);
	}
	return ktime_get_ns() - t0;
}

/* The event @state writes, enabled or disabled in the bench's instance. */
static int bench_listen(struct trace_array *tr, int state, bool on)
{
	if (state == B_BARE || state == B_CLOCK2)
		return trace_array_set_clr_event(tr, "kprof_bench", "kprof_bench_bare", on);
	if (state == B_ON || state == B_BATCH_EV)
		return trace_array_set_clr_event(tr, "kprof", "kprof_batch", on);
	return 0;
}

static u64 (*const bench_loops[B_NR])(struct kprof_dev *, unsigned int, u32 *) = {
	[B_BASE] = bench_loop_base, [B_OFF] = bench_loop_hooked, [B_ON] = bench_loop_hooked,
	[B_BARE] = bench_loop_bare, [B_CLOCK2] = bench_loop_clock2,
	[B_BATCH_EV] = bench_loop_batch_ev,
};

/* @n iterations in @state, in sections with preemption points between. */
static int bench_loop(struct kprof_dev *dev, int state, unsigned int n,
		      unsigned int section, u32 *acc, u64 *ns)
{
	unsigned int done, this;

	*ns = 0;
	for (done = 0; done < n; done += this) {
		this = min(section, n - done);
		preempt_disable();
		*ns += bench_loops[state](dev, this, acc);
		preempt_enable();
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/* One round of @n iterations in @state; its time in ns through @ns. */
static int bench_round(struct kprof_dev *dev, struct trace_array *tr, int state,
		       unsigned int n, unsigned int section, u32 *acc, u64 *ns)
{
	int ret, ret2;

	ret = bench_listen(tr, state, true);
	if (ret)
		return ret;
	ret = bench_loop(dev, state, n, section, acc, ns);
	ret2 = bench_listen(tr, state, false);
	return ret ?: ret2;
}

/* Iterations per section: a key_on section of about BENCH_SECTION_NS. */
static int bench_section(struct kprof_dev *dev, struct trace_array *tr,
			 u32 *acc, unsigned int *section)
{
	u64 ns, per_iter;
	int i, ret;

	/* The first run is cold (cache, first event of the instance). */
	for (i = 0; i < 2; i++) {
		ret = bench_round(dev, tr, B_ON, BENCH_MIN_SECTION, BENCH_MIN_SECTION, acc, &ns);
		if (ret)
			return ret;
	}
	per_iter = max_t(u64, div_u64(ns, BENCH_MIN_SECTION), 1);
	*section = clamp_t(u64, div64_u64(BENCH_SECTION_NS, per_iter), BENCH_MIN_SECTION, U32_MAX);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int bench_rounds(struct kprof_dev *dev, struct trace_array *tr, unsigned int n,
			unsigned int rounds, unsigned int section, u64 **ps, u32 *acc)
{
	unsigned int chunk = DIV_ROUND_UP(n, rounds), r, i;
	u64 ns;
	int ret;

	for (r = 0; r < rounds; r++) {
		unsigned int this = min(chunk, n - r * chunk);

		for (i = 0; i < B_NR; i++) {
			int s = (r + i) % B_NR;

			ret = bench_round(dev, tr, s, this, section, acc, &ns);
			if (ret)
				return ret;
			ps[s][r] = div_u64(ns * 1000, this);
		}
	}
	for (i = 0; i < B_NR; i++) {
		sort(ps[i], rounds, sizeof(u64), cmp_u64, NULL);
		result.min_ps[i] = ps[i][0];
		result.med_ps[i] = ps[i][rounds / 2];
		result.max_ps[i] = ps[i][rounds - 1];
	}
	result.iters = n;
	result.rounds = rounds;
	result.chunk = chunk;
	result.section = section;
	return 0;
}

static int bench_run(unsigned int n)
{
	u64 *ps[B_NR] = {};
	struct trace_array *tr;
	struct kprof_dev *dev;
	unsigned int section, rounds;
	u32 acc = 1;
	int i, ret;

	if (static_key_enabled(&kprof_active))
		return -EBUSY;
	dev = kprof_dev_register("kprof_bench", NULL);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	tr = kprof_trace_array_get(BENCH_INSTANCE);
	if (!tr) {
		ret = -ENOMEM;
		goto out_dev;
	}
	ret = bench_section(dev, tr, &acc, &section);
	if (ret)
		goto out_tr;
	/* As many rounds as sections, within BENCH_MAX_ROUNDS; at least 1. */
	rounds = clamp_t(unsigned int, DIV_ROUND_UP(n, section), 1, min(n, BENCH_MAX_ROUNDS));
	for (i = 0; i < B_NR; i++) {
		ps[i] = kvmalloc_array(rounds, sizeof(u64), GFP_KERNEL);
		if (!ps[i]) {
			ret = -ENOMEM;
			goto out_ps;
		}
	}
	ret = bench_rounds(dev, tr, n, rounds, section, ps, &acc);
out_ps:
	for (i = 0; i < B_NR; i++)
		kvfree(ps[i]);
out_tr:
	bench_listen(tr, B_ON, false);
	bench_listen(tr, B_BARE, false);	/* and so B_CLOCK2's and B_BATCH_EV's */
	trace_array_put(tr);
	trace_array_destroy(tr);
out_dev:
	kprof_dev_unregister(dev);
	/* Keep the workload's result alive. */
	return acc == 0 ? 1 : ret;
}

/* @ps picoseconds as "ns.mmm" */
static void show_ns(struct seq_file *m, const char *what, u64 ps)
{
	u32 rem;
	u64 ns = div_u64_rem(ps, 1000, &rem);

	seq_printf(m, " %s %llu.%03u", what, ns, rem);
}

/* @num / @den as " N.NNNN", integer only */
static void show_ratio(struct seq_file *m, u64 num, u64 den)
{
	u32 frac;
	u64 whole = div_u64_rem(div64_u64(num * 10000, max_t(u64, den, 1)), 10000, &frac);

	seq_printf(m, " %llu.%04u", whole, frac);
}

static int bench_show(struct seq_file *m, void *v)
{
	int s;

	if (mutex_lock_interruptible(&bench_mutex))
		return -EINTR;
	if (!result.iters) {
		seq_puts(m, "no run yet: write an iteration count, e.g. 1000000\n");
		goto out;
	}
	seq_printf(m, "iterations: %u\nrounds: %u of %u iterations per state, interleaved, in sections of %u\n",
		   result.iters, result.rounds, result.chunk, result.section);
	for (s = 0; s < B_NR; s++) {
		seq_printf(m, "%s:", state_names[s]);
		show_ns(m, "min", result.min_ps[s]);
		show_ns(m, "median", result.med_ps[s]);
		show_ns(m, "max", result.max_ps[s]);
		seq_puts(m, " ns/iter, min");
		show_ratio(m, result.min_ps[s], result.min_ps[B_BASE]);
		seq_puts(m, " x baseline\n");
	}
	/* What the two disabled hooks add per iteration, at the minima. */
	seq_printf(m, "key_off_overhead: %lld ps/iter\n",
		   (s64)result.min_ps[B_OFF] - (s64)result.min_ps[B_BASE]);
	/* An enabled hook pair against a bare event, both over the workload. */
	seq_puts(m, "key_on_vs_bare_on: min");
	show_ratio(m, result.min_ps[B_ON], result.min_ps[B_BARE]);
	seq_puts(m, " x\n");
	/* The same taken apart: the two clock reads, and the event itself. */
	seq_puts(m, "clock2_vs_bare_on: min");
	show_ratio(m, result.min_ps[B_CLOCK2], result.min_ps[B_BARE]);
	seq_puts(m, " x\nbatch_ev_vs_bare_on: min");
	show_ratio(m, result.min_ps[B_BATCH_EV], result.min_ps[B_BARE]);
	seq_puts(m, " x\n");
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
	/*
	 * Interruptible: a second writer waits here for as long as a run
	 * lasts (minutes for 10^8 iterations under a debug kernel), which
	 * an uninterruptible wait turns into a hung-task report.
	 */
	if (mutex_lock_interruptible(&bench_mutex))
		return -EINTR;
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
	debugfs_create_file(KPROF_FILE(BENCH), 0600, root, NULL, &bench_fops);
}
