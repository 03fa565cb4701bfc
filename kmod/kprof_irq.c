// SPDX-License-Identifier: GPL-2.0
/*
 * The generic IRQ tracker: hard-IRQ handler time and IRQ-to-thread latency
 * for any driver, from the kernel's own tracepoints.
 *
 * A wake request is a hard handler returning IRQ_WAKE_THREAD for an action
 * with a thread. The kernel then calls __irq_wake_thread(), which wakes the
 * thread only if it was asleep; so the request's outcome shows on the same
 * CPU right after irq_handler_exit, before any other probe of ours runs
 * there:
 *  - sched_waking of the thread: the IRQ woke it. The thread gets a slot,
 *    keyed by its pid and start time (never a pointer), until it is switched
 *    in (kprof_girq_thread) or found still on its CPU at sched_wakeup (it had
 *    not finished going to sleep, runs on, and serves the IRQ without a
 *    switch: on_cpu_requests);
 *  - no waking: the thread was woken already (coalesced into its slot) or
 *    running (running_requests); either way the IRQ is served by a run that
 *    is not measured from it.
 * A request is counted in wake_requests when its outcome is seen; one
 * whose outcome the probes' detach cut off is not counted at all.
 * So: wake_requests = woken + coalesced + running_requests, and every woken
 * or coalesced request ends in a kprof_girq_thread event (its run_requests:
 * 1 + coalesced), in on_cpu_requests, or in dropped_requests (no free slot,
 * or still pending when the probes were detached).
 *
 * Locking: every probe runs with interrupts off on its own CPU (hard IRQ,
 * or the scheduler's raw locks), so the per-CPU state is its CPU's alone;
 * its lock only orders it against readers (debugfs), and makes an event
 * counted in seq be in the ring buffer before the count can be read. The
 * pending threads sit in a small hash of buckets, one raw lock each; the
 * scheduler probes look at a bucket's fill count first, locklessly, and
 * take its lock only when it holds some thread.
 *
 * In-kernel aggregation (kprof/girq_aggregate, kprof/girq_hist): every
 * sample the events carry also goes, while on, into a histogram of its
 * CPU, IRQ action and event. Each CPU has girq_agg_slots actions' worth,
 * claimed by the first samples of each; samples of actions beyond them are
 * counted per CPU and event (untracked), never dropped unseen. A CPU's
 * histograms are written by its probes under its lock, which they hold
 * anyway for seq.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include <trace/events/irq.h>
#include <trace/events/kprof.h>
#include <trace/events/sched.h>

#include "kprof_internal.h"

#define GIRQ_NAME_LEN	32
#define GIRQ_HASH_BITS	6
#define GIRQ_WAYS	4
#define GIRQ_NEST	4
#define GIRQ_AGG_SLOTS_MAX	64

static unsigned int girq_agg_slots = 8;
module_param(girq_agg_slots, uint, 0444);
MODULE_PARM_DESC(girq_agg_slots,
		 "IRQ actions per CPU kprof/girq_aggregate keeps histograms for (1..64, default 8; 336 KiB each)");

enum girq_event { GIRQ_EV_HANDLER, GIRQ_EV_WAKE, GIRQ_EV_THREAD, GIRQ_NR_EVENTS };

static const char * const girq_event_names[GIRQ_NR_EVENTS] = {
	"kprof_girq_handler", "kprof_girq_wake", "kprof_girq_thread",
};

enum girq_counter {
	GC_HANDLERS,		/* handler runs timed (entry seen) */
	GC_UNMATCHED,		/* exits without their entry: not timed */
	GC_WAKE_REQUESTS,	/* IRQ_WAKE_THREAD for an action with a thread,
				 * counted when its outcome is seen */
	GC_WOKEN,		/* ... that woke the sleeping thread */
	GC_COALESCED,		/* ... found it woken, not yet switched in */
	GC_RUNNING,		/* ... found it running: no wake */
	GC_RUNS,		/* switch-ins of woken threads (thread events) */
	GC_RUN_REQUESTS,	/* requests those runs served (1 + coalesced) */
	GC_ON_CPU,		/* requests served by a thread woken on its CPU */
	GC_DROPPED,		/* requests lost: no free slot, or detached */
	GC_NR,
};

