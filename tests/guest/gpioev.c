// SPDX-License-Identifier: GPL-2.0
/*
 * kprof-gpioev: drive a real in-kernel threaded IRQ, the GPIO character
 * device's edge detection, on a gpio-sim line (issue #22; run by
 * tests/vm/girq_gpiosim.sh in the guest).
 *
 *   kprof-gpioev [-c|-a] [-n TOGGLES] [-p PERIOD_US] CHIP OFFSET PULL
 *
 * Requests line OFFSET of CHIP (/dev/gpiochipN) as an input with both edges
 * detected, under the consumer name "kpgpio": gpiolib-cdev then holds a
 * threaded IRQ (edge_irq_handler() stamps the edge in hard IRQ,
 * edge_irq_thread() reads the line's value with gpiod_get_value_cansleep()
 * and queues the event). A child process flips the line TOGGLES times, one
 * each PERIOD_US, by writing "pull-up" and "pull-down" to PULL
 * (/sys/devices/platform/gpio-sim.N/gpiochipN/sim_gpioOFFSET/pull), while
 * this process reads the events. gpio-sim takes its chip's mutex both to
 * raise the IRQ and to read the value, so the IRQ thread can sleep inside
 * its handler, on that mutex. To make that happen on every edge (-c), the
 * child moves itself, before each flip, to the CPU the IRQ thread last ran on:
 * the edge's hard IRQ (gpio-sim raises it through irq_work, on the CPU
 * that flips) then wakes the thread there, which preempts the child while
 * it holds the mutex. With -a the child keeps off that CPU instead, and
 * with a period shorter than the thread's wake-up and run, edges arrive
 * while the thread is pending or runs its handler: gpio-sim's IRQ
 * (handle_simple_irq()) is not masked while the thread runs, so those are
 * requests that a pending run serves (coalesced) or the next run (busy).
 *
 * Prints, one per line: "irq N" (from /proc/interrupts), "thread PID" and
 * "comm COMM" (the thread running the thread function), "toggles T",
 * "events E" (read from the line), "seqno_gaps G" (events the kernel's
 * queue dropped: line_seqno not one more than the last).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LABEL "kpgpio"

static void die(const char *what)
{
	fprintf(stderr, "kprof-gpioev: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The line's request: an input, both edges, events stamped CLOCK_MONOTONIC. */
static int request_line(const char *chip, unsigned int offset)
{
	struct gpio_v2_line_request req;
	int fd = open(chip, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(chip);
	memset(&req, 0, sizeof(req));
	req.offsets[0] = offset;
	req.num_lines = 1;
	req.event_buffer_size = 256;
	req.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
			   GPIO_V2_LINE_FLAG_EDGE_FALLING;
	strncpy(req.consumer, LABEL, sizeof(req.consumer) - 1);
	if (ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &req) < 0)
		die("GPIO_V2_GET_LINE_IOCTL");
	close(fd);
	return req.fd;
}

/* The IRQ whose action is named LABEL in /proc/interrupts, -1 if none. */
static int find_irq(void)
{
	char line[1024];
	int irq = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		die("/proc/interrupts");
	while (irq < 0 && fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		line[n] = 0;
		if (n > strlen(LABEL) && !strcmp(line + n - strlen(LABEL), LABEL) &&
		    line[n - strlen(LABEL) - 1] == ' ')
			irq = atoi(line);
	}
	fclose(f);
	return irq;
}

/*
 * The PID of the thread that runs IRQ's thread function: irq/N-s-LABEL when
 * the IRQ is forced-threaded (threadirqs, PREEMPT_RT), else irq/N-LABEL.
 */
static pid_t find_thread(int irq)
{
	char want[2][32], comm[64], path[300];
	pid_t pid = 0;
	struct dirent *d;
	DIR *proc = opendir("/proc");

	if (!proc)
		die("/proc");
	snprintf(want[0], sizeof(want[0]), "irq/%d-s-%s", irq, LABEL);
	snprintf(want[1], sizeof(want[1]), "irq/%d-%s", irq, LABEL);
	for (int w = 0; w < 2 && !pid; w++) {
		rewinddir(proc);
		while (!pid && (d = readdir(proc))) {
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(comm, sizeof(comm), f) &&
			    !strncmp(comm, want[w], strnlen(want[w], 15)) && comm[strnlen(want[w], 15)] == '\n')
				pid = atoi(d->d_name);
			fclose(f);
		}
	}
	closedir(proc);
	return pid;
}

