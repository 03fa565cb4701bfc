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
 * (a hard IRQ's request still waiting for its waking at detach woke
 * nobody; a task's is unsettled: girq_reset()); a request that finds no
 * free slot is dropped. Every request of those kinds is served by a run
 * (kprof_girq_thread;
 * run_requests = 1 + coalesced each) or dropped (pending when the probes
 * were detached). So, with no request in flight:
 *   wake_requests = run_requests + dropped + unmeasured.
 * Runs that served no request the tracker saw (its first, or one made in
 * the few instructions between the IRQ core taking the run's request and
 * the run probe, which counts as served by the run starting) are
 * idle_runs.
 *
 * Forced threading (threadirqs, PREEMPT_RT) moves a driver's primary
 * handler into the action's thread, behind irq_default_primary_handler():
 * that hard part and its thread's latency go under the action's name
 * marked forced; the driver's handler, timed by the run probes on
 * irq_forced_thread_fn(), goes under the name marked "forced handler",
 * with the secondary thread (irq/N-s-name) that runs the driver's thread
 * function when that handler returns IRQ_WAKE_THREAD: a request made in a
 * task (girq_forced_end()). Child IRQs of handle_nested_irq() get rows of
 * their own (the nested probe, below).
 *
 * Locking: every probe runs with interrupts off on its own CPU (hard IRQ;
 * sched_waking and the run probes turn them off), so the per-CPU state is
 * its CPU's alone;
 * its lock only orders it against readers (debugfs), and makes an event
 * counted in seq be in the ring buffer before the count can be read. The
 * threads with requests pending or in a run sit in a hash of buckets
 * (girq_table), one raw lock each, which orders requests against the run
 * probes; sized when the probes attach, it has a slot for every IRQ thread
 * that exists then.
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

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
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

#include "compat.h"
#include "kprof_internal.h"

#define GIRQ_NAME_LEN	48	/* the action's name, and its mark */
#define GIRQ_HASH_BITS_MIN	6	/* the table of threads: 64 buckets at least, */
#define GIRQ_WAYS_MIN	4	/* of 4 slots at least, */
#define GIRQ_WAYS_SPARE	2	/* 2 more than the existing threads need */
#define GIRQ_NEST	4
#define GIRQ_AGG_SLOTS_MAX	64

static unsigned int girq_agg_slots = 8;
module_param(girq_agg_slots, uint, 0444);
MODULE_PARM_DESC(girq_agg_slots,
		 "IRQ actions per CPU kprof/girq_aggregate keeps histograms for (1..64, default 8)");

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
	GC_UNSETTLED,		/* ... a task's, still woken or running at detach */
	GC_RUNS,		/* thread runs that served requests (thread events) */
	GC_RUN_REQUESTS,	/* requests those runs served (1 + coalesced) */
	GC_IDLE_RUNS,		/* thread runs that served no request seen */
	GC_DROPPED,		/* requests lost: no free slot, or detached */
	GC_FORCED,		/* forced-threaded handlers timed in their thread */
	GC_FORCED_UNMARKED,	/* runs whose forcing disagrees with their request's */
	GC_NESTED,		/* handle_nested_irq() children timed */
	GC_NESTED_ORPHANS,	/* ... outside a measured run of an IRQ thread */
	GC_NR,
};

static const char * const girq_counter_names[GC_NR] = {
	"handlers", "unmatched_exits", "wake_requests", "woken", "coalesced",
	"busy_requests", "running_requests", "unmeasured_requests",
	"unsettled_requests", "runs",
	"run_requests", "idle_runs", "dropped_requests", "forced_handlers",
	"forced_unmarked", "nested_handlers", "nested_orphans",
};

/*
 * What the tracker's name of an action adds to the action's own, as rows
 * of their own (see girq_exit() and girq_forced_end()):
 *  - forced: an action whose primary handler the IRQ core forced into its
 *    thread (threadirqs, PREEMPT_RT): the hard part is
 *    irq_default_primary_handler(), which wakes the thread that runs the
 *    driver's handler;
 *  - forced handler: that driver's handler, timed in its thread, and the
 *    secondary thread (irq/N-s-name) that a request of it wakes;
 *  - nested: a child IRQ handled by handle_nested_irq() in its parent's
 *    thread (girq_nested_entry()).
 */
enum girq_mark { GIRQ_PLAIN, GIRQ_FORCED, GIRQ_FORCED_HANDLER, GIRQ_NESTED };