static const char * const girq_counter_names[GC_NR] = {
	"handlers", "unmatched_exits", "wake_requests", "woken", "coalesced",
	"running_requests", "runs", "run_requests", "on_cpu_requests",
	"dropped_requests",
};

/* A wake request, as long as its outcome is unknown or its thread waits. */
struct girq_req {
	pid_t pid;		/* the action's thread: pid and start time */
	u64 tstart;
	int irq;
	int hard_cpu;
	u64 entry;		/* irq_handler_entry, ns */
	char name[GIRQ_NAME_LEN];
};

/* A hard handler running on a CPU, since irq_handler_entry. */
struct girq_hard {
	int irq;
	const void *action;	/* compared, never dereferenced */
	u64 start;
};

/* One IRQ action's histograms on one CPU (kprof/girq_aggregate). */
struct girq_agg {
	bool used;
	int irq;
	char name[GIRQ_NAME_LEN];
	struct kprof_hist hist[GIRQ_NR_EVENTS];
};

struct girq_cpu {
	raw_spinlock_t lock;	/* for readers: seq, cnt and the aggregation */
	u64 seq[GIRQ_NR_EVENTS];
	u64 cnt[GC_NR];
	struct girq_agg *agg;	/* girq_agg_slots of them, or NULL */
	bool agg_on;
	u64 untracked[GIRQ_NR_EVENTS];	/* samples of actions without a slot */
	/* This CPU's probes only: */
	/*
	 * The hard handlers running, innermost last: a demultiplexing
	 * handler's generic_handle_irq() nests its children's on this CPU.
	 * Entries beyond GIRQ_NEST are counted in depth, not kept: their
	 * exits are unmatched.
	 */
	unsigned int depth;
	struct girq_hard hard[GIRQ_NEST];
	bool expect;		/* req's outcome is not known yet */
	struct girq_req req;
};

struct girq_slot {
	struct girq_req req;	/* the request that woke the thread */
	u32 coalesced;
	bool used;
};

struct girq_bucket {
	raw_spinlock_t lock;
	unsigned int used;	/* slots in use; a lockless hint outside the lock */
	struct girq_slot slot[GIRQ_WAYS];
};

/*
 * Every lock is initialised statically: the module's events exist, and
 * their reg callbacks can run, from the moment the module is COMING, before
 * kprof_init() has run (set_event's ":mod:kprof", perf_event_open()).
 */
static DEFINE_PER_CPU(struct girq_cpu, girq_cpus) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(girq_cpus.lock),
};
static struct girq_bucket girq_hash[1 << GIRQ_HASH_BITS] = {
	[0 ... (1 << GIRQ_HASH_BITS) - 1] = {
		.lock = __RAW_SPIN_LOCK_UNLOCKED(girq_hash.lock),
	},
};

static void girq_count(enum girq_counter c, u64 n)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);

	raw_spin_lock(&gc->lock);
	gc->cnt[c] += n;
	raw_spin_unlock(&gc->lock);
}

static struct girq_bucket *girq_bucket_of(pid_t pid)
{
	return &girq_hash[hash_32((u32)pid, GIRQ_HASH_BITS)];
}

/* @b's slot of the thread (@pid, @tstart), or NULL; @b locked. */
static struct girq_slot *girq_find(struct girq_bucket *b, pid_t pid, u64 tstart)
{
	int i;

	for (i = 0; i < GIRQ_WAYS; i++)
		if (b->slot[i].used && b->slot[i].req.pid == pid &&
		    b->slot[i].req.tstart == tstart)
			return &b->slot[i];
	return NULL;
}

static void girq_release(struct girq_bucket *b, struct girq_slot *s)
{
	s->used = false;
	WRITE_ONCE(b->used, b->used - 1);
}

/*
 * The request this CPU made last did not wake its thread: it joins the
 * thread's pending run, or the thread was running. Every probe calls this
 * first, except sched_waking when it is that thread's waking.
 */
static void girq_settle(struct girq_cpu *gc)
{
	struct girq_bucket *b;
	struct girq_slot *s;

	if (likely(!gc->expect))
		return;
	gc->expect = false;
	b = girq_bucket_of(gc->req.pid);
	raw_spin_lock(&b->lock);
	s = girq_find(b, gc->req.pid, gc->req.tstart);
	if (s)
		s->coalesced++;
	raw_spin_unlock(&b->lock);
	girq_count(GC_WAKE_REQUESTS, 1);
	girq_count(s ? GC_COALESCED : GC_RUNNING, 1);
}

