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
 * One record, valid until the next kprof_tc_next() or kprof_tc_close().
 * The first record of each page also carries the page (header included):
 * what was lost before it is in that header. libtracecmd's own count
 * (kbuffer_missed_events()) is 0 when the page begins with a time extend.
 */
struct kprof_tc_record {
	const void *data;
	int size;
	unsigned long long ts;
	const void *page;	/* NULL but on a page's first record */
	int page_size;
};

/* NULL if libtracecmd cannot open @path as a trace-cmd data file. */
struct kprof_tc *kprof_tc_open(const char *path);
void kprof_tc_close(struct kprof_tc *tc);
struct tep_handle *kprof_tc_tep(struct kprof_tc *tc);
int kprof_tc_cpus(struct kprof_tc *tc);
/* @cpu's first record if @first, else its next: 1 and @out filled, or 0. */
int kprof_tc_next(struct kprof_tc *tc, int cpu, int first, struct kprof_tc_record *out);

#ifdef __cplusplus
}
#endif

#endif /* KPROF_TRACECMD_SHIM_H */