static const char * const girq_marks[] = {
	[GIRQ_PLAIN] = "",
	[GIRQ_FORCED] = " (forced)",
	[GIRQ_FORCED_HANDLER] = " (forced handler)",
	[GIRQ_NESTED] = " (nested)",
};

/* @name, cut to leave room for @mark, then @mark, into @dst. */
static void girq_set_name(char *dst, const char *name, enum girq_mark mark)
{
	size_t room = GIRQ_NAME_LEN - strlen(girq_marks[mark]);
	ssize_t n = strscpy(dst, name ?: "?", room);

	if (n < 0)
		n = room - 1;
	strscpy(dst + n, girq_marks[mark], GIRQ_NAME_LEN - n);
}

/*
 * A wake request: an IRQ_WAKE_THREAD for an action with a thread, from its
 * hard handler or (forced threading) from the driver's handler in the
 * action's thread.
 */
struct girq_req {
	pid_t pid;		/* the action's thread: pid and start time */
	u64 tstart;
	int irq;
	int hard_cpu;
	u64 entry;		/* irq_handler_entry, ns; 0 if not seen */
	/* Live while the request is, or its run: only its thread frees it. */
	struct irqaction *action;
	enum girq_mark mark;
	char name[GIRQ_NAME_LEN];
};

/* A hard handler running on a CPU, since irq_handler_entry. */
struct girq_hard {
	int irq;
	const void *action;	/* compared, never dereferenced */
	u64 start;
};

/*
 * One IRQ action's histograms on one CPU (kprof/girq_aggregate): a cell per
 * event, slot * GIRQ_NR_EVENTS + event in its CPU's set (struct kprof_cells).
 */
struct girq_agg {
	bool used;
	int irq;
	char name[GIRQ_NAME_LEN];
	struct kprof_hist *hist[GIRQ_NR_EVENTS];
};

/* A CPU's slots, and the stage of their samples. */
struct girq_agg_cpu {
	struct kprof_stage stage;
	struct girq_agg slot[];	/* girq_agg_slots */
};

struct girq_cpu {
	raw_spinlock_t lock;	/* for readers: seq, cnt and the aggregation */
	u64 seq[GIRQ_NR_EVENTS];
	u64 cnt[GC_NR];
	struct girq_agg_cpu *agg;	/* or NULL */
	bool agg_on;
	u64 untracked[GIRQ_NR_EVENTS];	/* samples not aggregated */
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
	bool unsettled;		/* a task's request: woken or running, not known yet */
	bool in_run;		/* between its run probes */
	bool used;
	/* The run in progress, from its start: */
	bool run_forced;	/* in irq_forced_thread_fn() */
	bool run_inner;		/* ... and in the irq_thread_fn() it calls (6.x+) */
	u32 run_served;		/* requests it serves; run_req the first */
	struct girq_req run_req;
	u64 run_start;
};

struct girq_bucket {
	raw_spinlock_t lock;
	struct girq_slot *slot;	/* girq_table.ways of them */
};

/*
 * The threads with requests pending or in a run: a hash of buckets by pid,
 * allocated when the probes attach (girq_table_alloc()), sized for the IRQ
 * threads that exist then, and freed when they detach.
 */
static struct {
	struct girq_bucket *bucket;
	struct girq_slot *slots;
	unsigned int bits;
	unsigned int ways;
} girq_table;

/*
 * Every lock is initialised statically: the module's events exist, and
 * their reg callbacks can run, from the moment the module is COMING, before
 * kprof_init() has run (set_event's ":mod:kprof", perf_event_open()).
 */
static DEFINE_PER_CPU(struct girq_cpu, girq_cpus) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(girq_cpus.lock),
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
	return &girq_table.bucket[hash_32((u32)pid, girq_table.bits)];
}

/* @b's slot of the thread (@pid, @tstart), or NULL; @b locked. */
static struct girq_slot *girq_find(struct girq_bucket *b, pid_t pid, u64 tstart)
{
	int i;

	for (i = 0; i < girq_table.ways; i++)
		if (b->slot[i].used && b->slot[i].req.pid == pid &&
		    b->slot[i].req.tstart == tstart)
			return &b->slot[i];
	return NULL;
}