/* Aggregate a sample of @ev for (@irq, @name); gc->lock held. */
static void girq_agg_add(struct girq_cpu *gc, enum girq_event ev, int irq,
			 const char *name, u64 ns)
{
	struct girq_agg *a;
	unsigned int i;

	if (!gc->agg_on)
		return;
	for (i = 0; i < girq_agg_slots; i++) {
		a = &gc->agg[i];
		if (!a->used) {
			a->used = true;
			a->irq = irq;
			strscpy(a->name, name, sizeof(a->name));
			break;
		}
		if (a->irq == irq && !strncmp(a->name, name, sizeof(a->name) - 1))
			break;
	}
	if (i == girq_agg_slots)
		gc->untracked[ev]++;
	else
		kprof_hist_add(&a->hist[ev], ns);
}

static void girq_entry(void *data, int irq, struct irqaction *action)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);

	girq_settle(gc);
	if (gc->depth < GIRQ_NEST) {
		struct girq_hard *h = &gc->hard[gc->depth];

		h->irq = irq;
		h->action = action;
		h->start = ktime_get_ns();
	}
	gc->depth++;
}

/*
 * Pop the innermost hard handler: its start if it is (@irq, @action), else
 * 0 (its entry came before the probes, or beyond GIRQ_NEST).
 */
static u64 girq_pop(struct girq_cpu *gc, int irq, const void *action)
{
	const struct girq_hard *h;

	if (!gc->depth)
		return 0;
	gc->depth--;
	if (gc->depth >= GIRQ_NEST)
		return 0;
	h = &gc->hard[gc->depth];
	return h->action == action && h->irq == irq ? h->start : 0;
}

static void girq_handler_event(struct girq_cpu *gc, int irq, const char *name,
			       int ret, u64 start, u64 now)
{
	raw_spin_lock(&gc->lock);
	gc->cnt[GC_HANDLERS]++;
	girq_agg_add(gc, GIRQ_EV_HANDLER, irq, name, now - start);
	if (trace_kprof_girq_handler_enabled())
		trace_kprof_girq_handler(irq, name, ret, now - start,
					 ++gc->seq[GIRQ_EV_HANDLER]);
	raw_spin_unlock(&gc->lock);
}

static void girq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);
	const char *name = action->name ?: "?";
	u64 now = ktime_get_ns();
	u64 start;

	girq_settle(gc);
	start = girq_pop(gc, irq, action);
	if (start)
		girq_handler_event(gc, irq, name, ret, start, now);
	else
		girq_count(GC_UNMATCHED, 1);
	if (ret != IRQ_WAKE_THREAD || !action->thread_fn || !action->thread)
		return;
	/* Not timed: the request counts, but nothing is measured from it. */
	gc->req.pid = action->thread->pid;
	gc->req.tstart = action->thread->start_time;
	gc->req.irq = irq;
	gc->req.hard_cpu = smp_processor_id();
	gc->req.entry = start;
	strscpy(gc->req.name, name, sizeof(gc->req.name));
	gc->expect = true;
}

/* Emit @ev for request @r, if it is enabled and @r was timed; gc->lock held. */
static void girq_trace_delta(struct girq_cpu *gc, enum girq_event ev,
			     const struct girq_req *r, u32 coalesced, u64 now)
{
	if (!r->entry)
		return;
	girq_agg_add(gc, ev, r->irq, r->name, now - r->entry);
	if (ev == GIRQ_EV_WAKE && trace_kprof_girq_wake_enabled())
		trace_kprof_girq_wake(r->irq, r->name, r->hard_cpu, now - r->entry,
				      coalesced, ++gc->seq[ev]);
	else if (ev == GIRQ_EV_THREAD && trace_kprof_girq_thread_enabled())
		trace_kprof_girq_thread(r->irq, r->name, r->hard_cpu, now - r->entry,
					coalesced, ++gc->seq[ev]);
}

