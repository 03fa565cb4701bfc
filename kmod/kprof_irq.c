// SPDX-License-Identifier: GPL-2.0
/*
 * The generic IRQ tracker: hard-IRQ handler time and IRQ-to-thread latency
 * for any driver, from the kernel's own tracepoints.
 *
 * A wake request is a hard handler returning IRQ_WAKE_THREAD for an action
 * with a thread. The IRQ core then sets the action's IRQTF_RUNTHREAD and
 * wakes the thread (__irq_wake_thread()); the thread serves the request
 * with the next run of its handler, which starts when it has taken that
 * bit. The run probes (kprobes on irq_thread_fn() and
 * irq_forced_thread_fn(), and kretprobes on their returns) see each run
 * start and end; so entry_to_running (kprof_girq_thread) ends when the run
 * that serves the request starts, whatever the thread did meanwhile. A
 * threaded handler that sleeps in its thread (a bus transfer's
 * wait_for_completion(), msleep(), a mutex) is woken out of that sleep by
 * each IRQ that comes meanwhile; that wake serves nothing, and the run it
 * interrupts does not serve the request either: the request is busy, and
 * its entry_to_running holds the rest of that run.
 *
 * Each request is one of (girq_request()): coalesced (a request of the
 * thread is pending: served by the same run), busy (the thread is in a
 * run), woken (sched_waking of the thread follows on this CPU: it was in its
 * wait; kprof_girq_wake) or running (no waking: between a run's end and its
 * wait, it runs again without sleeping). Without the run probes (no
 * kprobes) a request is only counted: unmeasured. A request counts in
 * wake_requests when it is made and in exactly one kind when that is known
 * (a request still waiting for its waking at detach woke nobody:
 * girq_reset()); a request that finds no free slot is dropped. Every
 * request of the four kinds is served by a run (kprof_girq_thread;
 * run_requests = 1 + coalesced each) or dropped (pending when the probes
 * were detached). So, with no request in flight:
 *   wake_requests = run_requests + dropped + unmeasured.
 * Runs that served no request the tracker saw (its first, or one made in
 * the few instructions between the IRQ core taking the run's request and
 * the run probe, which counts as served by the run starting) are
 * idle_runs.
 *
 * Locking: every probe runs with interrupts off on its own CPU (hard IRQ;
 * sched_waking and the run probes turn them off), so the per-CPU state is
 * its CPU's alone;
 * its lock only orders it against readers (debugfs), and makes an event
 * counted in seq be in the ring buffer before the count can be read. The
 * threads with requests pending or in a run sit in a small hash of buckets,
 * one raw lock each, which orders requests against the run probes.
 * sched_waking, on the scheduler's hot path, costs a load and a branch
 * unless a request of its CPU waits for its outcome.
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
#include <linux/kprobes.h>
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
	GC_WAKE_REQUESTS,	/* IRQ_WAKE_THREAD for an action with a thread */
	GC_WOKEN,		/* ... that woke the thread from its wait */
	GC_COALESCED,		/* ... found a request of the thread's pending */
	GC_BUSY,		/* ... found the thread in a run of its handler */
	GC_RUNNING,		/* ... found it between a run and its wait */
	GC_UNMEASURED,		/* ... without the run probes: not followed */
	GC_RUNS,		/* thread runs that served requests (thread events) */
	GC_RUN_REQUESTS,	/* requests those runs served (1 + coalesced) */
	GC_IDLE_RUNS,		/* thread runs that served no request seen */
	GC_DROPPED,		/* requests lost: no free slot, or detached */
	GC_NR,
};

static const char * const girq_counter_names[GC_NR] = {
	"handlers", "unmatched_exits", "wake_requests", "woken", "coalesced",
	"busy_requests", "running_requests", "unmeasured_requests", "runs",
	"run_requests", "idle_runs", "dropped_requests",
};

