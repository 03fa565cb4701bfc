// SPDX-License-Identifier: GPL-2.0
/*
 * kprof core: module lifetime, the hooks' static key, and the global
 * debugfs files (version, enable, bench; the IRQ tracker adds its own).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kprof_internal.h"

/*
 * The hooks' key. On while anyone listens: each registered kprof event
 * probe holds a reference (TRACE_EVENT_FN callbacks), and so does
 * kprof/enable = 1. Flipped only from process context, under key_mutex.
 */
DEFINE_STATIC_KEY_FALSE(kprof_active);
EXPORT_SYMBOL_GPL(kprof_active);

static DEFINE_MUTEX(key_mutex);
static unsigned int key_users;
static bool collect_enabled;	/* kprof/enable, under key_mutex */

struct dentry *kprof_debugfs_root;

/* Take a reference on the key; key_mutex held. */
static void key_get_locked(void)
{
	lockdep_assert_held(&key_mutex);
	if (key_users++ == 0) {
		/*
		 * Stamps left from before the key went off are stale: forget
		 * them before any hook can run again, so that none pairs with
		 * a hook that went live first.
		 */
		kprof_devs_reset_inflight();
		static_branch_enable(&kprof_active);
	}
}

static void key_put_locked(void)
{
	lockdep_assert_held(&key_mutex);
	if (!WARN_ON_ONCE(key_users == 0) && --key_users == 0)
		static_branch_disable(&kprof_active);
}

int kprof_key_get(void)
{
	mutex_lock(&key_mutex);
	key_get_locked();
	mutex_unlock(&key_mutex);
	return 0;
}

void kprof_key_put(void)
{
	mutex_lock(&key_mutex);
	key_put_locked();
	mutex_unlock(&key_mutex);
}

const char * const kprof_top_files[KPROF_NR_TOP_FILES] = {
	[KPROF_TF_VERSION] = "version",
	[KPROF_TF_ENABLE] = "enable",
	[KPROF_TF_BENCH] = "bench",
	[KPROF_TF_AGGREGATE] = "aggregate",
	[KPROF_TF_MISUSE] = "misuse",
	[KPROF_TF_GIRQ_COUNTERS] = "girq_counters",
	[KPROF_TF_GIRQ_EMITTED] = "girq_emitted",
	[KPROF_TF_GIRQ_AGGREGATE] = "girq_aggregate",
	[KPROF_TF_GIRQ_HIST] = "girq_hist",
	[KPROF_TF_MEMORY] = "memory",
	[KPROF_TF_FUNC] = "func",
};

/* True if @name is one of kprof's own top-level debugfs files. */
bool kprof_name_reserved(const char *name)
{
	return match_string(kprof_top_files, KPROF_NR_TOP_FILES, name) >= 0;
}

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", KPROF_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static ssize_t enable_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	char buf[3];
	int len;

	mutex_lock(&key_mutex);
	len = scnprintf(buf, sizeof(buf), "%d\n", collect_enabled);
	mutex_unlock(&key_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t enable_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret)
		return ret;
	if (val > 1)
		return -EINVAL;

	/*
	 * The reference follows the knob's transitions only, and is taken or
	 * dropped under the same lock that decides the transition: racing
	 * writers of 0 and 1 cannot leave a reference behind.
	 */
	mutex_lock(&key_mutex);
	if (val && !collect_enabled)
		key_get_locked();
	else if (!val && collect_enabled)
		key_put_locked();
	collect_enabled = val;
	mutex_unlock(&key_mutex);
	return count;
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.read = enable_read,
	.write = enable_write,
	.llseek = default_llseek,
};

static int __init kprof_init(void)
{
	int ret;

	ret = kprof_girq_check_params();
	if (!ret)
		ret = kprof_agg_check_params();
	if (ret)
		return ret;
	/*
	 * debugfs is optional: without it (CONFIG_DEBUG_FS=n, debugfs=off,
	 * lockdown) the events work and only the files are missing. The
	 * debugfs calls below do nothing with an ERR_PTR() parent.
	 */
	kprof_debugfs_root = debugfs_create_dir("kprof", NULL);
	debugfs_create_file(KPROF_FILE(VERSION), 0400, kprof_debugfs_root, NULL,
			    &version_fops);
	debugfs_create_file(KPROF_FILE(ENABLE), 0600, kprof_debugfs_root, NULL,
			    &enable_fops);
	kprof_bench_init(kprof_debugfs_root);
	kprof_girq_init(kprof_debugfs_root);
	kprof_func_init(kprof_debugfs_root);
	kprof_devs_init(kprof_debugfs_root);
	/* Last: only a module whose init succeeds attaches probes. */
	kprof_girq_start();
	if (IS_ERR(kprof_debugfs_root))
		pr_info("version %s loaded; no debugfs (%ld): events only, no counters\n",
			KPROF_VERSION, PTR_ERR(kprof_debugfs_root));
	else
		pr_info("version %s loaded\n", KPROF_VERSION);
	return 0;
}

static void __exit kprof_exit(void)
{
	/*
	 * No device is registered: every driver using kprof holds a
	 * reference through its symbol dependency. The IRQ tracker's probes
	 * go first; removing the tree waits for readers and writers in flight.
	 */
	kprof_girq_exit();
	debugfs_remove_recursive(kprof_debugfs_root);
	kprof_agg_sync();
	kprof_girq_free();
	kprof_dev_agg_exit();

	mutex_lock(&key_mutex);
	if (collect_enabled) {
		collect_enabled = false;
		key_put_locked();
	}
	mutex_unlock(&key_mutex);
	/*
	 * Event probes still registered are torn down by the tracing core
	 * when the module goes away; their unreg callback drops the rest.
	 */
	pr_info("unloaded\n");
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_AUTHOR("kprof developers");
MODULE_DESCRIPTION("kprof: low-overhead driver latency tracepoints and counters");
MODULE_LICENSE("GPL");
MODULE_VERSION(KPROF_VERSION);
