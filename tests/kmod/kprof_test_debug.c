// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: commits, on load, the bug its "bug" parameter names, so
 * that the VM harness can prove that the debug kernel's checkers catch it
 * and that it fails the test (tests/vm/selftest/selftest_debug.sh):
 *   leak    kmalloc()ed blocks whose pointers are dropped (kmemleak)
 *   atomic  a GFP_KERNEL allocation, which may sleep, with a spinlock
 *           held (DEBUG_ATOMIC_SLEEP)
 *   shift   a shift wider than its type (UBSAN)
 *   uaf     a read after kfree() (KASAN)
 * On a kernel without the checker, the bug goes unseen (and the leak stays).
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "leak, atomic, shift or uaf");

#define TEST_LEAKS 8

static DEFINE_SPINLOCK(test_lock);
static unsigned int test_shift = 40;
module_param(test_shift, uint, 0444);
MODULE_PARM_DESC(test_shift, "the width of the shift bug=shift makes");

static int __init kprof_test_debug_init(void)
{
	char *p;
	int i;

	if (!strcmp(bug, "leak")) {
		/*
		 * Several blocks: a stale copy of the last pointer can stay in
		 * a stack that kmemleak scans (insmod's, cached once it exits),
		 * which hides that block; each allocation overwrites the copy
		 * of the one before.
		 */
		for (i = 0; i < TEST_LEAKS; i++) {
			p = kmalloc(512, GFP_KERNEL);
			if (p)
				memset(p, 0x5a, 512);
			OPTIMIZER_HIDE_VAR(p);
		}
	} else if (!strcmp(bug, "atomic")) {
		spin_lock(&test_lock);
		p = kmalloc(64, GFP_KERNEL);
		spin_unlock(&test_lock);
		kfree(p);
	} else if (!strcmp(bug, "shift")) {
		pr_info("kprof_test_debug: 1 << %u = %u\n", test_shift, 1U << test_shift);
	} else if (!strcmp(bug, "uaf")) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
		OPTIMIZER_HIDE_VAR(p);
		pr_info("kprof_test_debug: read %d\n", READ_ONCE(p[8]));
	} else {
		return -EINVAL;
	}
	return 0;
}

static void __exit kprof_test_debug_exit(void)
{
}

module_init(kprof_test_debug_init);
module_exit(kprof_test_debug_exit);

MODULE_DESCRIPTION("kprof test: a bug for the debug kernel's checkers to catch");
MODULE_LICENSE("GPL");