/* A wake request: an IRQ_WAKE_THREAD for an action with a thread. */
struct girq_req {
	pid_t pid;		/* the action's thread: pid and start time */
	u64 tstart;
	int irq;
	int hard_cpu;
	u64 entry;		/* irq_handler_entry, ns; 0 if not seen */
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

/*
 * An IRQ thread with requests pending or in a run of its handler: a slot
 * from its first request or run start until it is neither.
 */
struct girq_slot {
	struct girq_req req;	/* identity; while pending, the first request */
	u32 pending;		/* requests its next run serves: 1 + coalesced */
	bool busy;		/* the first of them found it in a run */
	bool in_run;		/* between its run probes */
	bool used;
};

struct girq_bucket {
	raw_spinlock_t lock;
	unsigned int used;	/* slots in use */
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
	b->used--;
}

/*
 * The request this CPU made last, to a thread neither busy nor with a
 * request pending, did not wake it: the thread was between a run and its
 * wait, and runs again without sleeping. Every probe calls this first,
 * except sched_waking when it is that thread's waking.
 */
static void girq_settle(struct girq_cpu *gc)
{
	if (likely(!gc->expect))
		return;
	gc->expect = false;
	girq_count(GC_RUNNING, 1);
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

/* A free slot of @b for the thread of @r, or NULL; @b locked. */
static struct girq_slot *girq_alloc(struct girq_bucket *b, const struct girq_req *r)
{
	struct girq_slot *s;
	int i;

	for (i = 0; i < GIRQ_WAYS; i++) {
		s = &b->slot[i];
		if (s->used)
			continue;
		s->req = *r;
		s->pending = 0;
		s->busy = false;
		s->in_run = false;
		s->used = true;
		b->used++;
		return s;
	}
	return NULL;
}

/* Free @s if its thread has nothing pending and is not in a run; @b locked. */
static void girq_put(struct girq_bucket *b, struct girq_slot *s)
{
	if (!s->pending && !s->in_run)
		girq_release(b, s);
}

static bool girq_run_probes;	/* the run probes are registered */

/*
 * A wake request: the IRQ core wakes the thread (__irq_wake_thread()) right
 * after this, unless its IRQTF_RUNTHREAD is already set. Either way the
 * next run of the thread's handler serves it, and that run's start (the
 * run probes) ends its entry_to_running. What it found, under the
 * thread's bucket lock, which orders it against the run probes:
 *  - a request pending: coalesced into it, served by the same run;
 *  - the thread in a run (a threaded handler that sleeps, or still
 *    running): busy; this run does not serve it, the next one does;
 *  - neither: the thread was in its wait, or between a run's end and the
 *    wait. Which one the next probe on this CPU tells (girq_settle(),
 *    girq_waking()).
 */
static void girq_request(struct girq_cpu *gc, const struct girq_req *r)
{
	struct girq_bucket *b = girq_bucket_of(r->pid);
	enum girq_counter kind = GC_DROPPED;
	struct girq_slot *s;

	girq_count(GC_WAKE_REQUESTS, 1);
	if (!READ_ONCE(girq_run_probes)) {
		girq_count(GC_UNMEASURED, 1);
		return;
	}
	raw_spin_lock(&b->lock);
	s = girq_find(b, r->pid, r->tstart);
	if (s && s->pending) {
		s->pending++;
		kind = GC_COALESCED;
	} else {
		if (!s)
			s = girq_alloc(b, r);
		if (s) {
			s->req = *r;
			s->pending = 1;
			s->busy = s->in_run;
			kind = s->in_run ? GC_BUSY : GC_WOKEN;
		}
	}
	raw_spin_unlock(&b->lock);
	if (kind == GC_WOKEN) {
		/* Woken or running: the next probe on this CPU says. */
		gc->req = *r;
		gc->expect = true;
	} else {
		girq_count(kind, 1);
	}
}

static void girq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);
	const char *name = action->name ?: "?";
	u64 now = ktime_get_ns();
	struct girq_req r;
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
	r.pid = action->thread->pid;
	r.tstart = action->thread->start_time;
	r.irq = irq;
	r.hard_cpu = smp_processor_id();
	r.entry = start;
	strscpy(r.name, name, sizeof(r.name));
	girq_request(gc, &r);
}

/*
 * Emit @ev for request @r, if it is enabled and @r was timed; gc->lock
 * held. @coalesced and @busy describe the run (GIRQ_EV_THREAD).
 */
static void girq_trace_delta(struct girq_cpu *gc, enum girq_event ev,
			     const struct girq_req *r, u32 coalesced, bool busy,
			     u64 now)
{
	if (!r->entry || now < r->entry)
		return;
	girq_agg_add(gc, ev, r->irq, r->name, now - r->entry);
	if (ev == GIRQ_EV_WAKE && trace_kprof_girq_wake_enabled())
		trace_kprof_girq_wake(r->irq, r->name, r->hard_cpu, now - r->entry,
				      coalesced, busy, ++gc->seq[ev]);
	else if (ev == GIRQ_EV_THREAD && trace_kprof_girq_thread_enabled())
		trace_kprof_girq_thread(r->irq, r->name, r->hard_cpu, now - r->entry,
					coalesced, busy, ++gc->seq[ev]);
}

