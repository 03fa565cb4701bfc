// SPDX-License-Identifier: GPL-2.0
/*
 * kprof devices: the registry, the out-of-line halves of the driver hooks,
 * and each device's debugfs directory kprof/<dev>/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/kprof.h>

static LIST_HEAD(kprof_devices);
static DEFINE_MUTEX(kprof_dev_mutex);

/* TRACE_EVENT_FN callbacks: a listener on any kprof event holds the key. */
int kprof_trace_reg(void)
{
	return kprof_key_get();
}

void kprof_trace_unreg(void)
{
	kprof_key_put();
}

static const char * const kind_names[KPROF_K_SPAN0] = {
	[KPROF_K_IRQ_THREAD] = "irq_thread_latency",
	[KPROF_K_IRQ_HANDLER] = "irq_handler",
	[KPROF_K_BATCH] = "batch",
};

void kprof_lat_add(struct kprof_lat *lat, u64 ns)
{
	if (!lat->count || ns < lat->min)
		lat->min = ns;
	if (ns > lat->max)
		lat->max = ns;
	lat->count++;
	lat->sum += ns;
	lat->buckets[fls64(ns)]++;
}

/* Record one sample of @kind. Caller holds dev->lock (IRQs off). */
static void record(struct kprof_dev *dev, enum kprof_kind kind, u64 ns)
{
	kprof_lat_add(&this_cpu_ptr(dev->pcpu)->lat[kind], ns);
}

/*
 * Close the interval opened at *@slot: take and clear the start under the
 * lock and record the sample. False if nothing was open (the key came on
 * in between).
 */
static bool finish(struct kprof_dev *dev, u64 *slot, enum kprof_kind kind,
		   u64 now, u64 *ns)
{
	unsigned long flags;
	u64 start;

	raw_spin_lock_irqsave(&dev->lock, flags);
	start = *slot;
	*slot = 0;
	if (start) {
		*ns = now - start;
		record(dev, kind, *ns);
	}
	raw_spin_unlock_irqrestore(&dev->lock, flags);
	return start;
}

/* The hooks' slow paths: only reached while kprof_active is on. */

void __kprof_irq_enter(struct kprof_dev *dev)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	this_cpu_inc(dev->pcpu->irqs);
	raw_spin_lock_irqsave(&dev->lock, flags);
	dev->hard_start = now;
	if (!dev->pending_irqs++) {
		dev->pending_since = now;
		dev->pending_cpu = raw_smp_processor_id();
	}
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_irq_enter);

void __kprof_irq_exit(struct kprof_dev *dev)
{
	u64 ns;

	if (finish(dev, &dev->hard_start, KPROF_K_IRQ_HANDLER, ktime_get_ns(), &ns))
		trace_kprof_irq_handler(dev->name, dev->irq, ns);
}
EXPORT_SYMBOL_GPL(__kprof_irq_exit);

void __kprof_thread_begin(struct kprof_dev *dev)
{
	u64 now = ktime_get_ns(), since, ns;
	unsigned long flags;
	u32 irqs;
	int cpu;

	this_cpu_inc(dev->pcpu->thread_runs);
	raw_spin_lock_irqsave(&dev->lock, flags);
	irqs = dev->pending_irqs;
	since = dev->pending_since;
	cpu = dev->pending_cpu;
	dev->pending_irqs = 0;
	dev->pending_since = 0;
	if (!irqs) {
		/*
		 * Nothing to pair: an IRQ that arrived after the IRQ core
		 * cleared the wake flag but before this hook was served by
		 * the previous run (and counted as coalesced there), or the
		 * key came on after the IRQ fired.
		 */
		raw_spin_unlock_irqrestore(&dev->lock, flags);
		this_cpu_inc(dev->pcpu->unpaired_runs);
		return;
	}
	/* Another CPU's clock read can be a hair ahead of ours. */
	ns = now > since ? now - since : 0;
	record(dev, KPROF_K_IRQ_THREAD, ns);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
	if (irqs > 1)
		this_cpu_add(dev->pcpu->coalesced, irqs - 1);
	trace_kprof_irq_thread_latency(dev->name, dev->irq, cpu, ns, irqs - 1);
}
EXPORT_SYMBOL_GPL(__kprof_thread_begin);

void __kprof_batch_begin(struct kprof_dev *dev)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	raw_spin_lock_irqsave(&dev->lock, flags);
	dev->batch_start = now;
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_batch_begin);

