/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPROF_INTERNAL_H
#define _KPROF_INTERNAL_H

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <asm/local64.h>

#include <kprof/hist.h>
#include <kprof/kprof.h>

#define KPROF_VERSION "0.2.0"

/* What the in-kernel latency histograms are kept for. */
enum kprof_kind {
	KPROF_K_IRQ_THREAD,
	KPROF_K_IRQ_HANDLER,
	KPROF_K_BATCH,
	KPROF_K_SPAN0,
	KPROF_NR_KINDS = KPROF_K_SPAN0 + KPROF_MAX_SPANS,
};

/* Bucket b counts values v with fls64(v) == b: [2^(b-1), 2^b), and 0 in 0. */
#define KPROF_HIST_BUCKETS	65

struct kprof_lat {
	u64 count;
	u64 sum;
	u64 min;
	u64 max;
	u64 buckets[KPROF_HIST_BUCKETS];
};

/*
 * An in-kernel aggregation histogram (kprof/aggregate): exact count, sum,
 * min and max, and include/kprof/hist.h's buckets below 2^36 ns plus one
 * for the rest. One per CPU and kind of each device, 112 KiB each,
 * allocated only while aggregation is on or frozen.
 */
struct kprof_hist {
	u64 count;
	u64 sum;
	u64 min;
	u64 max;
	u64 buckets[KPROF_HIST_KERNEL_BUCKETS];
};

