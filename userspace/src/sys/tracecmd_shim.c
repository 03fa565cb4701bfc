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
 * its private header: the page a record lies in, and the pages' size.
 */
void *tracecmd_record_page(struct tracecmd_input *handle, struct tep_record *record);
int tracecmd_page_size(struct tracecmd_input *handle);

struct kprof_tc {
	struct tracecmd_input *in;
	struct tep_record *cur;	/* the record handed out last */
	void *page;		/* its page */
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

/*
 * The record before is freed only once this one is read: its page stays
 * mapped meanwhile, so a new page cannot reuse its address, and a page
 * whose address differs from the last record's is a new one.
 */
int kprof_tc_next(struct kprof_tc *tc, int cpu, int first, struct kprof_tc_record *out)
{
	struct tep_record *rec = first ? tracecmd_read_cpu_first(tc->in, cpu) : tracecmd_read_data(tc->in, cpu);
	void *page = rec ? tracecmd_record_page(tc->in, rec) : NULL;
	int new_page = first || page != tc->page;

	tracecmd_free_record(tc->cur);
	tc->cur = rec;
	tc->page = page;
	if (!rec)
		return 0;
	out->data = rec->data;
	out->size = rec->size;
	out->ts = rec->ts;
	out->page = new_page ? page : NULL;
	out->page_size = tracecmd_page_size(tc->in);
	return 1;
}
