// SPDX-License-Identifier: GPL-2.0
/*
 * kprof devices: the registry (kprof_dev_register(), kprof_dev_unregister()),
 * and the resets of a device's state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprof_internal.h"

/* Every registered device, on kprof_devices. */
LIST_HEAD(kprof_devices);
/* Guards kprof_devices and each device's agg pointer. */
DEFINE_MUTEX(kprof_dev_mutex);

/* Forget every in-flight stamp; called when the key turns on. */
void kprof_devs_reset_inflight(void)
{
	struct kprof_dev *dev;
	unsigned int i;
	int cpu;

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(dev, &kprof_devices, node) {
		raw_spin_lock_irq(&dev->pend_lock);
		dev->pending_since = 0;
		dev->pending_irqs = 0;
		raw_spin_unlock_irq(&dev->pend_lock);
		atomic64_set(&dev->batch_start, 0);
		for (i = 0; i < KPROF_MAX_SPANS; i++)
			atomic64_set(&dev->span_start[i], 0);
		for_each_possible_cpu(cpu) {
			struct kprof_pcpu *pc = per_cpu_ptr(dev->pcpu, cpu);

			raw_spin_lock_irq(&pc->lock);
			pc->hard_start = 0;
			raw_spin_unlock_irq(&pc->lock);
		}
	}
	mutex_unlock(&kprof_dev_mutex);
}

static size_t pcpu_size(unsigned int nr_spans)
{
	return struct_size((struct kprof_pcpu *)NULL, lat, KPROF_K_SPAN0 + nr_spans);
}

/*
 * Zero the counters and histograms (not seq), a CPU at a time under its
 * lock: a hook's update of that CPU is wholly before or wholly after.
 */
void kprof_dev_reset_stats(struct kprof_dev *dev)
{
	size_t off = offsetof(struct kprof_pcpu, c);
	size_t size = pcpu_size(dev->nr_spans) - off;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_pcpu *pc = per_cpu_ptr(dev->pcpu, cpu);

		raw_spin_lock_irq(&pc->lock);
		memset((char *)pc + off, 0, size);
		pc->c.begins_at_reset = local64_read(&pc->begins);
		raw_spin_unlock_irq(&pc->lock);
	}
}

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
	kprof_dev_agg_free(dev, rcu_dereference_protected(dev->agg, true));
	free_percpu(dev->pcpu);
	kfree(dev);
}

struct kprof_dev *kprof_dev_register(const char *name,
				     const struct kprof_dev_info *info)
{
	struct kprof_dev *dev, *other;
	int ret = -ENOMEM;
	int cpu;

	if (!name || !name_ok(name))
		return ERR_PTR(-EINVAL);
	if (kprof_name_reserved(name))
		return ERR_PTR(-EEXIST);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	strscpy(dev->name, name, sizeof(dev->name));
	dev->name_len = strlen(dev->name);
	raw_spin_lock_init(&dev->pend_lock);
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
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(dev->pcpu, cpu)->lock);

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(other, &kprof_devices, node) {
		if (!strcmp(other->name, name)) {
			ret = -EEXIST;
			goto err_unlock;
		}
	}
	ret = kprof_dev_agg_attach(dev);
	if (ret)
		goto err_unlock;
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
	kprof_dev_files(dev);
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