static inline void kprof_hist_add(struct kprof_hist *h, u64 ns)
{
	if (!h->count || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += ns;
	h->buckets[min_t(u32, kprof_hist_index(ns), KPROF_HIST_KERNEL_BUCKETS - 1)]++;
}

/*
 * The aggregations' memory (kprof_agg.c, kprof/memory): every histogram is
 * allocated when its first sample comes, within the budget agg_budget_kib.
 * A cell is where one (CPU, device, kind) or (CPU, IRQ action, event) keeps
 * its histogram: NULL until the first sample, then the histogram, or
 * ERR_PTR(-ENOMEM) if the budget or the allocator refused it (its samples
 * are counted as untracked). The probes and hooks cannot allocate: a first
 * sample takes one of a few spare histograms kept while an aggregation
 * records, or, if none is left, waits in its stage, under the same lock as
 * the cell, until kprof_agg_fill() gives the cell its histogram and adds
 * the sample; a sample that finds the stage full is untracked too.
 */
#define KPROF_STAGE_LEN	128

struct kprof_stage {
	unsigned int n;
	struct {
		u32 cell;
		u64 ns;
	} e[KPROF_STAGE_LEN];
};

/*
 * A set of cells, for kprof_agg_fill(): their stage and its lock, and the
 * lock of each cell (the stage's, or one per CPU).
 */
struct kprof_cells {
	raw_spinlock_t *stage_lock;
	struct kprof_stage *stage;
	raw_spinlock_t *(*lock)(void *ctx, u32 id);
	struct kprof_hist **(*cell)(void *ctx, u32 id);
	void (*untracked)(void *ctx, u32 id);	/* a refused cell's sample */
	void *ctx;
};

bool kprof_cell_first(struct kprof_hist **cell, struct kprof_stage *st,
		      raw_spinlock_t *st_lock, u32 id, u64 ns);

/*
 * Add @ns to the histogram of cell @id (*@cell); false if the sample is
 * lost (the cell refused, or the stage full): the caller counts it as
 * untracked. The cell's lock held, interrupts off; @st_lock is the lock
 * of the stage @st, or NULL if it is the cell's.
 */
static inline bool kprof_cell_add(struct kprof_hist **cell, struct kprof_stage *st,
				  raw_spinlock_t *st_lock, u32 id, u64 ns)
{
	struct kprof_hist *h = *cell;

	if (IS_ERR_OR_NULL(h))
		return kprof_cell_first(cell, st, st_lock, id, ns);
	kprof_hist_add(h, ns);
	return true;
}

/*
 * An aggregation switch (kprof/aggregate, kprof/girq_aggregate): 0 off (no
 * histograms), 1 on (fresh zeroed histograms, recording), 2 frozen
 * (recording stopped, the histograms kept for reading). @set switches to
 * its argument with @lock held and stores the state reached in @state
 * (off if it failed); readers of @state hold @lock or whatever else @set
 * holds while it writes it. The open file that switched it on or froze
 * it is its @owner until it switches it off or is closed: writes through
 * any other file fail with -EBUSY meanwhile, so that two runs cannot zero
 * or free each other's histograms.
 */
enum { KPROF_AGG_OFF, KPROF_AGG_ON, KPROF_AGG_FROZEN };

struct kprof_agg_ctl {
	struct mutex lock;	/* writers of the file; readers of the state */
	unsigned int state;
	bool spares;			/* holds the spares (kprof_agg_spares()) */
	const struct file *owner;	/* compared, never dereferenced */
	int (*set)(unsigned int val);
};

/* The events, indexing kprof_dev::seq. */
enum kprof_event {
	KPROF_EV_IRQ_THREAD,
	KPROF_EV_IRQ_HANDLER,
	KPROF_EV_BATCH,
	KPROF_EV_SPAN,
	KPROF_NR_EVENTS,
};

/*
 * A device's counters on one CPU. Every field, and the histograms after
 * it, is written only by that CPU's hooks under kprof_pcpu::lock, and read
 * under it too: no update races a reset, and no 64-bit value tears on a
 * 32-bit CPU.
 */
struct kprof_counters {
	u64 hook_calls;		/* slow-path entries of any hook; see kprof_pcpu */
	u64 irqs;		/* kprof_irq_enter() */
	u64 wakes;		/* kprof_irq_exit(IRQ_WAKE_THREAD) of a stamped IRQ */
	u64 thread_runs;
	u64 unpaired_runs;	/* thread runs with no woken IRQ to pair */
	u64 coalesced;
	u64 batches;
	u64 packets;
	u64 spans;
	u64 backwards;		/* samples dropped: the clock read before the start */
	u64 begins_at_reset;	/* kprof_pcpu::begins when the counters were zeroed */
};

/*
 * A device's state on one CPU. The lock is a raw one (taken from hard-IRQ
 * context, also on PREEMPT_RT), taken by this CPU's hooks and by readers
 * and resets one CPU at a time, never by another CPU's hooks. A hook
 * updates the counters, histograms and aggregation cells, and assigns the
 * event's seq and emits it, under it: a reader that took every CPU's lock
 * after reading seq finds every event it counts in the trace.
 */
struct kprof_pcpu {
	raw_spinlock_t lock;
	/*
	 * The begin hooks' entries, counted without the lock (a begin hook
	 * only stores its start): hook_calls is c.hook_calls plus this less
	 * c.begins_at_reset. local64_t: this CPU adds,
	 * any CPU reads it whole, also on a 32-bit CPU.
	 */
	local64_t begins;
	u64 hard_start;		/* kprof_irq_enter() on this CPU, for its exit */
	struct kprof_counters c;
	struct kprof_lat lat[];	/* KPROF_K_SPAN0 + nr_spans kinds */
};

struct kprof_dev {
	char name[KPROF_NAME_MAX + 1];
	u32 name_len;
	int irq;
	unsigned int nr_spans;
	const char *span_names[KPROF_MAX_SPANS];
	struct list_head node;		/* on kprof_devices, under kprof_dev_mutex */
	struct dentry *dir;		/* an ERR_PTR() without debugfs */
	struct kprof_pcpu __percpu *pcpu;

	/*
	 * The IRQ-to-thread handoff, from the primary handler's CPU to the
	 * thread's: a few stores under this lock, never a clock read or an
	 * event.
	 */
	raw_spinlock_t pend_lock;
	u64 pending_since;		/* first woken IRQ not yet served by the thread */
	u32 pending_irqs;
	int pending_cpu;
	/* Starts a begin hook leaves for its end hook, maybe on another CPU. */
	atomic64_t batch_start;
	atomic64_t span_start[KPROF_MAX_SPANS];
	atomic64_t seq[KPROF_NR_EVENTS];	/* events emitted, never reset */
	/*
	 * kprof/aggregate: the cells, or NULL. Changed under kprof_dev_mutex,
	 * read by the hooks with interrupts off: an RCU grace period after a
	 * change no hook uses the old cells.
	 */
	struct kprof_dev_agg __rcu *agg;
	struct kprof_dev_agg *agg_retired;	/* waiting for the grace period */
};

/*
 * A device's aggregation: a cell per CPU and kind, CPU-major, each under
 * its CPU's lock; samples go in while @on. The stage, shared by the CPUs,
 * has a lock of its own, taken inside a CPU's lock by a first sample that
 * finds no spare.
 */
struct kprof_dev_agg {
	bool on;
	raw_spinlock_t stage_lock;
	struct kprof_stage stage;
	struct kprof_dev_cell {
		struct kprof_hist *h;
		u64 untracked;
	} cell[];	/* nr_cpu_ids * kprof_nr_kinds() */
};

static inline unsigned int kprof_nr_kinds(const struct kprof_dev *dev)
{
	return KPROF_K_SPAN0 + dev->nr_spans;
}

/*
 * Hook calls kprof ignores (kprof/misuse): on a NULL or ERR_PTR() device (a
 * driver whose registration failed and that treats kprof as optional), in
 * NMI (where a CPU's lock could be the one the interrupted code holds), or
 * with a span id the device did not register. Counted, never warned about:
 * a hook is a hot path, and panic_on_warn makes a WARN fatal.
 */
struct kprof_misuse {
	unsigned long null_dev;
	unsigned long nmi;
	unsigned long bad_span;
};

DECLARE_PER_CPU(struct kprof_misuse, kprof_misuse);

/*
 * kprof's own top-level debugfs files: each is created by its name from
 * kprof_top_files[] (KPROF_FILE()), and no device may take any of these
 * names (kprof_name_reserved()).
 */
enum kprof_top_file {
	KPROF_TF_VERSION,
	KPROF_TF_ENABLE,
	KPROF_TF_BENCH,
	KPROF_TF_AGGREGATE,
	KPROF_TF_MISUSE,
	KPROF_TF_GIRQ_COUNTERS,
	KPROF_TF_GIRQ_EMITTED,
	KPROF_TF_GIRQ_AGGREGATE,
	KPROF_TF_GIRQ_HIST,
	KPROF_TF_MEMORY,
	KPROF_TF_FUNC,
	KPROF_NR_TOP_FILES
};

extern const char * const kprof_top_files[KPROF_NR_TOP_FILES];
#define KPROF_FILE(id)	(kprof_top_files[KPROF_TF_##id])

/* kprof_main.c */
extern struct dentry *kprof_debugfs_root;	/* an ERR_PTR() without debugfs */
int kprof_key_get(void);
void kprof_key_put(void);
bool kprof_name_reserved(const char *name);

/* kprof_dev.c: the registry */
extern struct list_head kprof_devices;	/* under kprof_dev_mutex */
extern struct mutex kprof_dev_mutex;
void kprof_devs_reset_inflight(void);
void kprof_dev_reset_stats(struct kprof_dev *dev);

/* kprof_hooks.c: the hooks' slow paths and the events (kprof_misuse above) */

/* kprof_debugfs.c: the devices' files */
extern const char * const kprof_kind_names[KPROF_K_SPAN0];
void kprof_devs_init(struct dentry *root);
void kprof_dev_files(struct kprof_dev *dev);

/* kprof_agg.c: in-kernel aggregation, shared with the IRQ tracker */
extern struct kprof_agg_ctl kprof_dev_agg;	/* kprof/aggregate */
int kprof_agg_check_params(void);
int kprof_agg_charge(size_t size);
void kprof_agg_uncharge(size_t size);
void kprof_agg_hist_free(struct kprof_hist *h);
void kprof_agg_fill(const struct kprof_cells *c);
void kprof_agg_spares(struct kprof_agg_ctl *ctl, bool on);
void kprof_agg_reserve(unsigned int n);
void kprof_agg_sync(void);
int kprof_dev_agg_attach(struct kprof_dev *dev);
void kprof_dev_agg_fill(struct kprof_dev *dev);
void kprof_dev_agg_free(const struct kprof_dev *dev, struct kprof_dev_agg *a);
void kprof_dev_agg_exit(void);
void kprof_agg_file(struct dentry *root, const char *name, struct kprof_agg_ctl *ctl);
void kprof_agg_init(struct dentry *root);
void kprof_hist_copy(raw_spinlock_t *lock, struct kprof_hist *dst,
		     const struct kprof_hist *src);
void kprof_hist_print(struct seq_file *m, const struct kprof_hist *h);

/* kprof_func.c: function probes (kprof/func) */
void kprof_func_init(struct dentry *root);
void kprof_func_agg_fill(void);

/* kprof_bench.c */
void kprof_bench_init(struct dentry *root);

/* kprof_girq.c: the generic IRQ tracker (girq) */
int kprof_girq_check_params(void);
void kprof_girq_init(struct dentry *root);
void kprof_girq_start(void);
void kprof_girq_exit(void);
void kprof_girq_free(void);
void kprof_girq_agg_fill(void);

#endif /* _KPROF_INTERNAL_H */
