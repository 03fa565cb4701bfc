// SPDX-License-Identifier: GPL-2.0
#include "sys/tracecmd_shim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <trace-cmd.h>

/*
 * Exported by libtracecmd (since 2015: trace-cmd 2.6) and declared only in
 * its private header: the page a record lies in, the pages' size, and the
 * cursor of a CPU's reading, and its last record.
 */
void *tracecmd_record_page(struct tracecmd_input *handle, struct tep_record *record);
int tracecmd_page_size(struct tracecmd_input *handle);
int tracecmd_set_cursor(struct tracecmd_input *handle, int cpu, unsigned long long offset);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);

struct kprof_tc {
	struct tracecmd_input *in;
	struct tep_record *cur;		/* holds the page handed out last */
	unsigned long long next;	/* the offset of the page after it */
	unsigned long long last;	/* the offset of the CPU's last page */
};

#define KPROF_TC_FLAGS TRACECMD_FL_LOAD_NO_PLUGINS

static struct tracecmd_input *open_input(const char *path)
{
	struct tracecmd_input *in = tracecmd_open_head(path, KPROF_TC_FLAGS);

	/*
	 * libtracecmd 3.1.6 crashes in tracecmd_close() on a handle whose
	 * tracecmd_init_data() failed (a NULL dereference): such a handle is
	 * left as it is, as trace-cmd report does.
	 */
	return in && tracecmd_init_data(in) >= 0 ? in : NULL;
}

/*
 * Whether opening @path survives: libtracecmd 3.1.6 also double-frees in
 * tracecmd_alloc_fd() on some damaged headers (both found by fuzz.tracedat
 * within seconds of one-byte changes to a real file). The open is tried in
 * a child first, and a child that dies makes the file unreadable instead
 * of killing kprofctl.
 */
static int open_survives(const char *path)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;	/* cannot try: open it for real */
	if (pid == 0)
		_exit(open_input(path) ? 0 : 1);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct kprof_tc *kprof_tc_open(const char *path)
{
	struct kprof_tc *tc;

	if (!open_survives(path))
		return NULL;
	tc = calloc(1, sizeof(*tc));
	if (!tc)
		return NULL;
	tc->in = open_input(path);
	if (!tc->in) {
		free(tc);
		return NULL;
	}
	return tc;
}

void kprof_tc_close(struct kprof_tc *tc)
{
	if (!tc)
		return;
	tracecmd_free_record(tc->cur);
	tracecmd_close(tc->in);
	free(tc);
}

struct tep_handle *kprof_tc_tep(struct kprof_tc *tc)
{
	return tracecmd_get_tep(tc->in);
}

int kprof_tc_cpus(struct kprof_tc *tc)
{
	return tep_get_cpus(tracecmd_get_tep(tc->in));
}

/* The offset of the page @rec lies in: libtracecmd's offsets are
 * page-aligned in compressed files too. */
static unsigned long long page_of(const struct tep_record *rec, int size)
{
	return rec->offset & ~((unsigned long long)size - 1);
}

/*
 * A page at a time: libtracecmd finds (and decompresses) the page, the
 * decoder walks it. The cursor is set to the start of the next page, whose
 * first record tells its page; libtracecmd skips a page without records.
 * The CPU's last page bounds the walk: set_cursor() accepts the offset just
 * past a CPU's data, where the next CPU's data begins.
 */
int kprof_tc_next_page(struct kprof_tc *tc, int cpu, int first, struct kprof_tc_page *out)
{
	const int size = tracecmd_page_size(tc->in);
	struct tep_record *rec = NULL;
	unsigned long long at;

	tracecmd_free_record(tc->cur);
	tc->cur = NULL;
	if (size <= 0)
		return 0;
	if (first) {
		rec = tracecmd_read_cpu_last(tc->in, cpu);
		if (!rec)
			return 0;
		tc->last = page_of(rec, size);
		tracecmd_free_record(rec);
		rec = tracecmd_read_cpu_first(tc->in, cpu);
	} else if (tc->next <= tc->last && tracecmd_set_cursor(tc->in, cpu, tc->next) == 0) {
		rec = tracecmd_read_data(tc->in, cpu);
	}
	if (!rec)
		return 0;
	at = page_of(rec, size);
	if ((!first && at < tc->next) || at > tc->last) {
		tracecmd_free_record(rec);	/* no progress: stop, never loop */
		return 0;
	}
	tc->cur = rec;
	tc->next = at + (unsigned long long)size;
	out->data = tracecmd_record_page(tc->in, rec);
	out->size = size;
	return out->data != NULL;
}