static void girq_delta_event(enum girq_event ev, const struct girq_req *r,
			     u32 coalesced, u64 now)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);

	raw_spin_lock(&gc->lock);
	if (ev == GIRQ_EV_THREAD) {
		gc->cnt[GC_RUNS]++;
		gc->cnt[GC_RUN_REQUESTS] += 1 + coalesced;
	}
	girq_trace_delta(gc, ev, r, coalesced, now);
	raw_spin_unlock(&gc->lock);
}

/* The request in @gc woke its thread: give the thread a slot. */
static void girq_woke(struct girq_cpu *gc, u64 now)
{
	struct girq_bucket *b = girq_bucket_of(gc->req.pid);
	struct girq_slot *s;
	u64 dropped = 0;
	int i;

	raw_spin_lock(&b->lock);
	s = girq_find(b, gc->req.pid, gc->req.tstart);
	if (s) {
		/* Woken again without a switch-in seen: the old one is gone. */
		dropped = 1 + s->coalesced;
		girq_release(b, s);
	}
	for (i = 0; i < GIRQ_WAYS && b->slot[i].used; i++)
		;
	if (i < GIRQ_WAYS) {
		b->slot[i].req = gc->req;
		b->slot[i].coalesced = 0;
		b->slot[i].used = true;
		WRITE_ONCE(b->used, b->used + 1);
	}
	raw_spin_unlock(&b->lock);
	girq_count(GC_WAKE_REQUESTS, 1);
	girq_count(GC_WOKEN, 1);
	if (i == GIRQ_WAYS)
		dropped++;
	if (dropped)
		girq_count(GC_DROPPED, dropped);
	girq_delta_event(GIRQ_EV_WAKE, &gc->req, 0, now);
}

/*
 * sched_waking and sched_wakeup fire with interrupts on when a task wakes
 * itself (try_to_wake_up()'s p == current path). A hard IRQ there would run
 * girq_entry()/girq_exit() on this CPU's request in the middle of these
 * probes, and take a bucket lock they hold: interrupts are off in them.
 */
static void __girq_waking(struct girq_cpu *gc, struct task_struct *p)
{
	if (gc->expect && gc->req.pid == p->pid && gc->req.tstart == p->start_time) {
		gc->expect = false;
		girq_woke(gc, ktime_get_ns());
		return;
	}
	girq_settle(gc);
}

static void girq_waking(void *data, struct task_struct *p)
{
	unsigned long flags;

	local_irq_save(flags);
	__girq_waking(this_cpu_ptr(&girq_cpus), p);
	local_irq_restore(flags);
}

/*
 * Take @p's slot out of the hash if it has one; true if it did. The
 * lockless look at the bucket's fill count keeps the common case (no IRQ
 * thread pending) to one load.
 */
static bool girq_take(struct task_struct *p, struct girq_slot *out)
{
	struct girq_bucket *b;
	struct girq_slot *s;

	if (!(p->flags & PF_KTHREAD))
		return false;
	b = girq_bucket_of(p->pid);
	if (!READ_ONCE(b->used))
		return false;
	raw_spin_lock(&b->lock);
	s = girq_find(b, p->pid, p->start_time);
	if (s) {
		*out = *s;
		girq_release(b, s);
	}
	raw_spin_unlock(&b->lock);
	return s;
}

static void girq_wakeup(void *data, struct task_struct *p)
{
	struct girq_slot s;
	unsigned long flags;

	local_irq_save(flags);
	girq_settle(this_cpu_ptr(&girq_cpus));
	/* Still on its CPU: it runs on and serves the IRQ, no switch-in. */
	if (kprof_task_on_cpu(p) && girq_take(p, &s))
		girq_count(GC_ON_CPU, 1 + s.coalesced);
	local_irq_restore(flags);
}

static void girq_switch(KPROF_SCHED_SWITCH_PROTO)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);
	struct girq_slot s;

	girq_settle(gc);
	if (girq_take(next, &s))
		girq_delta_event(GIRQ_EV_THREAD, &s.req, s.coalesced, ktime_get_ns());
}

/* Attaching and detaching, from a work item. */

struct girq_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct girq_tp girq_tps[] = {
	{ "sched_switch", girq_switch },
	{ "sched_wakeup", girq_wakeup },
	{ "sched_waking", girq_waking },
	{ "irq_handler_exit", girq_exit },
	{ "irq_handler_entry", girq_entry },
};