static void girq_release(struct girq_bucket *b, struct girq_slot *s)
{
	s->used = false;
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
		a = &gc->agg->slot[i];
		if (!a->used) {
			a->used = true;
			a->irq = irq;
			strscpy(a->name, name, sizeof(a->name));
			break;
		}
		if (a->irq == irq && !strncmp(a->name, name, sizeof(a->name) - 1))
			break;
	}
	if (i == girq_agg_slots ||
	    !kprof_cell_add(&a->hist[ev], &gc->agg->stage, NULL, i * GIRQ_NR_EVENTS + ev, ns))
		gc->untracked[ev]++;
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

	for (i = 0; i < girq_table.ways; i++) {
		s = &b->slot[i];
		if (s->used)
			continue;
		s->req = *r;
		s->pending = 0;
		s->busy = false;
		s->unsettled = false;
		s->in_run = false;
		s->run_inner = false;
		s->run_served = 0;
		s->used = true;
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
/* Slots whose request is unsettled: sched_waking looks them up. */
static atomic_t girq_unsettled = ATOMIC_INIT(0);

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
 *    girq_waking()) for a hard IRQ's request, which runs with interrupts
 *    off up to the wake. A request made in a task (@task: a forced
 *    thread's, for its secondary thread) can be interrupted or preempted
 *    before its wake: its slot says, until the thread's waking (woken) or
 *    its run's start (running) settles it.
 */
static void girq_request(struct girq_cpu *gc, const struct girq_req *r, bool task)
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
			if (kind == GC_WOKEN && task) {
				s->unsettled = true;
				atomic_inc(&girq_unsettled);
			}
		}
	}
	raw_spin_unlock(&b->lock);
	if (kind == GC_WOKEN && task)
		return;
	if (kind == GC_WOKEN) {
		/* Woken or running: the next probe on this CPU says. */
		gc->req = *r;
		gc->expect = true;
	} else {
		girq_count(kind, 1);
	}
}

/*
 * A forced-threaded action's hard part is irq_default_primary_handler(),
 * under the action's name marked forced; the driver's handler runs in the
 * thread (girq_forced_end()).
 */
static void girq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct girq_cpu *gc = this_cpu_ptr(&girq_cpus);
	bool forced = test_bit(KPROF_IRQTF_FORCED_THREAD, &action->thread_flags);
	const char *name = action->name ?: "?";
	u64 now = ktime_get_ns();
	struct girq_req r;
	u64 start;

	girq_settle(gc);
	r.mark = forced ? GIRQ_FORCED : GIRQ_PLAIN;
	if (forced) {
		girq_set_name(r.name, name, r.mark);
		name = r.name;
	}
	start = girq_pop(gc, irq, action);
	if (start)
		girq_handler_event(gc, irq, name, ret, start, now);
	else
		girq_count(GC_UNMATCHED, 1);
	if (ret != IRQ_WAKE_THREAD || !action->thread_fn || !action->thread)
		return;
	if (!forced)
		girq_set_name(r.name, name, r.mark);
	/* Not timed: the request counts, but nothing is measured from it. */
	r.pid = action->thread->pid;
	r.tstart = action->thread->start_time;
	r.irq = irq;
	r.hard_cpu = smp_processor_id();
	r.entry = start;
	r.action = action;
	girq_request(gc, &r, false);
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

/* Request @r woke its thread, at @now; interrupts off. */
static void girq_woken(struct girq_cpu *gc, const struct girq_req *r, u64 now)
{
	raw_spin_lock(&gc->lock);
	gc->cnt[GC_WOKEN]++;
	girq_trace_delta(gc, GIRQ_EV_WAKE, r, 0, false, now);
	raw_spin_unlock(&gc->lock);
}

/* @p's waking settles its thread's unsettled task request, if any. */
static void girq_waking_task(struct girq_cpu *gc, struct task_struct *p, u64 now)
{
	struct girq_bucket *b = girq_bucket_of(p->pid);
	struct girq_slot *s;
	struct girq_req r;
	bool woken = false;

	raw_spin_lock(&b->lock);
	s = girq_find(b, p->pid, p->start_time);
	if (s && s->unsettled) {
		s->unsettled = false;
		atomic_dec(&girq_unsettled);
		r = s->req;
		woken = true;
	}
	raw_spin_unlock(&b->lock);
	if (woken)
		girq_woken(gc, &r, now);
}

/*
 * sched_waking fires with interrupts on when a task wakes itself
 * (try_to_wake_up()'s p == current path). A hard IRQ there would run
 * girq_entry()/girq_exit() on this CPU's request in the middle of this
 * probe: interrupts are off in it. The common case, no request of this
 * CPU's waiting for its outcome and no task's request unsettled, is two
 * loads and a branch.
 */
