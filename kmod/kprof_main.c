// SPDX-License-Identifier: GPL-2.0
/*
 * kprof core: module lifetime and the debugfs root.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kprof_internal.h"

static struct dentry *kprof_debugfs_root;

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", KPROF_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int __init kprof_init(void)
{
	kprof_debugfs_root = debugfs_create_dir("kprof", NULL);
	if (IS_ERR(kprof_debugfs_root))
		return PTR_ERR(kprof_debugfs_root);

	debugfs_create_file("version", 0400, kprof_debugfs_root, NULL,
			    &version_fops);
	pr_info("version %s loaded\n", KPROF_VERSION);
	return 0;
}

static void __exit kprof_exit(void)
{
	debugfs_remove_recursive(kprof_debugfs_root);
	pr_info("unloaded\n");
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_AUTHOR("kprof developers");
MODULE_DESCRIPTION("kprof: low-overhead driver latency tracepoints and counters");
MODULE_LICENSE("GPL");
MODULE_VERSION(KPROF_VERSION);
