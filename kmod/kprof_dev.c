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

/*
 * kprof/aggregate (struct kprof_agg_ctl): every device's histograms. While
 * on it holds a reference on the key. The state is written under
 * dev_agg.lock and kprof_dev_mutex, and read under either; dev_agg.lock is
 * taken first, and the key's mutex never inside kprof_dev_mutex.
 */
static int agg_set(unsigned int val);

static struct kprof_agg_ctl dev_agg = {
	.lock = __MUTEX_INITIALIZER(dev_agg.lock),
	.set = agg_set,
};

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

static unsigned int nr_kinds(const struct kprof_dev *dev)
{
	return KPROF_K_SPAN0 + dev->nr_spans;
}

/*
 * The hooks' slow paths: only reached while kprof_active is on. Each takes
 * dev->lock (IRQs off) for all it does; see struct kprof_dev.
 */

/*
 * Hook calls kprof ignores (kprof/misuse): on a NULL or ERR_PTR() device (a
 * driver whose registration failed and that treats kprof as optional), in
 * NMI (where dev->lock could be the one the interrupted code holds), or
 * with a span id the device did not register. Counted, never warned about:
 * a hook is a hot path, and panic_on_warn makes a WARN fatal.
 */
struct kprof_misuse {
	unsigned long null_dev;
	unsigned long nmi;
	unsigned long bad_span;
};

static DEFINE_PER_CPU(struct kprof_misuse, kprof_misuse);

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
		kprof_hist_add(&dev->agg[raw_smp_processor_id() * nr_kinds(dev) + kind], *ns);
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

static size_t pcpu_size(unsigned int nr_spans)
{
	return struct_size((struct kprof_pcpu *)NULL, lat, KPROF_K_SPAN0 + nr_spans);
}

/* Zero the counters and histograms (not seq); every writer is locked out. */
void kprof_dev_reset_stats(struct kprof_dev *dev)
{
	size_t size = pcpu_size(dev->nr_spans);
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&dev->lock, flags);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(dev->pcpu, cpu), 0, size);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
}

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

