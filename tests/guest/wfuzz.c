// SPDX-License-Identifier: GPL-2.0
/*
 * kprof-wfuzz: write garbage to debugfs files from two writers at once
 * (issue #12, R2; tests/vm/debugfs_fuzz.sh runs it in the guest).
 *
 *   kprof-wfuzz [-n WRITES] [-s SEED] FILE...
 *
 * Each of two processes makes WRITES/2 writes to every FILE, in a random
 * order of files, so both write the same files at the same time. A write is
 * one of:
 *   - random bytes of a random length (mostly short, sometimes 8 KiB);
 *   - a number-like token: huge, negative, signed, hex, octal, spaced,
 *     with a NUL inside, or a small random number;
 *   - a token split into two writes on the same open file (partial writes);
 *   - a token written at a random offset (pwrite).
 * Each write must be accepted in full, or fail with one of the errors
 * doc/module.md documents: EINVAL or ERANGE (a value refused), ENOMEM (an
 * allocation the value asked for failed), EBUSY (kprof/bench while kprof is
 * in use), ESPIPE (a write at an offset to a file that has none). Anything
 * else, a short write included, is reported with its input and fails the
 * run. Prints, per file, the
 * writes made and how each ended, then "wfuzz: N writes, M failures".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OK, E_INVAL, E_RANGE, E_NOMEM, E_BUSY, E_SPIPE, BAD, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = {
	"accepted", "EINVAL", "ERANGE", "ENOMEM", "EBUSY", "ESPIPE", "unexpected"
};

struct tally {
	unsigned long n[NR_OUTCOMES];
};

static const char *const tokens[] = {
	"0", "1", "2", "3", "-1", "-0", "+1", " 1", "1 ", "1\n", "1\n\n", "\n", "",
	"4294967295", "4294967296", "18446744073709551615",
	"18446744073709551616", "99999999999999999999999999999999",
	"-9223372036854775808", "-2147483648", "0x10", "010", "1a", "1.5",
	"1e3", "abc", "one", "1 2", "\t2", "00000000000000000000000000000001",
};
#define NR_TOKENS (sizeof(tokens) / sizeof(tokens[0]))
static const char nul_token[] = "1\0junk";

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from -s */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* Fill @buf with one input; returns its length. */
static size_t make_input(char *buf, size_t cap, int *split, off_t *off)
{
	unsigned int kind = rnd() % 8;
	size_t len;

	*split = 0;
	*off = 0;
	if (kind < 3) {			/* random bytes */
		len = rnd() % 8 ? rnd() % 40 : rnd() % cap;
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)rnd();
		return len;
	}
	if (kind < 5)			/* a small random number */
		len = (size_t)snprintf(buf, cap, "%llu", (unsigned long long)(rnd() % 1001));
	else if (rnd() % 16) {		/* a token */
		const char *tok = tokens[rnd() % NR_TOKENS];

		len = strlen(tok);
		memcpy(buf, tok, len);
	} else {			/* a number with a NUL after it */
		len = sizeof(nul_token) - 1;
		memcpy(buf, nul_token, len);
	}
	if (kind == 6 && len > 1)
		*split = 1 + (int)(rnd() % (len - 1));
	if (kind == 7)
		*off = (off_t)(1 + rnd() % 100000);
	return len;
}

static int classify(ssize_t ret, size_t want, int err)
{
	if (ret == (ssize_t)want)
		return OK;
	if (ret >= 0)
		return BAD;		/* a short write */
	switch (err) {
	case EINVAL: return E_INVAL;
	case ERANGE: return E_RANGE;
	case ENOMEM: return E_NOMEM;
	case EBUSY: return E_BUSY;
	case ESPIPE: return E_SPIPE;
	}
	return BAD;
}

static void report_bad(const char *file, const char *buf, size_t len, ssize_t ret, int err)
{
	fprintf(stderr, "wfuzz: %s: write of %zu bytes returned %zd (%s); input:", file, len, ret,
		ret < 0 ? strerror(err) : "short");
	for (size_t i = 0; i < len && i < 64; i++)
		fprintf(stderr, " %02x", (unsigned char)buf[i]);
	fputc('\n', stderr);
}

/* One write (or two, split) to @file; the outcome of the last write. */
static int write_once(const char *file, char *buf, size_t cap)
{
	int split, fd, out, err = 0;
	off_t off;
	size_t len = make_input(buf, cap, &split, &off);
	ssize_t ret;

	fd = open(file, O_WRONLY);
	if (fd < 0) {
		report_bad(file, buf, len, -1, errno);
		return BAD;
	}
	if (split) {
		ret = write(fd, buf, (size_t)split);
		out = classify(ret, (size_t)split, errno);
		if (out == BAD)
			report_bad(file, buf, (size_t)split, ret, errno);
		ret = write(fd, buf + split, len - (size_t)split);
		err = errno;
		len -= (size_t)split;
		buf += split;
	} else if (off) {
		ret = pwrite(fd, buf, len, off);
		err = errno;
	} else {
		ret = write(fd, buf, len);
		err = errno;
	}
	out = classify(ret, len, err);
	if (out == BAD)
		report_bad(file, buf, len, ret, err);
	close(fd);
	return out;
}

static void writer(char **files, int nfiles, unsigned long writes, struct tally *t)
{
	static char buf[8192];
	unsigned long left = writes * (unsigned long)nfiles;
	unsigned long *done = calloc((size_t)nfiles, sizeof(*done));

	if (!done)
		exit(2);
	while (left) {
		int f = (int)(rnd() % (uint64_t)nfiles);

		if (done[f] == writes)
			continue;
		done[f]++;
		left--;
		__atomic_add_fetch(&t[f].n[write_once(files[f], buf, sizeof(buf))], 1, __ATOMIC_RELAXED);
	}
	free(done);
}

int main(int argc, char **argv)
{
	unsigned long writes = 10000, total = 0, bad = 0;
	unsigned long long seed = 1;
	struct tally *t;
	int opt, nfiles;
	pid_t pid[2];

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		if (opt == 'n')
			writes = strtoul(optarg, NULL, 10);
		else if (opt == 's')
			seed = strtoull(optarg, NULL, 10);
		else
			return 2;
	}
	nfiles = argc - optind;
	if (nfiles < 1 || writes < 2) {
		fprintf(stderr, "usage: kprof-wfuzz [-n WRITES] [-s SEED] FILE...\n");
		return 2;
	}
	t = mmap(NULL, sizeof(*t) * (size_t)nfiles, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return 2;
	memset(t, 0, sizeof(*t) * (size_t)nfiles);
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		if (pid[w] < 0)
			return 2;
		if (pid[w] == 0) {
			rng_state = seed * 2 + (uint64_t)w + 1;
			writer(argv + optind, nfiles, writes / 2, t);
			_exit(0);
		}
	}
	for (int w = 0; w < 2; w++) {
		int status;

		if (waitpid(pid[w], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	for (int f = 0; f < nfiles; f++) {
		printf("%s", argv[optind + f]);
		for (int o = 0; o < NR_OUTCOMES; o++) {
			printf(" %s=%lu", outcome_names[o], t[f].n[o]);
			total += t[f].n[o];
		}
		bad += t[f].n[BAD];
		printf("\n");
	}
	printf("wfuzz: %lu writes, %lu failures\n", total, bad);
	return bad ? 1 : 0;
}
