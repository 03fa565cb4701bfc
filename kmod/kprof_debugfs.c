// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: each device's files kprof/<dev>/{counters,latency,emitted,spans,
 * reset,hist}, and kprof/aggregate and kprof/misuse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

const char * const kprof_kind_names[KPROF_K_SPAN0] = {
	[KPROF_K_IRQ_THREAD] = "irq_thread_latency",
	[KPROF_K_IRQ_HANDLER] = "irq_handler",
	[KPROF_K_BATCH] = "batch",
};

/* debugfs: kprof/<dev>/{counters,latency,emitted,spans,reset,hist} */

#define COUNTER(f)	{ #f, offsetof(struct kprof_counters, f) }
static const struct {
	const char *name;
	size_t off;
} counters[] = {
	COUNTER(irqs), COUNTER(wakes), COUNTER(thread_runs), COUNTER(unpaired_runs),
	COUNTER(coalesced), COUNTER(batches), COUNTER(packets), COUNTER(spans),
	COUNTER(backwards), COUNTER(hook_calls),
};

static const char * const event_names[KPROF_NR_EVENTS] = {
	[KPROF_EV_IRQ_THREAD] = "kprof_irq_thread_latency",
	[KPROF_EV_IRQ_HANDLER] = "kprof_irq_handler",
	[KPROF_EV_BATCH] = "kprof_batch",
	[KPROF_EV_SPAN] = "kprof_span",
};

static u64 counter_at(const struct kprof_counters *c, size_t off)
{
	return *(const u64 *)((const char *)c + off);
}

static void counters_print(struct seq_file *m, const struct kprof_counters *snap)
{
	u64 total[ARRAY_SIZE(counters)] = {};
	int cpu, i;

	seq_puts(m, "cpu");
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		seq_printf(m, " %s", counters[i].name);
	seq_putc(m, '\n');
	for_each_possible_cpu(cpu) {
		seq_printf(m, "%d", cpu);
		for (i = 0; i < ARRAY_SIZE(counters); i++) {
			u64 c = counter_at(&snap[cpu], counters[i].off);

			total[i] += c;
			seq_printf(m, " %llu", c);
		}
		seq_putc(m, '\n');
	}
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		seq_printf(m, "%s: %llu\n", counters[i].name, total[i]);
}

/*
 * Every CPU's counters, each CPU's copied whole under the lock, one CPU at
 * a time: the hooks wait for one CPU's copy, never for all of them.
 */
static int counters_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	struct kprof_counters *snap;
	int cpu;

	snap = kcalloc(nr_cpu_ids, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct kprof_pcpu *pc = per_cpu_ptr(dev->pcpu, cpu);

		raw_spin_lock_irq(&pc->lock);
		snap[cpu] = pc->c;
		snap[cpu].hook_calls += local64_read(&pc->begins) - pc->c.begins_at_reset;
		raw_spin_unlock_irq(&pc->lock);
	}
	counters_print(m, snap);
	kfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counters);

static void lat_merge(struct kprof_lat *sum, const struct kprof_lat *l)
{
	int b;

	if (!l->count)
		return;
	if (!sum->count || l->min < sum->min)
		sum->min = l->min;
	sum->max = max(sum->max, l->max);
	sum->count += l->count;
	sum->sum += l->sum;
	for (b = 0; b < KPROF_HIST_BUCKETS; b++)
		sum->buckets[b] += l->buckets[b];
}

static void lat_show_one(struct seq_file *m, const char *kind, const char *name,
			 const struct kprof_lat *l)
{
	int b;

	seq_printf(m, "%s%s%s count=%llu min_ns=%llu mean_ns=%llu max_ns=%llu\n",
		   kind, name ? ":" : "", name ?: "", l->count,
		   l->min, l->count ? div64_u64(l->sum, l->count) : 0, l->max);
	for (b = 0; b < KPROF_HIST_BUCKETS; b++) {
		if (!l->buckets[b])
			continue;
		seq_printf(m, "  [%llu, %llu) %llu\n",
			   b ? 1ULL << (b - 1) : 0ULL,
			   b < 64 ? 1ULL << b : U64_MAX, l->buckets[b]);
	}
}

