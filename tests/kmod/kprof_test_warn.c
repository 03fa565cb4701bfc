// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: prints a kernel WARNING on load, so that the VM harness
 * can prove it turns a dirty console into a failed test.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init kprof_test_warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit kprof_test_warn_exit(void)
{
}

module_init(kprof_test_warn_init);
module_exit(kprof_test_warn_exit);

MODULE_DESCRIPTION("kprof test: WARN_ON(1) at load, to test the harness");
MODULE_LICENSE("GPL");