static void girq_waking(void *data, struct task_struct *p)
{
	struct girq_cpu *gc;
	unsigned long flags;
	u64 now;

	if (likely(!this_cpu_read(girq_cpus.expect) && !atomic_read(&girq_unsettled)))
		return;
	local_irq_save(flags);
	now = ktime_get_ns();
	gc = this_cpu_ptr(&girq_cpus);
	if (gc->expect && gc->req.pid == p->pid && gc->req.tstart == p->start_time) {
		gc->expect = false;
		girq_woken(gc, &gc->req, now);
	} else {
		girq_settle(gc);
		if (atomic_read(&girq_unsettled))
			girq_waking_task(gc, p, now);
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
enum { GIRQ_RUN_THREAD_FN, GIRQ_RUN_FORCED_FN, GIRQ_RUN_FNS };

static const char * const girq_run_fns[GIRQ_RUN_FNS] = {
	[GIRQ_RUN_THREAD_FN] = "irq_thread_fn",
	[GIRQ_RUN_FORCED_FN] = "irq_forced_thread_fn",
};

/*
 * The run of the current IRQ thread starts: it serves what is pending.
 * Newer kernels' irq_forced_thread_fn() calls irq_thread_fn(): that is the
 * same run.
 */
static void girq_run_start(bool forced)
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
	if (s && s->in_run && s->run_forced && !forced) {
		s->run_inner = true;
		raw_spin_unlock(&b->lock);
		local_irq_restore(flags);
		return;
	}
	if (!s)
		s = girq_alloc(b, &id);
	if (s) {
		served = *s;
		if (s->unsettled)
			atomic_dec(&girq_unsettled);
		s->pending = 0;
		s->unsettled = false;
		s->in_run = true;
		s->run_forced = forced;
		s->run_inner = false;
		s->run_served = served.pending;
		s->run_req = served.req;
		s->run_start = now;
	}
	raw_spin_unlock(&b->lock);
	raw_spin_lock(&gc->lock);
	if (served.pending) {
		gc->cnt[GC_RUNS]++;
		gc->cnt[GC_RUN_REQUESTS] += served.pending;
		/* Not woken: it ran again without sleeping. */
		gc->cnt[GC_RUNNING] += served.unsettled;
		gc->cnt[GC_FORCED_UNMARKED] += forced != (served.req.mark == GIRQ_FORCED);
		girq_trace_delta(gc, GIRQ_EV_THREAD, &served.req, served.pending - 1,
				 served.busy, now);
	} else {
		gc->cnt[GC_IDLE_RUNS]++;
	}
	raw_spin_unlock(&gc->lock);
	local_irq_restore(flags);
}

static int girq_run_start_thread(struct kprobe *kp, struct pt_regs *regs)
{
	girq_run_start(false);
	return 0;
}

static int girq_run_start_forced(struct kprobe *kp, struct pt_regs *regs)
{
	girq_run_start(true);
	return 0;
}

/*
 * A forced thread's run of the driver's handler ended at @now, returning
 * @ret: its time, under the action's name marked "forced handler", and if
 * it asked for the driver's thread function, the request to the secondary
 * thread (irq/N-s-name), which the IRQ core wakes after this
 * (irq_wake_secondary()); interrupts off.
 */
static void girq_forced_end(struct girq_cpu *gc, const struct girq_slot *run, int ret, u64 now)
{
	struct irqaction *sec = run->run_req.action->secondary;
	struct girq_req r = run->run_req;

	girq_set_name(r.name, r.action->name, GIRQ_FORCED_HANDLER);
	r.mark = GIRQ_FORCED_HANDLER;
	raw_spin_lock(&gc->lock);
	gc->cnt[GC_FORCED]++;
	girq_agg_add(gc, GIRQ_EV_HANDLER, r.irq, r.name, now - run->run_start);
	if (trace_kprof_girq_handler_enabled())
		trace_kprof_girq_handler(r.irq, r.name, ret, now - run->run_start,
					 ++gc->seq[GIRQ_EV_HANDLER]);
	raw_spin_unlock(&gc->lock);
	if (ret != IRQ_WAKE_THREAD || !sec || !sec->thread)
		return;
	r.pid = sec->thread->pid;
	r.tstart = sec->thread->start_time;
	r.action = sec;
	girq_request(gc, &r, true);
}

static int girq_run_end(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct girq_bucket *b = girq_bucket_of(t->pid);
	struct girq_slot *s, run = {};
	unsigned long flags;
	u64 now;

	local_irq_save(flags);
	girq_settle(this_cpu_ptr(&girq_cpus));
	now = ktime_get_ns();
	raw_spin_lock(&b->lock);
	s = girq_find(b, t->pid, t->start_time);
	if (s && s->run_inner) {
		s->run_inner = false;	/* the end of the inner call only */
	} else if (s) {
		if (s->in_run)
			run = *s;
		s->in_run = false;
		girq_put(b, s);
	}
	raw_spin_unlock(&b->lock);
	/* A forced action's run: only one that served a request knows it. */
	if (run.run_forced && run.run_served && run.run_req.mark == GIRQ_FORCED)
		girq_forced_end(this_cpu_ptr(&girq_cpus), &run, regs_return_value(regs), now);
	local_irq_restore(flags);
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
			.pre_handler = i == GIRQ_RUN_FORCED_FN ? girq_run_start_forced :
				       girq_run_start_thread,
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

/*
 * The nested probe: a kretprobe on handle_nested_irq(), which an interrupt
 * controller on a slow bus (regmap-irq, GPIO expanders, PMICs) calls from
 * its own IRQ thread for each child IRQ; the child's thread function runs
 * there, with no irq_handler_entry/exit. The entry reads the child's IRQ
 * number (the argument: kernels whose kprobes can read arguments,
 * compat.h) and its action's name. Every child gets its handler's time
 * (kprof_girq_handler, ret -1: handle_nested_irq() returns nothing); a child
 * handled in a measured run of an IRQ thread also gets entry_to_running
 * (kprof_girq_thread), from that run's first request's hard-IRQ entry to
 * the child's start. Both under the child action's name marked nested.
 */
struct girq_nested {
	u64 start;
	u64 entry;		/* the parent run's first request's, or 0 */
	int irq;
	int hard_cpu;
	char name[GIRQ_NAME_LEN];
};

static bool girq_nested_probe;	/* registered */

/* The current task's run, if it is an IRQ thread's that served a request. */
static void girq_parent(struct girq_nested *n)
{
	struct task_struct *t = current;
	struct girq_bucket *b = girq_bucket_of(t->pid);
	struct girq_slot *s;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	s = girq_find(b, t->pid, t->start_time);
	if (s && s->in_run && s->run_served) {
		n->entry = s->run_req.entry;
		n->hard_cpu = s->run_req.hard_cpu;
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

static int girq_nested_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct girq_nested *n = (struct girq_nested *)ri->data;
	unsigned int irq = kprof_kprobe_arg(regs, 0);
	struct irq_data *d = irq_get_irq_data(irq);
	struct irqaction *action;

	/* Without an action, or disabled, handle_nested_irq() runs none. */
	if (!d || irqd_irq_disabled(d))
		return 1;
	action = READ_ONCE(irq_data_to_desc(d)->action);
	if (!action)
		return 1;
	n->irq = irq;
	n->entry = 0;
	girq_parent(n);
	girq_set_name(n->name, action->name, GIRQ_NESTED);
	n->start = ktime_get_ns();
	return 0;
}

static int girq_nested_end(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct girq_nested *n = (const struct girq_nested *)ri->data;
	struct girq_req r = { .irq = n->irq, .hard_cpu = n->hard_cpu, .entry = n->entry };
	struct girq_cpu *gc;
	unsigned long flags;
	u64 now;

	local_irq_save(flags);
	gc = this_cpu_ptr(&girq_cpus);
	girq_settle(gc);
	now = ktime_get_ns();
	memcpy(r.name, n->name, sizeof(r.name));
	raw_spin_lock(&gc->lock);
	gc->cnt[GC_NESTED]++;
	gc->cnt[GC_NESTED_ORPHANS] += !n->entry;
	girq_agg_add(gc, GIRQ_EV_HANDLER, n->irq, n->name, now - n->start);
	if (trace_kprof_girq_handler_enabled())
		trace_kprof_girq_handler(n->irq, n->name, -1, now - n->start,
					 ++gc->seq[GIRQ_EV_HANDLER]);
	girq_trace_delta(gc, GIRQ_EV_THREAD, &r, 0, false, n->start);
	raw_spin_unlock(&gc->lock);
	local_irq_restore(flags);
	return 0;
}

static struct kretprobe girq_nested_krp;

static void girq_nested_probe_off(void)
{
	if (!girq_nested_probe)
		return;
	unregister_kretprobe(&girq_nested_krp);
	girq_nested_probe = false;
}

/* Register the nested probe, where kprobes can read arguments. */
static void girq_nested_probe_on(void)
{
	int ret = -EOPNOTSUPP;

	girq_nested_krp = (struct kretprobe) {
		.kp.symbol_name = "handle_nested_irq",
		.entry_handler = girq_nested_entry,
		.handler = girq_nested_end,
		.data_size = sizeof(struct girq_nested),
		.maxactive = GIRQ_RUN_MAXACTIVE,
	};
	if (KPROF_KPROBE_ARGS)
		ret = register_kretprobe(&girq_nested_krp);
	/* It takes locks the hard-IRQ probes take. */
	if (!ret && kprof_kprobe_in_nmi(&girq_nested_krp.kp)) {
		unregister_kretprobe(&girq_nested_krp);
		ret = -EOPNOTSUPP;
	}
	if (!ret) {
		girq_nested_probe = true;
		return;
	}
	pr_warn("no probe on handle_nested_irq (%d%s): nested IRQs are not measured\n", ret,
		KPROF_KPROBE_ARGS ? "" : ": kprobes cannot read arguments on this architecture");
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
static int girq_attach_err;	/* the last attach's, under girq_mutex */
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
	u64 dropped = 0, running = 0, unsettled = 0;
	size_t i;
	int cpu;

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
	for (i = 0; i < ((size_t)girq_table.ways << girq_table.bits); i++) {
		struct girq_slot *s = &girq_table.slots[i];

		if (s->used) {
			dropped += s->pending;
			/*
			 * A task's request can be preempted before its
			 * waking, which may come after sched_waking's probe
			 * is gone: not known.
			 */
			unsettled += s->unsettled;
		}
		s->used = false;
	}
	atomic_set(&girq_unsettled, 0);
	raw_spin_lock_irq(&this_cpu_ptr(&girq_cpus)->lock);
	this_cpu_ptr(&girq_cpus)->cnt[GC_DROPPED] += dropped;
	this_cpu_ptr(&girq_cpus)->cnt[GC_RUNNING] += running;
	this_cpu_ptr(&girq_cpus)->cnt[GC_UNSETTLED] += unsettled;
	raw_spin_unlock_irq(&this_cpu_ptr(&girq_cpus)->lock);
}

/* Whether @t is an IRQ thread ("irq/N-name", "irq/N-s-name": setup_irq_thread()). */
static bool girq_is_irq_thread(const struct task_struct *t)
{
	return (t->flags & PF_KTHREAD) && !strncmp(t->comm, "irq/", 4);
}

/*
 * The IRQ threads that exist, hashed into 1 << @bits buckets (@fill, or
 * NULL to only count them): their number.
 */
static unsigned int girq_threads(unsigned int bits, u32 *fill)
{
	struct task_struct *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process(t) {
		if (!girq_is_irq_thread(t))
			continue;
		n++;
		if (fill)
			fill[hash_32((u32)t->pid, bits)]++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * The table of threads (girq_table), with twice as many buckets as there
 * are IRQ threads (64 at least) and, in each bucket, slots for as many of
 * them as the fullest bucket holds plus GIRQ_WAYS_SPARE (GIRQ_WAYS_MIN at
 * least): every IRQ thread that exists has a slot, and threads made later
 * find GIRQ_WAYS_SPARE free ones in each bucket at least. -ENOMEM if it
 * cannot be allocated.
 */
static int girq_table_alloc(void)
{
	unsigned int bits, ways = 0;
	size_t nb, i;
	u32 *fill;

	bits = max_t(unsigned int, GIRQ_HASH_BITS_MIN,
		     order_base_2(2 * (girq_threads(0, NULL) + 1)));
	nb = (size_t)1 << bits;
	fill = kvcalloc(nb, sizeof(*fill), GFP_KERNEL | __GFP_NOWARN);
	if (!fill)
		return -ENOMEM;
	girq_threads(bits, fill);
	for (i = 0; i < nb; i++)
		ways = max(ways, fill[i]);
	kvfree(fill);
	ways = max(ways + GIRQ_WAYS_SPARE, GIRQ_WAYS_MIN);
	girq_table.bucket = kvcalloc(nb, sizeof(*girq_table.bucket), GFP_KERNEL | __GFP_NOWARN);
	girq_table.slots = kvcalloc(nb * ways, sizeof(*girq_table.slots),
				    GFP_KERNEL | __GFP_NOWARN);
	if (!girq_table.bucket || !girq_table.slots) {
		kvfree(girq_table.slots);
		kvfree(girq_table.bucket);
		girq_table.bucket = NULL;
		girq_table.slots = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++) {
		raw_spin_lock_init(&girq_table.bucket[i].lock);
		girq_table.bucket[i].slot = &girq_table.slots[i * ways];
	}
	girq_table.bits = bits;
	girq_table.ways = ways;
	return 0;
}

/* After girq_reset(): no probe is attached. */
static void girq_table_free(void)
{
	kvfree(girq_table.slots);
	kvfree(girq_table.bucket);
	memset(&girq_table, 0, sizeof(girq_table));
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
	girq_nested_probe_off();
	girq_run_probes_off();
	girq_attached = false;
	preempt_disable();
	girq_reset();
	preempt_enable();
	girq_table_free();
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
	ret = girq_table_alloc();
	if (ret) {
		pr_warn("no memory for the table of IRQ threads: the IRQ tracker cannot attach\n");
		return ret;
	}
	/* First: a request counts as measured only once runs are seen. */
	girq_run_probes_on();
	girq_nested_probe_on();
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
	girq_nested_probe_off();
	girq_run_probes_off();
	preempt_disable();
	girq_reset();
	preempt_enable();
	girq_table_free();
	return ret;
}

static void girq_work_fn(struct work_struct *work)
{
	mutex_lock(&girq_mutex);
	if (atomic_read(&girq_users) > 0 && !girq_attached)
		girq_attach_err = girq_attach_locked();
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

/*
 * Every CPU's slots; set under girq_agg.lock, girq_fill_mutex and each
 * CPU's lock, and their histograms filled under girq_fill_mutex: the work
 * fills them while girq_agg.lock's holder waits for the probes to attach.
 */
static struct girq_agg_cpu __percpu *girq_agg_mem;
static DEFINE_MUTEX(girq_fill_mutex);

static size_t girq_agg_cpu_size(void)
{
	return struct_size((struct girq_agg_cpu *)NULL, slot, girq_agg_slots);
}

static size_t girq_agg_mem_size(void)
{
	return girq_agg_cpu_size() * num_possible_cpus();
}

static void girq_agg_free(struct girq_agg_cpu __percpu *mem)
{
	struct girq_agg_cpu *ac;
	unsigned int i, ev;
	int cpu;

	if (!mem)
		return;
	for_each_possible_cpu(cpu) {
		ac = per_cpu_ptr(mem, cpu);
		for (i = 0; i < girq_agg_slots; i++)
			for (ev = 0; ev < GIRQ_NR_EVENTS; ev++)
				kprof_agg_hist_free(ac->slot[i].hist[ev]);
	}
	free_percpu(mem);
	kprof_agg_uncharge(girq_agg_mem_size());
}

/* A CPU's cells (struct kprof_cells): its girq_cpu is the context. */
static struct kprof_hist **girq_cell(void *ctx, u32 id)
{
	struct girq_cpu *gc = ctx;

	return &gc->agg->slot[id / GIRQ_NR_EVENTS].hist[id % GIRQ_NR_EVENTS];
}

static raw_spinlock_t *girq_cell_lock(void *ctx, u32 id)
{
	struct girq_cpu *gc = ctx;

	return &gc->lock;
}

static void girq_untracked(void *ctx, u32 id)
{
	struct girq_cpu *gc = ctx;

	gc->untracked[id % GIRQ_NR_EVENTS]++;
}

/* Every CPU's staged samples into their histograms. */
void kprof_girq_agg_fill(void)
{
	struct kprof_cells c = {
		.lock = girq_cell_lock, .cell = girq_cell, .untracked = girq_untracked,
	};
	int cpu;

	mutex_lock(&girq_fill_mutex);
	for_each_possible_cpu(cpu) {
		if (!girq_agg_mem)
			break;	/* off */
		c.ctx = per_cpu_ptr(&girq_cpus, cpu);
		c.stage_lock = &per_cpu_ptr(&girq_cpus, cpu)->lock;
		c.stage = &per_cpu_ptr(girq_agg_mem, cpu)->stage;
		kprof_agg_fill(&c);
	}
	mutex_unlock(&girq_fill_mutex);
}

/*
 * Give each CPU its slots in @mem (or none), recording or not; returns the
 * old ones. After this no probe uses the old slots: they are only touched
 * under the CPU's lock.
 */
static struct girq_agg_cpu __percpu *girq_agg_swap(struct girq_agg_cpu __percpu *mem, bool on)
{
	struct girq_agg_cpu __percpu *old = girq_agg_mem;
	int cpu;

	mutex_lock(&girq_fill_mutex);
	for_each_possible_cpu(cpu) {
		struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);

		raw_spin_lock_irq(&gc->lock);
		if (mem != old) {
			gc->agg = mem ? per_cpu_ptr(mem, cpu) : NULL;
			memset(gc->untracked, 0, sizeof(gc->untracked));
		}
		gc->agg_on = on;
		raw_spin_unlock_irq(&gc->lock);
	}
	girq_agg_mem = mem;
	mutex_unlock(&girq_fill_mutex);
	return mem == old ? NULL : old;
}

/* Fresh slots, recording, and the probes attached; girq_agg.lock held. */
static int girq_agg_start(void)
{
	struct girq_agg_cpu __percpu *mem;
	int ret;

	if (kprof_agg_charge(girq_agg_mem_size()))
		return -ENOMEM;
	mem = __alloc_percpu_gfp(girq_agg_cpu_size(), __alignof__(struct girq_agg_cpu),
				 GFP_KERNEL | __GFP_NOWARN);
	if (!mem) {
		kprof_agg_uncharge(girq_agg_mem_size());
		return -ENOMEM;
	}
	/*
	 * Spares for the first samples of each CPU's actions, which come
	 * at once on every CPU (its timer, and on arm64 its IPIs): four an
	 * online CPU, so that a CPU's new cells rarely wait for the work.
	 */
	kprof_agg_spares(&girq_agg, true);
	kprof_agg_reserve(4 * num_online_cpus());
	girq_agg_free(girq_agg_swap(mem, true));
	flush_work(&girq_work);
	mutex_lock(&girq_mutex);
	ret = girq_attached ? 0 : girq_attach_err ?: -ENOENT;
	mutex_unlock(&girq_mutex);
	return ret;
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
		girq_agg_free(girq_agg_swap(NULL, false));
	kprof_agg_spares(&girq_agg, !ret && val == KPROF_AGG_ON);
	girq_agg.state = ret ? KPROF_AGG_OFF : val;
	return ret;
}

/* The line of one action's histogram of @ev, if it has samples. */
static void girq_hist_print(struct seq_file *m, int cpu, const struct girq_agg *a,
			    enum girq_event ev, const struct kprof_hist *h)
{
	if (!h->count)
		return;
	seq_printf(m, "%s %d %d ", girq_event_names[ev], cpu, a->irq);
	seq_escape(m, a->name, " \t\n\\");
	kprof_hist_print(m, h);
}

/* @cpu's untracked samples, and its actions' histograms; girq_agg.lock held. */
static void girq_hist_cpu(struct seq_file *m, int cpu, struct kprof_hist *h)
{
	struct girq_cpu *gc = per_cpu_ptr(&girq_cpus, cpu);
	u64 untracked[GIRQ_NR_EVENTS];
	const struct girq_agg *src;
	struct girq_agg a;
	unsigned int i;
	int ev;

	raw_spin_lock_irq(&gc->lock);
	memcpy(untracked, gc->untracked, sizeof(untracked));
	raw_spin_unlock_irq(&gc->lock);
	for (ev = 0; ev < GIRQ_NR_EVENTS; ev++)
		if (untracked[ev])
			seq_printf(m, "untracked %d %s %llu\n", cpu,
				   girq_event_names[ev], untracked[ev]);
	for (i = 0; girq_agg_mem && i < girq_agg_slots; i++) {
		src = &per_cpu_ptr(girq_agg_mem, cpu)->slot[i];
		raw_spin_lock_irq(&gc->lock);
		a = *src;
		raw_spin_unlock_irq(&gc->lock);
		if (!a.used)
			break;
		for (ev = 0; ev < GIRQ_NR_EVENTS; ev++) {
			if (IS_ERR_OR_NULL(a.hist[ev]))
				continue;
			kprof_hist_copy(&gc->lock, h, a.hist[ev]);
			girq_hist_print(m, cpu, &a, ev, h);
		}
	}
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
	struct kprof_hist *h;
	int cpu;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	seq_printf(m, "layout sub_bits=%u kernel_bits=%u buckets=%llu\n",
		   KPROF_HIST_SUB_BITS, KPROF_HIST_KERNEL_BITS,
		   (u64)KPROF_HIST_KERNEL_BUCKETS);
	mutex_lock(&girq_agg.lock);
	seq_printf(m, "state %u\n", girq_agg.state);
	kprof_girq_agg_fill();
	for_each_possible_cpu(cpu)
		girq_hist_cpu(m, cpu, h);
	mutex_unlock(&girq_agg.lock);
	kvfree(h);
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
	seq_printf(m, "nested_probe: %d\n", girq_nested_probe);
	seq_printf(m, "nested_ends_missed: %d\n",
		   girq_nested_probe ? girq_nested_krp.nmissed : 0);
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
	girq_agg_free(girq_agg_swap(NULL, false));
	kprof_agg_spares(&girq_agg, false);
	girq_agg.state = KPROF_AGG_OFF;
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