/* The CPU PID last ran on (/proc/PID/stat, field 39), -1 if unknown. */
static int last_cpu(pid_t pid)
{
	char buf[1024], path[64], *p;
	int field = 2, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		for (p = strtok(p + 1, " "); p && ++field < 39; p = strtok(NULL, " "))
			;
		if (p)
			cpu = atoi(p);
	}
	fclose(f);
	return cpu;
}

static void print_comm(pid_t pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		die(path);
	fclose(f);
	printf("comm %s", comm);
}

/* Moves the caller onto THREAD's last CPU, or off it if AVOID. */
static void follow(pid_t thread, int avoid)
{
	int cpu = last_cpu(thread);
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	if (avoid) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &set);
		CPU_CLR(cpu, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

static void write_pull(const char *pull, const char *value)
{
	int fd = open(pull, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		die(pull);
	close(fd);
}

/*
 * The child: TOGGLES flips of the line, one each PERIOD_US, on THREAD's CPU
 * (PLACE 'c') or off it (PLACE 'a').
 */
static void toggle(const char *pull, long toggles, long period_us, pid_t thread, int place)
{
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < toggles; i++) {
		if (place)
			follow(thread, place == 'a');
		write_pull(pull, i % 2 ? "pull-down" : "pull-up");
		next.tv_nsec += period_us * 1000;
		next.tv_sec += next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	_exit(0);
}

/* Reads events until CHILD has exited and 500 ms pass without one. */
static void read_events(int fd, pid_t child, long *events, long *gaps)
{
	struct gpio_v2_line_event ev[64];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int last = 0;
	int status, done = 0;

	for (;;) {
		int r = poll(&p, 1, 500);
		ssize_t n;

		if (r < 0 && errno != EINTR)
			die("poll");
		if (r <= 0) {
			if (done)
				return;
			if (waitpid(child, &status, WNOHANG) == child) {
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					exit(1);
				done = 1;
			}
			continue;
		}
		n = read(fd, ev, sizeof(ev));
		if (n < 0 || n % sizeof(ev[0]))
			die("read");
		for (size_t i = 0; i < n / sizeof(ev[0]); i++) {
			if (ev[i].line_seqno != last + 1)
				(*gaps)++;
			last = ev[i].line_seqno;
			(*events)++;
		}
	}
}

int main(int argc, char **argv)
{
	long toggles = 400, period_us = 2000, events = 0, gaps = 0;
	int opt, fd, irq, place = 0;
	pid_t child, thread;

	while ((opt = getopt(argc, argv, "acn:p:")) != -1) {
		if (opt == 'a' || opt == 'c')
			place = opt;
		else if (opt == 'n')
			toggles = atol(optarg);
		else if (opt == 'p')
			period_us = atol(optarg);
		else
			return 2;
	}
	if (argc - optind != 3 || toggles <= 0 || period_us <= 0) {
		fprintf(stderr, "usage: kprof-gpioev [-c|-a] [-n TOGGLES] [-p PERIOD_US] CHIP OFFSET PULL\n");
		return 2;
	}
	fd = request_line(argv[optind], atoi(argv[optind + 1]));
	irq = find_irq();
	thread = find_thread(irq);
	if (irq < 0 || thread <= 0) {
		fprintf(stderr, "kprof-gpioev: no IRQ or no IRQ thread named %s\n", LABEL);
		return 1;
	}
	printf("irq %d\nthread %d\n", irq, thread);
	print_comm(thread);
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork");
	if (!child)
		toggle(argv[optind + 2], toggles, period_us, thread, place);
	read_events(fd, child, &events, &gaps);
	printf("toggles %ld\nevents %ld\nseqno_gaps %ld\n", toggles, events, gaps);
	return 0;
}
