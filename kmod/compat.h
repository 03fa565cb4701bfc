/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels kprof builds against
 * (Debian 5.10 to 7.3). Nothing else in kprof tests versions.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/irq.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/version.h>

/* 6.10 dropped __assign_str()'s source argument: it now uses __string()'s. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define kprof_assign_str(dst, src)	__assign_str(dst)
#else
#define kprof_assign_str(dst, src)	__assign_str(dst, src)
#endif

/* 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define kprof_hrtimer_setup(timer, fn, clock, mode)	hrtimer_setup(timer, fn, clock, mode)
#else
static inline void kprof_hrtimer_setup(struct hrtimer *timer,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#endif

/* 6.7 added the list of event systems an instance is created with. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define kprof_trace_array_get(name)	trace_array_get_by_name(name, NULL)
#else
#define kprof_trace_array_get(name)	trace_array_get_by_name(name)
#endif

/*
 * 6.13 removed IRQ_MOVE_PCNTXT: an IRQ's affinity now changes in process
 * context unless its chip defers it. Before, x86 deferred it to the next
 * interrupt's ack, which a chip without an ack path never reaches.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define kprof_irq_move_in_process_context(irq)	irq_set_status_flags(irq, IRQ_MOVE_PCNTXT)
#else
#define kprof_irq_move_in_process_context(irq)	do { } while (0)
#endif

/*
 * Whether a registered kprobe's handler runs in NMI context: on x86 one
 * that is not on ftrace is an int3, whose handler does (irqentry_nmi_enter()).
 */
#ifdef CONFIG_X86
#define kprof_kprobe_in_nmi(kp)	(!kprobe_ftrace(kp))
#else
#define kprof_kprobe_in_nmi(kp)	false
#endif

/*
 * 0 if the function @name has an ftrace entry, -EOPNOTSUPP if not (or
 * -ENOMEM), asked before a kprobe is registered on it. On x86 a kprobe
 * elsewhere is an int3, and the kernel tries to optimize it at
 * registration, decoding the whole function to the size kallsyms gives:
 * on 6.12 that read past the end of a module's text for its exit
 * function (an Oops). A scratch ftrace_ops' filter fails when no ftrace
 * location has the name; a filter set empty again frees its hash
 * (ftrace_free_filter() is not exported before 6.2 and its stable
 * backports: 5.10 lacks it). Elsewhere a kprobe is the
 * architecture's breakpoint, whatever ftrace has.
 */
#if defined(CONFIG_X86) && defined(CONFIG_DYNAMIC_FTRACE)
static inline int kprof_ftrace_entry(const char *name)
{
	struct ftrace_ops *ops;
	int ret;

	ops = kzalloc(sizeof(*ops), GFP_KERNEL);	/* too big for a stack */
	if (!ops)
		return -ENOMEM;
	ret = ftrace_set_filter(ops, (unsigned char *)name, strlen(name), 1);
	if (!ret)
		ftrace_set_filter(ops, NULL, 0, 1);
	kfree(ops);
	return ret ? -EOPNOTSUPP : 0;
}
#else
static inline int kprof_ftrace_entry(const char *name)
{
	return 0;
}
#endif

/*
 * The kretprobe of an instance: 5.11 replaced kretprobe_instance::rp with
 * get_kretprobe(), which only a kernel with kretprobes defines (without
 * them, register_kretprobe() fails and no handler runs).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define kprof_kretprobe_of(ri)	((ri)->rp)
#elif defined(CONFIG_KRETPROBES)
#define kprof_kretprobe_of(ri)	get_kretprobe(ri)
#else
#define kprof_kretprobe_of(ri)	((struct kretprobe *)NULL)
#endif

/*
 * How many calls of @rp's function the current task has in flight, from
 * the task's own list of pending returns, newest first. An entry handler
 * runs before its call joins the list, so from there this is the number
 * of calls it is nested in (recursion, or an interrupt of a call). The
 * list is the task's: only it, or an interrupt that restores it before
 * returning, changes it. KPROF_KRETPROBE_DEPTH is 0 where the kernel
 * keeps the instances in kprobes' private hash table (before 5.11).
 */
#define KPROF_DEPTH_WALK_MAX	1024	/* nodes walked at most */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0) || !defined(CONFIG_KRETPROBES)
#define KPROF_KRETPROBE_DEPTH	0
static inline unsigned int kprof_kretprobe_depth(struct kretprobe *rp)
{
	return 0;
}
#else
#define KPROF_KRETPROBE_DEPTH	1
static inline unsigned int kprof_kretprobe_depth(struct kretprobe *rp)
{
	unsigned int depth = 0, walked = 0;
	struct llist_node *n;

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	for (n = READ_ONCE(current->rethooks.first); n && walked < KPROF_DEPTH_WALK_MAX;
	     n = READ_ONCE(n->next), walked++)
		depth += container_of(n, struct rethook_node, llist)->rethook == rp->rh;
#else
	for (n = READ_ONCE(current->kretprobe_instances.first);
	     n && walked < KPROF_DEPTH_WALK_MAX; n = READ_ONCE(n->next), walked++)
		depth += container_of(n, struct kretprobe_instance, llist)->rph == rp->rph;
#endif
	return depth;
}
#endif

/*
 * A kprobe handler's view of its function's arguments: the architectures
 * with HAVE_FUNCTION_ARG_ACCESS_API (x86, arm64 and others; not 32-bit arm).
 */
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
#define KPROF_KPROBE_ARGS	1
#else
#define KPROF_KPROBE_ARGS	0
#endif

static inline unsigned long kprof_kprobe_arg(struct pt_regs *regs, unsigned int n)
{
#if defined(CONFIG_S390)
	/*
	 * s390's regs_get_kernel_argument() calls regs_get_register(), which
	 * the kernel does not export. The first five arguments are r2 to r6.
	 */
	return n < 5 ? regs->gprs[2 + n] : 0;
#elif defined(CONFIG_HAVE_FUNCTION_ARG_ACCESS_API)
	return regs_get_kernel_argument(regs, n);
#else
	return 0;
#endif
}

/*
 * kernel/irq/internals.h's IRQTF_FORCED_THREAD, private to the IRQ core:
 * the bit of irqaction.thread_flags set on an action whose primary handler
 * the core forced into its thread (threadirqs, PREEMPT_RT). The same bit
 * from 3.x to 7.3; tests/vm/girq_forced.sh catches a kernel that moves it
 * (kprof/girq_counters' forced_unmarked).
 */
#define KPROF_IRQTF_FORCED_THREAD	3

#endif /* _KPROF_COMPAT_H */
