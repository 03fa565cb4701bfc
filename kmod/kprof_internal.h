/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPROF_INTERNAL_H
#define _KPROF_INTERNAL_H

#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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

struct kprof_pcpu {
	u64 irqs;
	u64 thread_runs;
	u64 unpaired_runs;	/* thread runs with no stamped IRQ to pair */
	u64 coalesced;
	u64 batches;
	u64 packets;
	u64 spans;
	struct kprof_lat lat[KPROF_NR_KINDS];
};

struct kprof_dev {
	char name[KPROF_NAME_MAX + 1];
	int irq;
	unsigned int nr_spans;
	const char *span_names[KPROF_MAX_SPANS];
	struct list_head node;		/* on kprof_devices, under kprof_dev_mutex */
	struct dentry *dir;
	struct kprof_pcpu __percpu *pcpu;

	/*
	 * In-flight measurements. A raw lock: taken from hard-IRQ context,
	 * also on PREEMPT_RT. Held only for a few loads and stores and the
	 * histogram update (which needs IRQs off for its per-CPU slot).
	 */
	raw_spinlock_t lock;
	u64 pending_since;		/* first IRQ not yet served by the thread */
	u32 pending_irqs;
	int pending_cpu;
	u64 hard_start;
	u64 batch_start;
	u64 span_start[KPROF_MAX_SPANS];
};

/* kprof_main.c */
extern struct dentry *kprof_debugfs_root;
int kprof_key_get(void);
void kprof_key_put(void);

/* kprof_dev.c */
void kprof_devs_reset_inflight(void);
void kprof_dev_reset_stats(struct kprof_dev *dev);
void kprof_lat_add(struct kprof_lat *lat, u64 ns);

/* kprof_bench.c */
void kprof_bench_init(struct dentry *root);

#endif /* _KPROF_INTERNAL_H */
