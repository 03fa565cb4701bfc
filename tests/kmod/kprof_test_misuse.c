// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: a driver that gets kprof's API wrong, on load, with
 * the hooks live (kprof/enable = 1 first). The calls kprof must ignore and
 * count in kprof/misuse (tests/vm/kprof_misuse.sh):
 *  - every hook on a NULL and on an ERR_PTR() device: null_dev 16;
 *  - span ids the device did not register: bad_span 3;
 * and what it must not count as a wake: a primary handler returning
 * IRQ_HANDLED | IRQ_WAKE_THREAD (the IRQ core wakes for IRQ_WAKE_THREAD
 * alone), then one that returns IRQ_WAKE_THREAD: irqs 2, wakes 1.
 * devname= registers another name: a reserved one must fail the load.
 */
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/module.h>

#include <kprof/kprof.h>

static char *devname = "misuse-dev";
module_param(devname, charp, 0444);
MODULE_PARM_DESC(devname, "the kprof device's name");

static struct kprof_dev *dev;

/* Each of the 8 hooks once on @bad: 8 calls ignored. */
static void every_hook(struct kprof_dev *bad)
{
	kprof_irq_enter(bad);
	kprof_irq_exit(bad, IRQ_WAKE_THREAD);
	kprof_thread_begin(bad);
	kprof_batch_begin(bad);
	kprof_batch_end(bad, 1);
	kprof_span_begin(bad, 0);
	kprof_span_end(bad, 0);
	kprof_span_end_at(bad, 0, kprof_now());
}

static int __init kprof_test_misuse_init(void)
{
	static const char * const spans[] = { "only", NULL };
	const struct kprof_dev_info info = { .irq = -1, .span_names = spans };

	dev = kprof_dev_register(devname, &info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	every_hook(NULL);
	every_hook(ERR_PTR(-ENODEV));
	kprof_span_begin(dev, 1);
	kprof_span_end(dev, 8);
	kprof_span_end_at(dev, 100, kprof_now());
	kprof_irq_enter(dev);
	kprof_irq_exit(dev, IRQ_HANDLED | IRQ_WAKE_THREAD);
	kprof_irq_enter(dev);
	kprof_irq_exit(dev, IRQ_WAKE_THREAD);
	return 0;
}

static void __exit kprof_test_misuse_exit(void)
{
	kprof_dev_unregister(dev);
}

module_init(kprof_test_misuse_init);
module_exit(kprof_test_misuse_exit);

MODULE_DESCRIPTION("kprof test: hooks called on bad devices and span ids");
MODULE_LICENSE("GPL");
