/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few libtracecmd calls report -i makes, behind a C interface. trace-cmd.h
 * includes tracefs.h, whose inline helpers are valid C but not C++ (see
 * tracefs_c.hpp): compiled as C here, the C++ side never sees either header,
 * and builds with any compiler (the sanitizer build's clang too).
 */
#ifndef KPROF_TRACECMD_SHIM_H
#define KPROF_TRACECMD_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

struct tep_handle;
struct kprof_tc;

/*
 * One page of a CPU's data as the ring buffer wrote it, header included,
 * valid until the next kprof_tc_next_page() or kprof_tc_close().
 */
struct kprof_tc_page {
	const void *data;
	int size;
};

/* NULL if libtracecmd cannot open @path as a trace-cmd data file. */
struct kprof_tc *kprof_tc_open(const char *path);
void kprof_tc_close(struct kprof_tc *tc);
struct tep_handle *kprof_tc_tep(struct kprof_tc *tc);
int kprof_tc_cpus(struct kprof_tc *tc);
/*
 * @cpu's first page if @first, else the one after the page handed out
 * last: 1 and @out filled, or 0 once the CPU has no more (or libtracecmd
 * cannot read on).
 */
int kprof_tc_next_page(struct kprof_tc *tc, int cpu, int first, struct kprof_tc_page *out);

#ifdef __cplusplus
}
#endif

#endif /* KPROF_TRACECMD_SHIM_H */
