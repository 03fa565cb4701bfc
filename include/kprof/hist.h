/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency histogram layout that kprof.ko's in-kernel aggregation and
 * kprofctl's Histogram share, written once: plain C, read by the kernel
 * and by C++.
 *
 * Log-linear, in the style of HdrHistogram. Values below 2 * KPROF_HIST_SUB
 * (1024) have a bucket each and are exact. Above, every power of two
 * [2^e, 2^(e+1)) is cut into KPROF_HIST_SUB (512) equal buckets, so a
 * bucket is at most 1/512 of the values in it wide, and its midpoint is
 * within 1/1024 (0.098 %) of any value in it.
 *
 * kprof.ko keeps the buckets of values below 2^KPROF_HIST_KERNEL_BITS ns
 * (68.7 s) and counts every larger value in one more bucket, the one whose
 * index is KPROF_HIST_KERNEL_BUCKETS - 1 (in kprofctl's layout, the first
 * bucket of 2^36).
 */
#ifndef _KPROF_HIST_H
#define _KPROF_HIST_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/bitops.h>
#endif

#define KPROF_HIST_SUB_BITS	9
#define KPROF_HIST_SUB		(1ULL << KPROF_HIST_SUB_BITS)
#define KPROF_HIST_KERNEL_BITS	36
/* Bucket index of 2^e, for e > KPROF_HIST_SUB_BITS. */
#define KPROF_HIST_POW2_INDEX(e) \
	(2 * KPROF_HIST_SUB + ((e) - KPROF_HIST_SUB_BITS - 1) * KPROF_HIST_SUB)
/* kprof.ko's buckets: every one below 2^36 ns, and one for the rest. */
#define KPROF_HIST_KERNEL_BUCKETS	(KPROF_HIST_POW2_INDEX(KPROF_HIST_KERNEL_BITS) + 1)
/* kprofctl's: every one up to 2^64 - 1. */
#define KPROF_HIST_ALL_BUCKETS		KPROF_HIST_POW2_INDEX(64)

/* The index of @v's bucket. */
static inline __u32 kprof_hist_index(__u64 v)
{
	unsigned int e;

	if (v < 2 * KPROF_HIST_SUB)
		return (__u32)v;
#ifdef __KERNEL__
	e = fls64(v) - 1;
#else
	e = 63 - __builtin_clzll(v);
#endif
	return KPROF_HIST_POW2_INDEX(e) +
		(__u32)((v >> (e - KPROF_HIST_SUB_BITS)) - KPROF_HIST_SUB);
}

#endif /* _KPROF_HIST_H */