void __kprof_batch_end(struct kprof_dev *dev, u32 npackets)
{
	u64 ns;

	if (!finish(dev, &dev->batch_start, KPROF_K_BATCH, ktime_get_ns(), &ns))
		return;
	this_cpu_inc(dev->pcpu->batches);
	this_cpu_add(dev->pcpu->packets, npackets);
	trace_kprof_batch(dev->name, npackets, ns);
}
EXPORT_SYMBOL_GPL(__kprof_batch_end);

void __kprof_span_begin(struct kprof_dev *dev, u32 id)
{
	u64 now = ktime_get_ns();
	unsigned long flags;

	if (WARN_ON_ONCE(id >= dev->nr_spans))
		return;
	raw_spin_lock_irqsave(&dev->lock, flags);
	dev->span_start[id] = now;
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}
EXPORT_SYMBOL_GPL(__kprof_span_begin);

static void span_done(struct kprof_dev *dev, u32 id, u64 ns)
{
	this_cpu_inc(dev->pcpu->spans);
	trace_kprof_span(dev->name, id, ns);
}

void __kprof_span_end(struct kprof_dev *dev, u32 id)
{
	u64 ns;

	if (WARN_ON_ONCE(id >= dev->nr_spans))
		return;
	if (finish(dev, &dev->span_start[id], KPROF_K_SPAN0 + id, ktime_get_ns(), &ns))
		span_done(dev, id, ns);
}
EXPORT_SYMBOL_GPL(__kprof_span_end);

void __kprof_span_end_at(struct kprof_dev *dev, u32 id, u64 start_ns)
{
	u64 now = ktime_get_ns(), ns;
	unsigned long flags;

	if (WARN_ON_ONCE(id >= dev->nr_spans))
		return;
	ns = now > start_ns ? now - start_ns : 0;
	raw_spin_lock_irqsave(&dev->lock, flags);
	record(dev, KPROF_K_SPAN0 + id, ns);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
	span_done(dev, id, ns);
}
EXPORT_SYMBOL_GPL(__kprof_span_end_at);

u64 __kprof_now(void)
{
	return ktime_get_ns();
}
EXPORT_SYMBOL_GPL(__kprof_now);

/* Forget every in-flight stamp; called when the key turns on. */
void kprof_devs_reset_inflight(void)
{
	struct kprof_dev *dev;
	unsigned long flags;

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(dev, &kprof_devices, node) {
		raw_spin_lock_irqsave(&dev->lock, flags);
		dev->pending_since = 0;
		dev->pending_irqs = 0;
		dev->hard_start = 0;
		dev->batch_start = 0;
		memset(dev->span_start, 0, sizeof(dev->span_start));
		raw_spin_unlock_irqrestore(&dev->lock, flags);
	}
	mutex_unlock(&kprof_dev_mutex);
}

void kprof_dev_reset_stats(struct kprof_dev *dev)
{
	unsigned long flags;
	int cpu;

	/* The lock keeps out this device's histogram updates meanwhile. */
	raw_spin_lock_irqsave(&dev->lock, flags);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(dev->pcpu, cpu), 0, sizeof(struct kprof_pcpu));
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}

/* debugfs: kprof/<dev>/{counters,latency,spans,reset} */

#define COUNTER(f)	{ #f, offsetof(struct kprof_pcpu, f) }
static const struct {
	const char *name;
	size_t off;
} counters[] = {
	COUNTER(irqs), COUNTER(thread_runs), COUNTER(unpaired_runs), COUNTER(coalesced),
	COUNTER(batches), COUNTER(packets), COUNTER(spans),
};

static u64 pcpu_counter(struct kprof_dev *dev, int cpu, size_t off)
{
	return *(u64 *)((char *)per_cpu_ptr(dev->pcpu, cpu) + off);
}