/* One consistent snapshot of every CPU's counters, taken under the lock. */
static int counters_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	struct kprof_counters *snap;
	unsigned long flags;
	int cpu;

	snap = kcalloc(nr_cpu_ids, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	raw_spin_lock_irqsave(&dev->lock, flags);
	for_each_possible_cpu(cpu)
		snap[cpu] = per_cpu_ptr(dev->pcpu, cpu)->c;
	raw_spin_unlock_irqrestore(&dev->lock, flags);
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

/* Every kind summed over the CPUs in one snapshot under the lock. */
static int latency_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	unsigned int k, nk = KPROF_K_SPAN0 + dev->nr_spans;
	struct kprof_lat *sum;
	unsigned long flags;
	int cpu;

	sum = kcalloc(nk, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	raw_spin_lock_irqsave(&dev->lock, flags);
	for_each_possible_cpu(cpu)
		for (k = 0; k < nk; k++)
			lat_merge(&sum[k], &per_cpu_ptr(dev->pcpu, cpu)->lat[k]);
	raw_spin_unlock_irqrestore(&dev->lock, flags);
	for (k = 0; k < nk; k++) {
		if (k < KPROF_K_SPAN0)
			lat_show_one(m, kind_names[k], NULL, &sum[k]);
		else
			lat_show_one(m, "span", dev->span_names[k - KPROF_K_SPAN0], &sum[k]);
	}
	kfree(sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

/* The seq of the last event of each kind emitted; reset does not touch it. */
static int emitted_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	u64 seq[KPROF_NR_EVENTS];
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&dev->lock, flags);
	memcpy(seq, dev->seq, sizeof(seq));
	raw_spin_unlock_irqrestore(&dev->lock, flags);
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

/*
 * In-kernel aggregation: kprof/aggregate switches it, kprof/<dev>/hist
 * reads it.
 */

static struct kprof_hist *agg_alloc(const struct kprof_dev *dev)
{
	return kvcalloc(array_size(nr_cpu_ids, nr_kinds(dev)),
			sizeof(struct kprof_hist), GFP_KERNEL);
}

/* Install @h (or NULL) as @dev's histograms; returns the old ones. */
static struct kprof_hist *agg_swap(struct kprof_dev *dev, struct kprof_hist *h, bool on)
{
	struct kprof_hist *old;
	unsigned long flags;

	raw_spin_lock_irqsave(&dev->lock, flags);
	old = dev->agg;
	dev->agg = h;
	dev->agg_on = on;
	raw_spin_unlock_irqrestore(&dev->lock, flags);
	return old;
}

/* Every device's histograms freed; kprof_dev_mutex held. */
static void agg_free_all(void)
{
	struct kprof_dev *dev;

	list_for_each_entry(dev, &kprof_devices, node)
		kvfree(agg_swap(dev, NULL, false));
}

/*
 * Fresh zeroed histograms for every device, recording; kprof_dev_mutex
 * held. If one allocation fails every device is left without any.
 */
static int agg_start_all(void)
{
	struct kprof_dev *dev;
	struct kprof_hist *h;

	list_for_each_entry(dev, &kprof_devices, node) {
		h = agg_alloc(dev);
		if (!h) {
			agg_free_all();
			return -ENOMEM;
		}
		kvfree(agg_swap(dev, h, true));
	}
	return 0;
}

/* Recording stopped, the histograms kept; kprof_dev_mutex held. */
static void agg_freeze_all(void)
{
	struct kprof_dev *dev;
	unsigned long flags;

	list_for_each_entry(dev, &kprof_devices, node) {
		raw_spin_lock_irqsave(&dev->lock, flags);
		dev->agg_on = false;
		raw_spin_unlock_irqrestore(&dev->lock, flags);
	}
}

/* Switch to @val; dev_agg.lock held. The key is taken or dropped outside kprof_dev_mutex. */
static int agg_set(unsigned int val)
{
	bool was_on = dev_agg.state == KPROF_AGG_ON;
	int ret = 0;

	if (was_on && val != KPROF_AGG_ON)
		kprof_key_put();
	mutex_lock(&kprof_dev_mutex);
	if (val == KPROF_AGG_ON)
		ret = agg_start_all();
	else if (val == KPROF_AGG_FROZEN)
		agg_freeze_all();
	else
		agg_free_all();
	dev_agg.state = ret ? KPROF_AGG_OFF : val;
	mutex_unlock(&kprof_dev_mutex);
	if (ret && was_on)
		kprof_key_put();	/* a failed restart leaves it off */
	else if (!ret && !was_on && val == KPROF_AGG_ON)
		kprof_key_get();
	return ret;
}

static ssize_t aggregate_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct kprof_agg_ctl *ctl = file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret)
		return ret;
	if (val > KPROF_AGG_FROZEN)
		return -EINVAL;
	mutex_lock(&ctl->lock);
	if (ctl->owner && ctl->owner != file)
		ret = -EBUSY;	/* another run's */
	else if (val == KPROF_AGG_FROZEN && ctl->state == KPROF_AGG_OFF)
		ret = -EINVAL;	/* nothing to freeze */
	else
		ret = ctl->set(val);
	if (!ret)
		ctl->owner = val == KPROF_AGG_OFF ? NULL : file;
	mutex_unlock(&ctl->lock);
	return ret ? ret : count;
}

/* The owner's file closed: the aggregation stays as it left it, unowned. */
static int aggregate_release(struct inode *inode, struct file *file)
{
	struct kprof_agg_ctl *ctl = file->private_data;

	mutex_lock(&ctl->lock);
	if (ctl->owner == file)
		ctl->owner = NULL;
	mutex_unlock(&ctl->lock);
	return 0;
}

static ssize_t aggregate_read(struct file *file, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct kprof_agg_ctl *ctl = file->private_data;
	char buf[3];
	int len;

	mutex_lock(&ctl->lock);
	len = scnprintf(buf, sizeof(buf), "%u\n", ctl->state);
	mutex_unlock(&ctl->lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations aggregate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = aggregate_read,
	.write = aggregate_write,
	.release = aggregate_release,
	.llseek = default_llseek,
};

void kprof_agg_file(struct dentry *root, const char *name, struct kprof_agg_ctl *ctl)
{
	debugfs_create_file(name, 0600, root, ctl, &aggregate_fops);
}

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
	kprof_agg_file(root, KPROF_FILE(AGGREGATE), &dev_agg);
	debugfs_create_file(KPROF_FILE(MISUSE), 0400, root, NULL, &misuse_fops);
}

/* Module exit: no device is left; drop aggregation's key reference. */
void kprof_devs_exit(void)
{
	mutex_lock(&dev_agg.lock);
	agg_set(KPROF_AGG_OFF);
	mutex_unlock(&dev_agg.lock);
}

/*
 * Copy @src under @lock a chunk at a time: no 64-bit count tears on a
 * 32-bit CPU, and IRQs are never off for a whole histogram's copy. While
 * aggregation is on the copy is a live one: a sample may land in a bucket
 * already copied and count in the fields copied later, or the reverse.
 */