static DEFINE_MUTEX(girq_mutex);	/* attached, and the probes' state */
static bool girq_attached;
static atomic_t girq_users = ATOMIC_INIT(0);
static DEFINE_SPINLOCK(girq_work_lock);
/*
 * Under girq_work_lock: no work may be queued. True until kprof_init() has
 * succeeded (kprof_girq_start()) and again from kprof_girq_exit(): a reg
 * callback of a module that is COMING, or whose init fails, attaches
 * nothing and queues nothing.
 */
static bool girq_dead = true;
static void girq_work_fn(struct work_struct *work);
static DECLARE_WORK(girq_work, girq_work_fn);

static void girq_lookup(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(girq_tps); i++)
		if (!strcmp(tp->name, girq_tps[i].name))
			girq_tps[i].tp = tp;
}

/* Forget every pending request; no probe runs. */
static void girq_reset(void)
{
	u64 dropped = 0;
	int cpu, i, w;

	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		/* Its outcome was not seen: it was never counted. */
		gc->expect = false;
		gc->depth = 0;
	}
	for (i = 0; i < ARRAY_SIZE(girq_hash); i++) {
		for (w = 0; w < GIRQ_WAYS; w++) {
			struct girq_slot *s = &girq_hash[i].slot[w];

			if (s->used)
				dropped += 1 + s->coalesced;
			s->used = false;
		}
		girq_hash[i].used = 0;
	}
	raw_spin_lock_irq(&this_cpu_ptr(&girq_cpus)->lock);
	this_cpu_ptr(&girq_cpus)->cnt[GC_DROPPED] += dropped;
	raw_spin_unlock_irq(&this_cpu_ptr(&girq_cpus)->lock);
}

static void girq_detach_locked(void)
{
	int i;

	lockdep_assert_held(&girq_mutex);
	if (!girq_attached)
		return;
	for (i = ARRAY_SIZE(girq_tps) - 1; i >= 0; i--)
		WARN_ON_ONCE(tracepoint_probe_unregister(girq_tps[i].tp,
							 girq_tps[i].probe, NULL));
	tracepoint_synchronize_unregister();
	girq_attached = false;
	preempt_disable();
	girq_reset();
	preempt_enable();
}

/*
 * The probes' prototypes against their tracepoints', at compile time: a
 * kernel whose prototype differs from what compat.h chose by version (a
 * vendor's backport) does not build, rather than call a probe through the
 * wrong type (fatal under kernel CFI).
 */
static void girq_check_prototypes(void)
{
	check_trace_callback_type_sched_switch(girq_switch);
	check_trace_callback_type_sched_wakeup(girq_wakeup);
	check_trace_callback_type_sched_waking(girq_waking);
	check_trace_callback_type_irq_handler_exit(girq_exit);
	check_trace_callback_type_irq_handler_entry(girq_entry);
}

static int girq_attach_locked(void)
{
	int i, ret;

	lockdep_assert_held(&girq_mutex);
	girq_check_prototypes();
	for_each_kernel_tracepoint(girq_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(girq_tps); i++)
		if (!girq_tps[i].tp) {
			pr_warn("no %s tracepoint: the IRQ tracker cannot attach\n",
				girq_tps[i].name);
			return -ENOENT;
		}
	for (i = 0; i < ARRAY_SIZE(girq_tps); i++) {
		ret = tracepoint_probe_register(girq_tps[i].tp, girq_tps[i].probe, NULL);
		if (ret)
			goto unwind;
	}
	girq_attached = true;
	return 0;

unwind:
	pr_warn("cannot attach to %s (%d)\n", girq_tps[i].name, ret);
	while (--i >= 0)
		tracepoint_probe_unregister(girq_tps[i].tp, girq_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	preempt_disable();
	girq_reset();
	preempt_enable();
	return ret;
}

static void girq_work_fn(struct work_struct *work)
{
	mutex_lock(&girq_mutex);
	if (atomic_read(&girq_users) > 0 && !girq_attached)
		girq_attach_locked();
	else if (atomic_read(&girq_users) == 0)
		girq_detach_locked();
	mutex_unlock(&girq_mutex);
}

static void girq_kick(void)
{
	spin_lock(&girq_work_lock);
	if (!girq_dead)
		schedule_work(&girq_work);
	spin_unlock(&girq_work_lock);
}

/*
 * TRACE_EVENT_FN callbacks of the kprof_girq_* events. They run under the
 * tracepoint core's mutex, where registering probes would deadlock: the
 * work item attaches or detaches.
 */
int kprof_girq_reg(void)
{
	atomic_inc(&girq_users);
	girq_kick();
	return 0;
}

void kprof_girq_unreg(void)
{
	atomic_dec(&girq_users);
	girq_kick();
}

/* In-kernel aggregation */

static int girq_agg_set(unsigned int val);

static struct kprof_agg_ctl girq_agg = {
	.lock = __MUTEX_INITIALIZER(girq_agg.lock),
	.set = girq_agg_set,
};

static struct girq_agg *girq_agg_mem;	/* every CPU's slots; girq_agg.lock */

/*
 * Give each CPU its slots in @mem (or none), recording or not; returns the
 * old ones. After this no probe uses the old slots: they are only touched
 * under the CPU's lock.
 */
static struct girq_agg *girq_agg_swap(struct girq_agg *mem, bool on)
{
	struct girq_agg *old = girq_agg_mem;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		raw_spin_lock_irq(&gc->lock);
		if (mem != old) {
			gc->agg = mem ? mem + cpu * girq_agg_slots : NULL;
			memset(gc->untracked, 0, sizeof(gc->untracked));
		}
		gc->agg_on = on;
		raw_spin_unlock_irq(&gc->lock);
	}
	girq_agg_mem = mem;
	return mem == old ? NULL : old;
}