/* Every kind summed over the CPUs, each CPU's merged under the lock in turn. */
static int latency_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	unsigned int k, nk = KPROF_K_SPAN0 + dev->nr_spans;
	struct kprof_lat *sum;
	int cpu;

	sum = kcalloc(nk, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct kprof_pcpu *pc = per_cpu_ptr(dev->pcpu, cpu);

		raw_spin_lock_irq(&pc->lock);
		for (k = 0; k < nk; k++)
			lat_merge(&sum[k], &pc->lat[k]);
		raw_spin_unlock_irq(&pc->lock);
	}
	for (k = 0; k < nk; k++) {
		if (k < KPROF_K_SPAN0)
			lat_show_one(m, kprof_kind_names[k], NULL, &sum[k]);
		else
			lat_show_one(m, "span", dev->span_names[k - KPROF_K_SPAN0], &sum[k]);
	}
	kfree(sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

/*
 * The seq of the last event of each kind emitted; reset does not touch it.
 * A hook assigns seq and emits under its CPU's lock: once each CPU's lock
 * has been taken after the reading, every event it counts is in the trace.
 */
static int emitted_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	u64 seq[KPROF_NR_EVENTS];
	int i, cpu;

	for (i = 0; i < KPROF_NR_EVENTS; i++)
		seq[i] = atomic64_read(&dev->seq[i]);
	smp_mb();	/* the reading before the locks */
	for_each_possible_cpu(cpu) {
		struct kprof_pcpu *pc = per_cpu_ptr(dev->pcpu, cpu);

		raw_spin_lock_irq(&pc->lock);
		raw_spin_unlock_irq(&pc->lock);
	}
	for (i = 0; i < KPROF_NR_EVENTS; i++)
		seq_printf(m, "%s: %llu\n", event_names[i], seq[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emitted);

static int spans_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	unsigned int i;

	for (i = 0; i < dev->nr_spans; i++)
		seq_printf(m, "%u %s\n", i, dev->span_names[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(spans);

/* kprof/misuse: the hook calls ignored, summed over the CPUs. */
static int misuse_show(struct seq_file *m, void *v)
{
	unsigned long null_dev = 0, nmi = 0, bad_span = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct kprof_misuse *c = per_cpu_ptr(&kprof_misuse, cpu);

		null_dev += READ_ONCE(c->null_dev);
		nmi += READ_ONCE(c->nmi);
		bad_span += READ_ONCE(c->bad_span);
	}
	seq_printf(m, "null_dev: %lu\nnmi: %lu\nbad_span: %lu\n", null_dev, nmi, bad_span);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(misuse);

void kprof_devs_init(struct dentry *root)
{
	kprof_agg_init(root);
	debugfs_create_file(KPROF_FILE(MISUSE), 0400, root, NULL, &misuse_fops);
}

static void kind_print(struct seq_file *m, struct kprof_dev *dev, unsigned int kind)
{
	if (kind < KPROF_K_SPAN0)
		seq_printf(m, "%s", kprof_kind_names[kind]);
	else
		seq_printf(m, "span:%s", dev->span_names[kind - KPROF_K_SPAN0]);
}

static void hist_print(struct seq_file *m, struct kprof_dev *dev, unsigned int kind,
		       int cpu, const struct kprof_hist *h)
{
	kind_print(m, dev, kind);
	seq_printf(m, " %d", cpu);
	kprof_hist_print(m, h);
}

/* @a's histogram of @kind on @cpu into @h, if it has one; kprof_dev_mutex held. */
static bool hist_copy(struct kprof_dev *dev, struct kprof_dev_agg *a, int cpu,
		      unsigned int kind, struct kprof_hist *h, u64 *untracked)
{
	struct kprof_dev_cell *c = &a->cell[cpu * kprof_nr_kinds(dev) + kind];
	raw_spinlock_t *lock = &per_cpu_ptr(dev->pcpu, cpu)->lock;
	struct kprof_hist *src;

	raw_spin_lock_irq(lock);
	src = c->h;
	*untracked = c->untracked;
	raw_spin_unlock_irq(lock);
	if (IS_ERR_OR_NULL(src))
		return false;
	kprof_hist_copy(lock, h, src);
	return true;
}

/*
 * kprof/<dev>/hist: the layout, the state, then a line per CPU and kind
 * with samples, and one per CPU and kind with samples not aggregated
 * (struct kprof_cells):
 *   KIND CPU COUNT SUM MIN MAX BUCKET:N ...
 *   untracked CPU KIND N
 */
static int hist_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	struct kprof_dev_agg *a;
	struct kprof_hist *h;
	unsigned int k;
	u64 untracked;
	int cpu;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	seq_printf(m, "layout sub_bits=%u kernel_bits=%u buckets=%llu\n",
		   KPROF_HIST_SUB_BITS, KPROF_HIST_KERNEL_BITS,
		   (u64)KPROF_HIST_KERNEL_BUCKETS);
	mutex_lock(&kprof_dev_mutex);
	seq_printf(m, "state %u\n", kprof_dev_agg.state);
	kprof_dev_agg_fill(dev);
	a = rcu_dereference_protected(dev->agg, lockdep_is_held(&kprof_dev_mutex));
	for_each_possible_cpu(cpu) {
		for (k = 0; a && k < kprof_nr_kinds(dev); k++) {
			if (hist_copy(dev, a, cpu, k, h, &untracked) && h->count)
				hist_print(m, dev, k, cpu, h);
			if (untracked) {
				seq_printf(m, "untracked %d ", cpu);
				kind_print(m, dev, k);
				seq_printf(m, " %llu\n", untracked);
			}
		}
	}
	mutex_unlock(&kprof_dev_mutex);
	kvfree(h);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct kprof_dev *dev = file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	kprof_dev_reset_stats(dev);
	return count;
}

static ssize_t reset_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	static const char help[] = "write 1 to zero this device's counters and histograms\n";

	return simple_read_from_buffer(ubuf, count, ppos, help, sizeof(help) - 1);
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = reset_read,
	.write = reset_write,
	.llseek = noop_llseek,
};

/* @dev's files in its directory kprof/<dev>/ (nothing without debugfs). */
void kprof_dev_files(struct kprof_dev *dev)
{
	debugfs_create_file("counters", 0400, dev->dir, dev, &counters_fops);
	debugfs_create_file("latency", 0400, dev->dir, dev, &latency_fops);
	debugfs_create_file("emitted", 0400, dev->dir, dev, &emitted_fops);
	debugfs_create_file("spans", 0400, dev->dir, dev, &spans_fops);
	debugfs_create_file("reset", 0600, dev->dir, dev, &reset_fops);
	debugfs_create_file("hist", 0400, dev->dir, dev, &hist_fops);
}