#define HIST_COPY_CHUNK	1024
void kprof_hist_copy(raw_spinlock_t *lock, struct kprof_hist *dst,
		     const struct kprof_hist *src)
{
	size_t off, n, size = sizeof(*src);
	unsigned long flags;

	for (off = 0; off < size; off += n) {
		n = min_t(size_t, size - off, HIST_COPY_CHUNK);
		raw_spin_lock_irqsave(lock, flags);
		memcpy((char *)dst + off, (const char *)src + off, n);
		raw_spin_unlock_irqrestore(lock, flags);
	}
}

/* " COUNT SUM MIN MAX BUCKET:N ...", and the line's end. */
void kprof_hist_print(struct seq_file *m, const struct kprof_hist *h)
{
	u32 b;

	seq_printf(m, " %llu %llu %llu %llu", h->count, h->sum, h->min, h->max);
	for (b = 0; b < KPROF_HIST_KERNEL_BUCKETS; b++)
		if (h->buckets[b])
			seq_printf(m, " %u:%llu", b, h->buckets[b]);
	seq_putc(m, '\n');
}

static void hist_print(struct seq_file *m, struct kprof_dev *dev, unsigned int kind,
		       int cpu, const struct kprof_hist *h)
{
	if (kind < KPROF_K_SPAN0)
		seq_printf(m, "%s", kind_names[kind]);
	else
		seq_printf(m, "span:%s", dev->span_names[kind - KPROF_K_SPAN0]);
	seq_printf(m, " %d", cpu);
	kprof_hist_print(m, h);
}

/*
 * kprof/<dev>/hist: the layout, then a line per CPU and kind with samples:
 *   KIND CPU COUNT SUM MIN MAX BUCKET:N ...
 */
static int hist_show(struct seq_file *m, void *v)
{
	struct kprof_dev *dev = m->private;
	struct kprof_hist *h;
	unsigned int k;
	int cpu;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	seq_printf(m, "layout sub_bits=%u kernel_bits=%u buckets=%llu\n",
		   KPROF_HIST_SUB_BITS, KPROF_HIST_KERNEL_BITS,
		   (u64)KPROF_HIST_KERNEL_BUCKETS);
	mutex_lock(&kprof_dev_mutex);
	seq_printf(m, "state %u\n", dev_agg.state);
	for_each_possible_cpu(cpu) {
		for (k = 0; dev->agg && k < nr_kinds(dev); k++) {
			kprof_hist_copy(&dev->lock, h, &dev->agg[cpu * nr_kinds(dev) + k]);
			if (h->count)
				hist_print(m, dev, k, cpu, h);
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
	kvfree(dev->agg);
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
	if (kprof_name_reserved(name))
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
	dev->pcpu = __alloc_percpu(pcpu_size(dev->nr_spans), __alignof__(struct kprof_pcpu));
	if (!dev->pcpu)
		goto err_free;

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(other, &kprof_devices, node) {
		if (!strcmp(other->name, name)) {
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	/* Aggregation is on: this device's samples count from now. */
	if (dev_agg.state == KPROF_AGG_ON) {
		dev->agg = agg_alloc(dev);
		if (!dev->agg)
			goto err_unlock;
		dev->agg_on = true;
	}
	/*
	 * Without debugfs (CONFIG_DEBUG_FS=n, debugfs=off, lockdown) the
	 * device works all the same, events included; it has no files. The
	 * debugfs calls take an ERR_PTR() parent and do nothing with it. With
	 * debugfs, a directory that cannot be made (the name of a device
	 * whose directory is still being removed: -EEXIST) fails the
	 * registration: a device without its files would count unseen.
	 */
	dev->dir = debugfs_create_dir(name, kprof_debugfs_root);
	if (!IS_ERR(kprof_debugfs_root) && IS_ERR(dev->dir)) {
		ret = PTR_ERR(dev->dir);
		pr_err("device %s: no debugfs directory (%d)\n", name, ret);
		goto err_unlock;
	}
	debugfs_create_file("counters", 0400, dev->dir, dev, &counters_fops);
	debugfs_create_file("latency", 0400, dev->dir, dev, &latency_fops);
	debugfs_create_file("emitted", 0400, dev->dir, dev, &emitted_fops);
	debugfs_create_file("spans", 0400, dev->dir, dev, &spans_fops);
	debugfs_create_file("reset", 0600, dev->dir, dev, &reset_fops);
	debugfs_create_file("hist", 0400, dev->dir, dev, &hist_fops);
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
