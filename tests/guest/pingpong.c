// SPDX-License-Identifier: GPL-2.0
/*
 * kprof-pingpong: a context-switch-heavy workload for make bench's S1 and
 * its check in make check (tests/vm/bench/bench_sched.sh,
 * tests/vm/girq_sched_cost.sh, issue #25).
 *
 *   kprof-pingpong [-c CPU] [-n ROUNDTRIPS]
 *
 * Two processes pass a byte back and forth over two pipes, ROUNDTRIPS
 * times (default 100000), both pinned to CPU (default 0): each round trip
 * is two wake-ups (sched_waking, sched_wakeup) and two context switches.
 * Prints "ns_per_roundtrip N" (CLOCK_MONOTONIC over the whole run) and
 * "roundtrips N". Exit status 1 with a message on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "kprof-pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* Read a byte from @in and write it to @out, @n times (@first: write first). */
static void bounce(int in, int out, long n, int first)
{
	char c = 'k';

	for (long i = 0; i < n; i++) {
		if (first && write(out, &c, 1) != 1)
			die("write");
		if (read(in, &c, 1) != 1)
			die("read");
		if (!first && write(out, &c, 1) != 1)
			die("write");
	}
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = 100000;
	int cpu = 0, opt, ab[2], ba[2], status;
	long long t0, t1;
	pid_t child;

	while ((opt = getopt(argc, argv, "c:n:")) != -1) {
		if (opt == 'c')
			cpu = atoi(optarg);
		else if (opt == 'n')
			n = atol(optarg);
		else
			return fprintf(stderr, "usage: kprof-pingpong [-c CPU] [-n ROUNDTRIPS]\n"), 2;
	}
	if (n <= 0 || cpu < 0)
		return fprintf(stderr, "kprof-pingpong: bad -n or -c\n"), 2;
	pin(cpu);
	if (pipe(ab) || pipe(ba))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		bounce(ab[0], ba[1], n, 0);
		_exit(0);
	}
	t0 = now_ns();
	bounce(ba[0], ab[1], n, 1);
	t1 = now_ns();
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return fprintf(stderr, "kprof-pingpong: the child failed\n"), 1;
	printf("ns_per_roundtrip %lld\nroundtrips %ld\n", (t1 - t0) / n, n);
	return 0;
}