/*
 * sched_waking fires with interrupts on when a task wakes itself
 * (try_to_wake_up()'s p == current path). A hard IRQ there would run
 * girq_entry()/girq_exit() on this CPU's request in the middle of this
 * probe: interrupts are off in it. The common case, no request of this
 * CPU's waiting for its outcome, is a load and a branch.
 */
static void girq_waking(void *data, struct task_struct *p)
{
	struct girq_cpu *gc;
	unsigned long flags;

	if (likely(!this_cpu_read(girq_cpus.expect)))
		return;
	local_irq_save(flags);
	gc = this_cpu_ptr(&girq_cpus);
	if (gc->expect && gc->req.pid == p->pid && gc->req.tstart == p->start_time) {
		u64 now = ktime_get_ns();

		gc->expect = false;
		raw_spin_lock(&gc->lock);
		gc->cnt[GC_WOKEN]++;
		girq_trace_delta(gc, GIRQ_EV_WAKE, &gc->req, 0, false, now);
		raw_spin_unlock(&gc->lock);
	} else {
		girq_settle(gc);
	}
	local_irq_restore(flags);
}

/*
 * The run probes: kprobes on the IRQ core's irq_thread_fn() and
 * irq_forced_thread_fn(), which an IRQ thread calls for each run of its
 * handler, right after it took the run's request (IRQTF_RUNTHREAD) and
 * before it calls the driver's thread function; and kretprobes on their
 * returns. The IRQ thread runs them; every request pending then is served
 * by this run (kprof_girq_thread), and until the return, requests find the
 * thread busy. A kretprobe that finds no free instance misses a return
 * (counted in kprof/girq_counters' run_ends_missed): its thread then looks
 * busy to the requests until its next run, which only changes how those
 * are counted, never a latency.
 */
static const char * const girq_run_fns[] = { "irq_thread_fn", "irq_forced_thread_fn" };
#define GIRQ_RUN_FNS	ARRAY_SIZE(girq_run_fns)

static int girq_run_start(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct girq_bucket *b = girq_bucket_of(t->pid);
	struct girq_cpu *gc;
	struct girq_slot *s, served = {};
	struct girq_req id = { .pid = t->pid, .tstart = t->start_time };
	unsigned long flags;
	u64 now;

	local_irq_save(flags);
	gc = this_cpu_ptr(&girq_cpus);
	girq_settle(gc);
	now = ktime_get_ns();
	raw_spin_lock(&b->lock);
	s = girq_find(b, id.pid, id.tstart);
	if (!s)
		s = girq_alloc(b, &id);
	if (s) {
		if (s->pending) {
			served = *s;
			s->pending = 0;
		}
		s->in_run = true;
	}
	raw_spin_unlock(&b->lock);
	raw_spin_lock(&gc->lock);
	if (served.pending) {
		gc->cnt[GC_RUNS]++;
		gc->cnt[GC_RUN_REQUESTS] += served.pending;
		girq_trace_delta(gc, GIRQ_EV_THREAD, &served.req, served.pending - 1,
				 served.busy, now);
	} else {
		gc->cnt[GC_IDLE_RUNS]++;
	}
	raw_spin_unlock(&gc->lock);
	local_irq_restore(flags);
	return 0;
}

