// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_example: the smallest driver kprof can profile, built out of tree
 * against kprof's installed header and Module.symvers, as your driver would
 * be. It polls a pretend device every period_ms from a delayed work and
 * measures each poll as a kprof span. The kprof lines are marked "kprof:".
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/delay.h>
#include <linux/err.h>

#include <kprof/kprof.h>	/* kprof: the API */

static unsigned int period_ms = 10;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "poll period in ms (1..1000, default 10)");

static struct kprof_dev *kdev;	/* kprof: our device */
static const char * const spans[] = { "poll", NULL };
static struct delayed_work poll_work;

static void poll_fn(struct work_struct *work)
{
	kprof_span_begin(kdev, 0);		/* kprof: poll starts */
	udelay(50);				/* talk to the hardware */
	kprof_span_end(kdev, 0);		/* kprof: poll ends */
	schedule_delayed_work(&poll_work, msecs_to_jiffies(period_ms));
}

static int __init example_init(void)
{
	struct kprof_dev_info info = { .irq = -1, .span_names = spans };

	if (!period_ms || period_ms > 1000)
		return -EINVAL;
	kdev = kprof_dev_register("example", &info);	/* kprof: register */
	if (IS_ERR(kdev))
		return PTR_ERR(kdev);
	INIT_DELAYED_WORK(&poll_work, poll_fn);
	schedule_delayed_work(&poll_work, 0);
	return 0;
}

static void __exit example_exit(void)
{
	cancel_delayed_work_sync(&poll_work);
	kprof_dev_unregister(kdev);			/* kprof: unregister */
}

module_init(example_init);
module_exit(example_exit);

MODULE_DESCRIPTION("kprof example: an out-of-tree driver instrumented with kprof");
MODULE_LICENSE("GPL");
