// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: switches every kprof event on while kprof.ko is COMING,
 * after the tracing core has made its events and before kprof_init() runs,
 * as set_event's ":mod:kprof" (6.14 and later) or a perf_event_open() in
 * that window does. The load-order test (tests/vm/kprof_load_order.sh) uses
 * it on every kernel, under the debug kernel's checkers too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>
#include <linux/trace_events.h>

static int coming_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_COMING || strcmp(mod->name, "kprof"))
		return NOTIFY_DONE;
	pr_info("kprof is COMING: its events on: %d\n",
		trace_set_clr_event("kprof", NULL, 1));
	return NOTIFY_DONE;
}

/* Below the tracing core's notifiers (priorities 1 and 0): its events exist. */
static struct notifier_block coming_nb = {
	.notifier_call = coming_notify,
	.priority = -1,
};

static int __init kprof_test_coming_init(void)
{
	return register_module_notifier(&coming_nb);
}

static void __exit kprof_test_coming_exit(void)
{
	unregister_module_notifier(&coming_nb);
}

module_init(kprof_test_coming_init);
module_exit(kprof_test_coming_exit);

MODULE_DESCRIPTION("kprof test: enable kprof's events while kprof.ko is COMING");
MODULE_LICENSE("GPL");