static int girq_run_end(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct girq_bucket *b = girq_bucket_of(t->pid);
	struct girq_slot *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	s = girq_find(b, t->pid, t->start_time);
	if (s) {
		s->in_run = false;
		girq_put(b, s);
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return 0;
}

static struct kprobe girq_run_kp[GIRQ_RUN_FNS];
static struct kretprobe girq_run_krp[GIRQ_RUN_FNS];

/* Threads in a run at once whose ends the kretprobes can see. */
#define GIRQ_RUN_MAXACTIVE	256

static void girq_run_probes_off(void)
{
	int i;

	if (!girq_run_probes)
		return;
	for (i = GIRQ_RUN_FNS - 1; i >= 0; i--) {
		unregister_kretprobe(&girq_run_krp[i]);
		unregister_kprobe(&girq_run_kp[i]);
	}
	WRITE_ONCE(girq_run_probes, false);
}

/* Register the run probes; without kprobes the thread runs go unmeasured. */
static void girq_run_probes_on(void)
{
	int i, ret = 0;

	for (i = 0; i < GIRQ_RUN_FNS; i++) {
		girq_run_kp[i] = (struct kprobe) {
			.symbol_name = girq_run_fns[i],
			.pre_handler = girq_run_start,
		};
		girq_run_krp[i] = (struct kretprobe) {
			.kp.symbol_name = girq_run_fns[i],
			.handler = girq_run_end,
			.maxactive = GIRQ_RUN_MAXACTIVE,
		};
		ret = register_kprobe(&girq_run_kp[i]);
		if (ret)
			break;
		/* The run probes take locks the hard-IRQ probes take. */
		if (kprof_kprobe_in_nmi(&girq_run_kp[i])) {
			unregister_kprobe(&girq_run_kp[i]);
			ret = -EOPNOTSUPP;
			break;
		}
		ret = register_kretprobe(&girq_run_krp[i]);
		if (ret) {
			unregister_kprobe(&girq_run_kp[i]);
			break;
		}
	}
	if (!ret) {
		WRITE_ONCE(girq_run_probes, true);
		return;
	}
	pr_warn("no run probe on %s (%d%s): IRQ threads' runs are not measured\n",
		girq_run_fns[i], ret,
		ret == -EOPNOTSUPP ? ": its kprobe would run in NMI context, not on ftrace" : "");
	while (--i >= 0) {
		unregister_kretprobe(&girq_run_krp[i]);
		unregister_kprobe(&girq_run_kp[i]);
	}
}

/* Returns the kretprobes missed since the run probes were registered. */
static unsigned long girq_run_ends_missed(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; girq_run_probes && i < GIRQ_RUN_FNS; i++)
		n += girq_run_krp[i].nmissed;
	return n;
}

/* Attaching and detaching, from a work item. */

struct girq_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

/* Attached in this order: no request without sched_waking's probe. */
static struct girq_tp girq_tps[] = {
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
	u64 dropped = 0, running = 0;
	int cpu, i, w;

	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		/*
		 * sched_waking's probe came off after every hard IRQ that saw
		 * irq_handler_exit had ended (girq_detach_locked()): a request
		 * still waiting for its outcome woke nobody.
		 */
		running += gc->expect;
		gc->expect = false;
		gc->depth = 0;
	}
	for (i = 0; i < ARRAY_SIZE(girq_hash); i++) {
		for (w = 0; w < GIRQ_WAYS; w++) {
			struct girq_slot *s = &girq_hash[i].slot[w];

			if (s->used)
				dropped += s->pending;
			s->used = false;
		}
		girq_hash[i].used = 0;
	}
	raw_spin_lock_irq(&this_cpu_ptr(&girq_cpus)->lock);
	this_cpu_ptr(&girq_cpus)->cnt[GC_DROPPED] += dropped;
	this_cpu_ptr(&girq_cpus)->cnt[GC_RUNNING] += running;
	raw_spin_unlock_irq(&this_cpu_ptr(&girq_cpus)->lock);
}

static void girq_detach_locked(void)
{
	int i;

	lockdep_assert_held(&girq_mutex);
	if (!girq_attached)
		return;
	/*
	 * In reverse order of attaching, waiting before sched_waking: a hard
	 * IRQ that saw irq_handler_exit's probe sees sched_waking's too, so
	 * that every request's waking, if any, is seen (girq_reset()).
	 */
	for (i = ARRAY_SIZE(girq_tps) - 1; i >= 0; i--) {
		if (girq_tps[i].probe == girq_waking)
			tracepoint_synchronize_unregister();
		WARN_ON_ONCE(tracepoint_probe_unregister(girq_tps[i].tp,
							 girq_tps[i].probe, NULL));
	}
	tracepoint_synchronize_unregister();
	girq_run_probes_off();
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
	/* First: a request counts as measured only once runs are seen. */
	girq_run_probes_on();
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
	girq_run_probes_off();
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
	seq_printf(m, "run_probes: %d\n", girq_run_probes);
	seq_printf(m, "run_ends_missed: %lu\n", girq_run_ends_missed());
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