static int counters_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	u64 total[ARRAY_SIZE(counters)] = {};
	int cpu, i;

	seq_puts(m, "cpu");
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		seq_printf(m, " %s", counters[i].name);
	seq_putc(m, '\n');
	for_each_possible_cpu(cpu) {
		seq_printf(m, "%d", cpu);
		for (i = 0; i < ARRAY_SIZE(counters); i++) {
			u64 c = pcpu_counter(dev, cpu, counters[i].off);

			total[i] += c;
			seq_printf(m, " %llu", c);
		}
		seq_putc(m, '\n');
	}
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		seq_printf(m, "%s: %llu\n", counters[i].name, total[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counters);

static void lat_sum(struct kprof_dev *dev, enum kprof_kind kind,
		    struct kprof_lat *sum)
{
	int cpu, b;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kprof_lat *l = &per_cpu_ptr(dev->pcpu, cpu)->lat[kind];

		if (!l->count)
			continue;
		if (!sum->count || l->min < sum->min)
			sum->min = l->min;
		sum->max = max(sum->max, l->max);
		sum->count += l->count;
		sum->sum += l->sum;
		for (b = 0; b < KPROF_HIST_BUCKETS; b++)
			sum->buckets[b] += l->buckets[b];
	}
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

static int latency_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	struct kprof_lat *l;
	unsigned int k;

	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	for (k = 0; k < KPROF_K_SPAN0 + dev->nr_spans; k++) {
		lat_sum(dev, k, l);
		if (k < KPROF_K_SPAN0)
			lat_show_one(m, kind_names[k], NULL, l);
		else
			lat_show_one(m, "span", dev->span_names[k - KPROF_K_SPAN0], l);
	}
	kfree(l);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

static int spans_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	unsigned int i;

	for (i = 0; i < dev->nr_spans; i++)
		seq_printf(m, "%u %s\n", i, dev->span_names[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(spans);

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

static bool name_ok(const char *name)
{
	size_t len = strnlen(name, KPROF_NAME_MAX + 1);
	size_t i;

	if (!len || len > KPROF_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static void kprof_dev_free(struct kprof_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nr_spans; i++)
		kfree_const(dev->span_names[i]);
	free_percpu(dev->pcpu);
	kfree(dev);
}

struct kprof_dev *kprof_dev_register(const char *name,
				     const struct kprof_dev_info *info)
{
	struct kprof_dev *dev, *other;
	int ret = -ENOMEM;

	if (!name || !name_ok(name))
		return ERR_PTR(-EINVAL);
	/* kprof's own top-level files */
	if (!strcmp(name, "version") || !strcmp(name, "enable") || !strcmp(name, "bench"))
		return ERR_PTR(-EEXIST);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	raw_spin_lock_init(&dev->lock);
	dev->irq = info ? info->irq : -1;
	if (info && info->span_names) {
		while (info->span_names[dev->nr_spans]) {
			const char *s = info->span_names[dev->nr_spans];

			if (dev->nr_spans == KPROF_MAX_SPANS || !name_ok(s)) {
				ret = -EINVAL;
				goto err_free;
			}
			dev->span_names[dev->nr_spans] = kstrdup_const(s, GFP_KERNEL);
			if (!dev->span_names[dev->nr_spans])
				goto err_free;
			dev->nr_spans++;
		}
	}
	dev->pcpu = alloc_percpu(struct kprof_pcpu);
	if (!dev->pcpu)
		goto err_free;

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(other, &kprof_devices, node) {
		if (!strcmp(other->name, name)) {
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	dev->dir = debugfs_create_dir(name, kprof_debugfs_root);
	if (IS_ERR(dev->dir)) {
		ret = PTR_ERR(dev->dir);
		goto err_unlock;
	}
	debugfs_create_file("counters", 0400, dev->dir, dev, &counters_fops);
	debugfs_create_file("latency", 0400, dev->dir, dev, &latency_fops);
	debugfs_create_file("spans", 0400, dev->dir, dev, &spans_fops);
	debugfs_create_file("reset", 0600, dev->dir, dev, &reset_fops);
	list_add_tail(&dev->node, &kprof_devices);
	mutex_unlock(&kprof_dev_mutex);
	return dev;

err_unlock:
	mutex_unlock(&kprof_dev_mutex);
err_free:
	kprof_dev_free(dev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(kprof_dev_register);

void kprof_dev_unregister(struct kprof_dev *dev)
{
	if (IS_ERR_OR_NULL(dev))
		return;
	mutex_lock(&kprof_dev_mutex);
	list_del(&dev->node);
	mutex_unlock(&kprof_dev_mutex);
	/* Waits for readers in flight; later reads of open files get -EIO. */
	debugfs_remove_recursive(dev->dir);
	/*
	 * The driver has stopped calling hooks; a trace probe still running
	 * on another CPU has copied dev->name before returning to the hook,
	 * and the hook returned before the driver got here.
	 */
	kprof_dev_free(dev);
}
EXPORT_SYMBOL_GPL(kprof_dev_unregister);
