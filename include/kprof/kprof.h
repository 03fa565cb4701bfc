/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof driver instrumentation API.
 *
 * A driver registers a kprof device per interrupt source (per queue, for a
 * multi-queue NIC) and calls the hooks below from its handlers. Every hook
 * is an inline static-branch test: while no kprof event is enabled and
 * debugfs collection is off (kprof/enable = 0) a hook is a NOP - no
 * timestamp, no counter, no call. Link against kprof.ko's Module.symvers
 * (KBUILD_EXTRA_SYMBOLS); the symbol dependency pins kprof while the
 * driver is loaded.
 *
 * Context rules: kprof_irq_enter()/kprof_irq_exit() are for the primary
 * handler; kprof_thread_begin() for the first thing the threaded handler
 * does; the rest may be called from any context but NMI, including hard
 * IRQ. None of them sleeps. A device's hooks must have stopped running (IRQ
 * freed, timers cancelled) before kprof_dev_unregister().
 *
 * Misuse is ignored and counted, never warned about (kprof/misuse in
 * debugfs, shown by 'kprofctl counters'): a hook on a NULL or ERR_PTR()
 * device (a driver may keep a failed registration's result and treat kprof
 * as optional), a hook in NMI (kprof_now() then returns 0), a span id the
 * device did not register.
 */
#ifndef _KPROF_KPROF_H
#define _KPROF_KPROF_H

#include <linux/irqreturn.h>
#include <linux/jump_label.h>
#include <linux/types.h>

/*
 * Whether a hook does anything: the static branch, a NOP while nobody
 * listens. A driver built with -DKPROF_NO_HOOKS has every hook compiled out
 * (make bench's P1b measures a driver against such a build of itself).
 */
#ifdef KPROF_NO_HOOKS
#define kprof_listening()	false
#else
#define kprof_listening()	static_branch_unlikely(&kprof_active)
#endif

/* Span ids are 0 .. KPROF_MAX_SPANS - 1. */
#define KPROF_MAX_SPANS		8
/* Longest device name, without the terminating NUL. */
#define KPROF_NAME_MAX		31

struct kprof_dev;

/**
 * struct kprof_dev_info - what kprof_dev_register() needs to know
 * @irq:	the Linux IRQ number this device's hooks measure, or -1
 * @span_names:	names of span ids 0, 1, ... (NULL-terminated array, at most
 *		KPROF_MAX_SPANS entries); NULL if the driver uses no spans.
 *		debugfs shows them; the strings are copied.
 */
struct kprof_dev_info {
	int irq;
	const char * const *span_names;
};

DECLARE_STATIC_KEY_FALSE(kprof_active);

/**
 * kprof_dev_register() - make a device known to kprof
 * @name:	unique name, [A-Za-z0-9_.-], at most KPROF_NAME_MAX characters;
 *		it names the debugfs directory kprof/<name>/ and appears in
 *		every event
 * @info:	IRQ number and span names; NULL means no IRQ, no spans
 *
 * May sleep. Return: the device, or an ERR_PTR(): -EINVAL for a bad name or
 * too many spans, -EEXIST if the name is taken, -ENOMEM.
 */
struct kprof_dev *kprof_dev_register(const char *name,
				     const struct kprof_dev_info *info);

/**
 * kprof_dev_unregister() - forget a device and free it
 * @dev:	a device from kprof_dev_register(); NULL or an ERR_PTR() is
 *		ignored
 *
 * May sleep. The caller must have stopped every source of hook calls.
 */
void kprof_dev_unregister(struct kprof_dev *dev);

/* Out-of-line halves of the hooks; call the inline wrappers instead. */
void __kprof_irq_enter(struct kprof_dev *dev);
void __kprof_irq_exit(struct kprof_dev *dev, irqreturn_t ret);
void __kprof_thread_begin(struct kprof_dev *dev);
void __kprof_batch_begin(struct kprof_dev *dev);
void __kprof_batch_end(struct kprof_dev *dev, u32 npackets);
void __kprof_span_begin(struct kprof_dev *dev, u32 id);
void __kprof_span_end(struct kprof_dev *dev, u32 id);
void __kprof_span_end_at(struct kprof_dev *dev, u32 id, u64 start_ns);
u64 __kprof_now(void);