/* Fresh slots, recording, and the probes attached; girq_agg.lock held. */
static int girq_agg_start(void)
{
	struct girq_agg *mem;
	bool attached;

	mem = kvcalloc(array_size(nr_cpu_ids, girq_agg_slots), sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	kvfree(girq_agg_swap(mem, true));
	flush_work(&girq_work);
	mutex_lock(&girq_mutex);
	attached = girq_attached;
	mutex_unlock(&girq_mutex);
	return attached ? 0 : -ENOENT;
}

/* While on, the aggregation holds a reference on the probes (girq_users). */
static int girq_agg_set(unsigned int val)
{
	bool had_ref = girq_agg.state == KPROF_AGG_ON;
	int ret = 0;

	if (val == KPROF_AGG_ON && !had_ref)
		kprof_girq_reg();
	if (val == KPROF_AGG_ON)
		ret = girq_agg_start();
	else if (val == KPROF_AGG_FROZEN)
		girq_agg_swap(girq_agg_mem, false);
	if ((had_ref || val == KPROF_AGG_ON) && (ret || val != KPROF_AGG_ON))
		kprof_girq_unreg();
	if (ret || val == KPROF_AGG_OFF)
		kvfree(girq_agg_swap(NULL, false));
	girq_agg.state = ret ? KPROF_AGG_OFF : val;
	return ret;
}

/* The line of one action's histogram of @ev, if it has samples. */
static void girq_hist_print(struct seq_file *m, int cpu, const struct girq_agg *a,
			    enum girq_event ev)
{
	if (!a->hist[ev].count)
		return;
	seq_printf(m, "%s %d %d ", girq_event_names[ev], cpu, a->irq);
	seq_escape(m, a->name, " \t\n\\");
	kprof_hist_print(m, &a->hist[ev]);
}

/*
 * kprof/girq_hist: the layout, the state, then per CPU its untracked
 * samples and a line per action and event with samples:
 *   untracked CPU EVENT N
 *   EVENT CPU IRQ NAME COUNT SUM MIN MAX BUCKET:N ...
 * NAME escapes space, tab, newline and backslash as \ooo.
 */
static int girq_hist_show(struct seq_file *m, void *v)
{
	struct girq_agg *a;
	unsigned int i;
	int cpu, ev;

	a = kvmalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	seq_printf(m, "layout sub_bits=%u kernel_bits=%u buckets=%llu\n",
		   KPROF_HIST_SUB_BITS, KPROF_HIST_KERNEL_BITS,
		   (u64)KPROF_HIST_KERNEL_BUCKETS);
	mutex_lock(&girq_agg.lock);
	seq_printf(m, "state %u\n", girq_agg.state);
	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);
		u64 untracked[GIRQ_NR_EVENTS];

		raw_spin_lock_irq(&gc->lock);
		memcpy(untracked, gc->untracked, sizeof(untracked));
		raw_spin_unlock_irq(&gc->lock);
		for (ev = 0; ev < GIRQ_NR_EVENTS; ev++)
			if (untracked[ev])
				seq_printf(m, "untracked %d %s %llu\n", cpu,
					   girq_event_names[ev], untracked[ev]);
		for (i = 0; girq_agg_mem && i < girq_agg_slots; i++) {
			const struct girq_agg *src = girq_agg_mem + cpu * girq_agg_slots + i;

			raw_spin_lock_irq(&gc->lock);
			a->used = src->used;
			a->irq = src->irq;
			memcpy(a->name, src->name, sizeof(a->name));
			raw_spin_unlock_irq(&gc->lock);
			if (!a->used)
				break;
			for (ev = 0; ev < GIRQ_NR_EVENTS; ev++) {
				kprof_hist_copy(&gc->lock, &a->hist[ev], &src->hist[ev]);
				girq_hist_print(m, cpu, a, ev);
			}
		}
	}
	mutex_unlock(&girq_agg.lock);
	kvfree(a);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(girq_hist);

