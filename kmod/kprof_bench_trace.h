/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench's own trace system, kprof_bench: a bare one-field event, the
 * cheapest thing a driver could write instead of kprof's hooks (the
 * kernel's TRACEPOINT_BENCHMARK idea). Only kprof/bench enables it, in its
 * own instance.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kprof_bench

#if !defined(_KPROF_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KPROF_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(kprof_bench_bare,
	TP_PROTO(u32 value),
	TP_ARGS(value),
	TP_STRUCT__entry(
		__field(u32, value)
	),
	TP_fast_assign(
		__entry->value = value;
	),
	TP_printk("value=%u", __entry->value)
);

#endif /* _KPROF_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kprof_bench_trace
#include <trace/define_trace.h>