/**
 * kprof_irq_enter() - the primary (hard) handler starts
 * @dev:	the device
 *
 * Stamps the hard-IRQ entry. Whether the stamp counts towards the
 * IRQ-to-thread latency is decided by kprof_irq_exit(): only an IRQ whose
 * primary handler woke the thread is waited for by one.
 */
static __always_inline void kprof_irq_enter(struct kprof_dev *dev)
{
	if (kprof_listening())
		__kprof_irq_enter(dev);
}

/**
 * kprof_irq_exit() - the primary handler is about to return @ret
 * @dev:	the device
 * @ret:	what the primary handler returns: IRQ_NONE (not this device's
 *		IRQ, on a shared line), IRQ_HANDLED (dealt with, no thread
 *		run) or IRQ_WAKE_THREAD
 *
 * Emits kprof_irq_handler with the time since kprof_irq_enter(). With
 * IRQ_WAKE_THREAD the entry stamp waits for the next kprof_thread_begin();
 * if an earlier woken IRQ is still waiting, the earlier stamp is kept and
 * this IRQ is counted as coalesced into the same thread run. With any other
 * value the stamp is dropped, so it is never billed to an unrelated run.
 *
 * Return: @ret, so that a handler can end with
 * ``return kprof_irq_exit(dev, IRQ_WAKE_THREAD);``
 */
static __always_inline irqreturn_t kprof_irq_exit(struct kprof_dev *dev,
						  irqreturn_t ret)
{
	if (kprof_listening())
		__kprof_irq_exit(dev, ret);
	return ret;
}

/**
 * kprof_thread_begin() - the threaded handler starts a run
 * @dev:	the device
 *
 * Emits kprof_irq_thread_latency, measured from the first woken IRQ not
 * yet served by a thread run, with the number of further woken IRQs
 * coalesced into this run.
 */
static __always_inline void kprof_thread_begin(struct kprof_dev *dev)
{
	if (kprof_listening())
		__kprof_thread_begin(dev);
}

/**
 * kprof_batch_begin() - a processing pass starts
 * @dev:	the device
 *
 * Passes on one device must not overlap.
 */
static __always_inline void kprof_batch_begin(struct kprof_dev *dev)
{
	if (kprof_listening())
		__kprof_batch_begin(dev);
}

/**
 * kprof_batch_end() - a processing pass ends
 * @dev:	the device
 * @npackets:	packets processed in the pass
 *
 * Emits kprof_batch with the pass's duration.
 */
static __always_inline void kprof_batch_end(struct kprof_dev *dev, u32 npackets)
{
	if (kprof_listening())
		__kprof_batch_end(dev, npackets);
}

/**
 * kprof_span_begin() - open span @id on @dev
 * @dev:	the device
 * @id:		span id, below KPROF_MAX_SPANS
 *
 * One span per id is open at a time; beginning an open span restarts it.
 * For many overlapping intervals (packets in flight) use kprof_now() and
 * kprof_span_end_at().
 */
static __always_inline void kprof_span_begin(struct kprof_dev *dev, u32 id)
{
	if (kprof_listening())
		__kprof_span_begin(dev, id);
}

/**
 * kprof_span_end() - close span @id on @dev and emit kprof_span
 * @dev:	the device
 * @id:		span id
 *
 * Does nothing if the span is not open.
 */
static __always_inline void kprof_span_end(struct kprof_dev *dev, u32 id)
{
	if (kprof_listening())
		__kprof_span_end(dev, id);
}

/**
 * kprof_now() - a start time for kprof_span_end_at()
 *
 * Return: the current time in ns, or 0 while kprof is not listening (then
 * kprof_span_end_at() ignores it).
 */
static __always_inline u64 kprof_now(void)
{
	if (kprof_listening())
		return __kprof_now();
	return 0;
}

/**
 * kprof_span_end_at() - emit kprof_span for an interval that began at @start_ns
 * @dev:	the device
 * @id:		span id
 * @start_ns:	a kprof_now() value; 0 (taken while kprof was off) is ignored
 */
static __always_inline void kprof_span_end_at(struct kprof_dev *dev, u32 id,
					      u64 start_ns)
{
	if (kprof_listening() && start_ns)
		__kprof_span_end_at(dev, id, start_ns);
}

#endif /* _KPROF_KPROF_H */