/* debugfs */

static int girq_counters_show(struct seq_file *m, void *v)
{
	u64 sum[GC_NR] = {};
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		raw_spin_lock_irq(&gc->lock);
		for (i = 0; i < GC_NR; i++)
			sum[i] += gc->cnt[i];
		raw_spin_unlock_irq(&gc->lock);
	}
	mutex_lock(&girq_mutex);
	seq_printf(m, "attached: %d\n", girq_attached);
	mutex_unlock(&girq_mutex);
	for (i = 0; i < GC_NR; i++)
		seq_printf(m, "%s: %llu\n", girq_counter_names[i], sum[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(girq_counters);

static int girq_emitted_show(struct seq_file *m, void *v)
{
	u64 seq[GIRQ_NR_EVENTS];
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		raw_spin_lock_irq(&gc->lock);
		memcpy(seq, gc->seq, sizeof(seq));
		raw_spin_unlock_irq(&gc->lock);
		for (i = 0; i < GIRQ_NR_EVENTS; i++)
			seq_printf(m, "cpu%d %s %llu\n", cpu, girq_event_names[i], seq[i]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(girq_emitted);

void kprof_girq_init(struct dentry *root)
{
	debugfs_create_file(KPROF_FILE(GIRQ_COUNTERS), 0400, root, NULL,
			    &girq_counters_fops);
	debugfs_create_file(KPROF_FILE(GIRQ_EMITTED), 0400, root, NULL,
			    &girq_emitted_fops);
	kprof_agg_file(root, KPROF_FILE(GIRQ_AGGREGATE), &girq_agg);
	debugfs_create_file(KPROF_FILE(GIRQ_HIST), 0400, root, NULL, &girq_hist_fops);
}

int kprof_girq_check_params(void)
{
	if (girq_agg_slots && girq_agg_slots <= GIRQ_AGG_SLOTS_MAX)
		return 0;
	pr_err("girq_agg_slots=%u: must be 1..%u\n", girq_agg_slots, GIRQ_AGG_SLOTS_MAX);
	return -EINVAL;
}

/*
 * The end of a successful kprof_init(): from here on the events' reg
 * callbacks attach the probes, and listeners that came while the module was
 * COMING get them now.
 */
void kprof_girq_start(void)
{
	spin_lock(&girq_work_lock);
	girq_dead = false;
	schedule_work(&girq_work);
	spin_unlock(&girq_work_lock);
}

/*
 * Module exit, after kprof_girq_exit() and the debugfs files are gone: no
 * probe and no reader is left to use the histograms.
 */
void kprof_girq_free(void)
{
	kvfree(girq_agg_swap(NULL, false));
}

/*
 * Module exit: no more work, and the probes off. The events' unreg
 * callbacks may still run after this (the tracing core removes the
 * module's events later); they find girq_dead set.
 */
void kprof_girq_exit(void)
{
	spin_lock(&girq_work_lock);
	girq_dead = true;
	spin_unlock(&girq_work_lock);
	cancel_work_sync(&girq_work);
	mutex_lock(&girq_mutex);
	girq_detach_locked();
	mutex_unlock(&girq_mutex);
}
