// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation: the devices' histograms and the aggregation
 * switch (kprof/aggregate) they share with the IRQ tracker's
 * (kprof/girq_aggregate, kprof_girq.c), and the histograms' copy and print.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

/*
 * kprof/aggregate (struct kprof_agg_ctl): every device's histograms. While
 * on it holds a reference on the key. The state is written under
 * kprof_dev_agg.lock and kprof_dev_mutex, and read under either;
 * kprof_dev_agg.lock is taken first, and the key's mutex never inside
 * kprof_dev_mutex.
 */
static int agg_set(unsigned int val);

struct kprof_agg_ctl kprof_dev_agg = {
	.lock = __MUTEX_INITIALIZER(kprof_dev_agg.lock),
	.set = agg_set,
};

/* kprof/aggregate switches it, kprof/<dev>/hist reads it. */
static struct kprof_hist *agg_alloc(const struct kprof_dev *dev)
{
	return kvcalloc(array_size(nr_cpu_ids, kprof_nr_kinds(dev)),
			sizeof(struct kprof_hist), GFP_KERNEL);
}

/*
 * A device registered while aggregation is on: its samples count from
 * now. kprof_dev_mutex held.
 */
int kprof_dev_agg_attach(struct kprof_dev *dev)
{
	if (kprof_dev_agg.state != KPROF_AGG_ON)
		return 0;
	dev->agg = agg_alloc(dev);
	if (!dev->agg)
		return -ENOMEM;
	dev->agg_on = true;
	return 0;
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

/* Switch to @val; kprof_dev_agg.lock held. The key is taken or dropped outside kprof_dev_mutex. */
static int agg_set(unsigned int val)
{
	bool was_on = kprof_dev_agg.state == KPROF_AGG_ON;
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
	kprof_dev_agg.state = ret ? KPROF_AGG_OFF : val;
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

/* Module exit: no device is left; drop aggregation's key reference. */
void kprof_dev_agg_exit(void)
{
	mutex_lock(&kprof_dev_agg.lock);
	agg_set(KPROF_AGG_OFF);
	mutex_unlock(&kprof_dev_agg.lock);
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
