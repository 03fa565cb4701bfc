// SPDX-License-Identifier: GPL-2.0
/*
 * Function probes (kprof/func): how often any kernel or module function is
 * called and how long each call takes, on a driver nobody instrumented.
 *
 * Each open of kprof/func is a session, and a session's probes live as
 * long as its file: a killed kprofctl leaves nothing behind. Through the
 * file it is given functions ("add NAME"), each a kretprobe registered
 * disabled, so that a function that cannot be probed fails that write with
 * the kernel's reason; "start" enables them and "stop" disables them. A
 * read shows every function's calls and histograms (func_show()).
 *
 * A call's entry handler keeps its start (ktime_get_ns(), the clock every
 * CPU shares: a call may sleep and return on another CPU) in the
 * kretprobe's instance; the return handler adds the call's time to the
 * histogram of (the returning CPU, the function), kept as the in-kernel
 * aggregation keeps a device's (kprof_agg.c: allocated at the first
 * sample, within the budget). Each instance is one call, so recursion and
 * a call nested in an interrupt of the same function are each timed whole;
 * the entry handler counts such nested calls (the calls of the function
 * the task already has in flight, kprof_kretprobe_depth()) and the
 * deepest nesting seen.
 *
 * Every call counted at entry ends up in exactly one place: a sample, a
 * refused histogram's untracked count, a backwards count (a clock that
 * went back between CPUs), or, at the stop, still in flight. Calls the
 * kernel did not let the probe see are its nmissed counts: no free
 * instance (more calls in flight than maxactive), or a kprobe hit while
 * another kprobe's handler ran on that CPU. Calls in NMI context are
 * counted and not timed: the return handler takes a raw lock that the
 * interrupted code may hold.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <asm/local.h>
#include <asm/local64.h>

#include "compat.h"
#include "kprof_internal.h"

#define FUNC_MAX		256	/* functions in a session */
#define FUNC_MAXACTIVE_MIN	64	/* calls of a function in flight at once */

/* A function's counts on one CPU, updated by its handlers without a lock. */
struct func_pcpu {
	local64_t entries;	/* calls timed from their entry */
	local64_t nmi;		/* calls in NMI context: counted, not timed */
	local64_t nested;	/* calls entered inside a timed call of it */
	local_t depth;		/* the most calls of it in flight in a task */
};

struct func_cell {
	struct kprof_hist *h;
	u64 untracked;
	u64 backwards;
};

struct func_sess;

struct func_probe {
	struct kretprobe krp;
	struct func_sess *s;
	unsigned int idx;
	struct func_pcpu __percpu *pc;
	struct func_cell *cell;		/* [nr_cpu_ids], each under its CPU's lock */
	char name[KSYM_NAME_LEN];
};

/* A CPU's lock for the cells of that CPU, taken by the return handler. */
struct func_cpu {
	raw_spinlock_t lock;
};

enum { FUNC_IDLE, FUNC_ON, FUNC_STOPPED };

struct func_sess {
	struct list_head node;		/* on func_sessions, under func_mutex */
	struct mutex lock;		/* the session's commands and reads */
	unsigned int state;		/* under lock; the handlers read on */
	bool on;
	unsigned int nr;
	struct func_probe *fn[FUNC_MAX];
	struct func_cpu __percpu *cpu;
	raw_spinlock_t stage_lock;
	struct kprof_stage stage;
	struct kprof_agg_ctl ctl;	/* for its spares only */
};

static LIST_HEAD(func_sessions);
static DEFINE_MUTEX(func_mutex);	/* the list; fills and frees of cells */

struct func_data {
	u64 start;
};

static struct func_probe *probe_of(struct kretprobe_instance *ri)
{
	return container_of(kprof_kretprobe_of(ri), struct func_probe, krp);
}

/* @m = max(@m, @v): an interrupt on this CPU may update it meanwhile. */
static void local_max(local_t *m, long v)
{
	long old = local_read(m), seen;

	while (old < v) {
		seen = local_cmpxchg(m, old, v);
		if (seen == old)
			break;
		old = seen;
	}
}

static int func_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct func_probe *fp = probe_of(ri);
	struct func_pcpu *pc;
	unsigned int outer;

	if (!READ_ONCE(fp->s->on))
		return 1;	/* no instance, no return handler */
	pc = this_cpu_ptr(fp->pc);
	if (in_nmi()) {
		local64_inc(&pc->nmi);
		return 1;
	}
	outer = kprof_kretprobe_depth(&fp->krp);
	if (outer)
		local64_inc(&pc->nested);
	local_max(&pc->depth, outer + 1);
	((struct func_data *)ri->data)->start = ktime_get_ns();
	local64_inc(&pc->entries);
	return 0;
}

static int func_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct func_probe *fp = probe_of(ri);
	struct func_sess *s = fp->s;
	u64 now = ktime_get_ns(), start = ((struct func_data *)ri->data)->start;
	unsigned int cpu = smp_processor_id();
	struct func_cell *c = &fp->cell[cpu];
	raw_spinlock_t *lock = &per_cpu_ptr(s->cpu, cpu)->lock;
	unsigned long flags;

	if (!READ_ONCE(s->on))
		return 0;	/* in flight at the stop */
	raw_spin_lock_irqsave(lock, flags);
	if (now < start)
		c->backwards++;
	else if (!kprof_cell_add(&c->h, &s->stage, &s->stage_lock,
				 fp->idx * nr_cpu_ids + cpu, now - start))
		c->untracked++;
	raw_spin_unlock_irqrestore(lock, flags);
	return 0;
}

/* The kprof_cells view of a session: cell id = function * nr_cpu_ids + CPU. */
static raw_spinlock_t *sess_cell_lock(void *ctx, u32 id)
{
	struct func_sess *s = ctx;

	return &per_cpu_ptr(s->cpu, id % nr_cpu_ids)->lock;
}

static struct func_cell *sess_cell(struct func_sess *s, u32 id)
{
	return &s->fn[id / nr_cpu_ids]->cell[id % nr_cpu_ids];
}

static struct kprof_hist **sess_cell_hist(void *ctx, u32 id)
{
	return &sess_cell(ctx, id)->h;
}

static void sess_untracked(void *ctx, u32 id)
{
	sess_cell(ctx, id)->untracked++;
}

/* @s's staged samples into their histograms; func_mutex held. */
static void sess_fill(struct func_sess *s)
{
	struct kprof_cells c = {
		.stage_lock = &s->stage_lock, .stage = &s->stage,
		.lock = sess_cell_lock, .cell = sess_cell_hist,
		.untracked = sess_untracked, .ctx = s,
	};

	kprof_agg_fill(&c);
}

/* Every session's staged samples, from the aggregation's work. */
void kprof_func_agg_fill(void)
{
	struct func_sess *s;

	mutex_lock(&func_mutex);
	list_for_each_entry(s, &func_sessions, node)
		sess_fill(s);
	mutex_unlock(&func_mutex);
}

static int func_maxactive(void)
{
	return max_t(int, FUNC_MAXACTIVE_MIN, 4 * num_possible_cpus());
}

/*
 * What a probe holds, charged to the aggregations' budget: its cells and
 * its kretprobe's instances (their own size; the kernel's pool around
 * them is not counted).
 */
static size_t probe_size(void)
{
	return array_size(nr_cpu_ids, sizeof(struct func_cell)) +
	       array_size(func_maxactive(),
			  sizeof(struct kretprobe_instance) + sizeof(struct func_data));
}

/* An unregistered probe's memory; func_mutex held if its cells were in use. */
static void probe_free(struct func_probe *fp)
{
	unsigned int cpu;

	if (!fp)
		return;
	if (fp->cell) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			kprof_agg_hist_free(fp->cell[cpu].h);
		kvfree(fp->cell);
		kprof_agg_uncharge(probe_size());
	}
	free_percpu(fp->pc);
	kfree(fp);
}

static struct func_probe *probe_alloc(struct func_sess *s, const char *name)
{
	struct func_probe *fp = kzalloc(sizeof(*fp), GFP_KERNEL);

	if (!fp)
		return NULL;
	strscpy(fp->name, name, sizeof(fp->name));
	fp->s = s;
	fp->idx = s->nr;
	fp->pc = alloc_percpu(struct func_pcpu);
	if (!fp->pc || kprof_agg_charge(probe_size()))
		goto fail;
	fp->cell = kvcalloc(nr_cpu_ids, sizeof(*fp->cell), GFP_KERNEL | __GFP_NOWARN);
	if (!fp->cell) {
		kprof_agg_uncharge(probe_size());
		goto fail;
	}
	fp->krp = (struct kretprobe) {
		.kp.symbol_name = fp->name,
		.kp.flags = KPROBE_FLAG_DISABLED,
		.entry_handler = func_entry,
		.handler = func_return,
		.data_size = sizeof(struct func_data),
		.maxactive = func_maxactive(),
	};
	return fp;
fail:
	probe_free(fp);
	return NULL;
}

/*
 * "add NAME": a probe on NAME, registered disabled. Fails with the
 * kernel's errno: -ENOENT no such symbol, -EINVAL a function kprobes
 * refuse (the kprobes blacklist, not a function's entry), and
 * -EOPNOTSUPP where the probe would not be on ftrace (x86: an int3, whose
 * handler runs in NMI context, where the return handler's lock could be
 * the one the interrupted code holds).
 */
static int sess_add(struct func_sess *s, const char *name)
{
	struct func_probe *fp;
	unsigned int i;
	int ret;

	if (s->state != FUNC_IDLE)
		return -EBUSY;
	/* A name, not a glob or an ftrace filter command. */
	if (!*name || strlen(name) >= KSYM_NAME_LEN || strpbrk(name, " \t*?[]:!"))
		return -EINVAL;
	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->fn[i]->name, name))
			return -EEXIST;
	if (s->nr == FUNC_MAX)
		return -E2BIG;
	ret = kprof_ftrace_entry(name);
	if (ret)
		return ret;
	fp = probe_alloc(s, name);
	if (!fp)
		return -ENOMEM;
	ret = register_kretprobe(&fp->krp);
	if (ret) {
		probe_free(fp);
		return ret;
	}
	if (kprof_kprobe_in_nmi(&fp->krp.kp)) {
		unregister_kretprobe(&fp->krp);
		probe_free(fp);
		return -EOPNOTSUPP;
	}
	mutex_lock(&func_mutex);
	s->fn[s->nr++] = fp;
	mutex_unlock(&func_mutex);
	return 0;
}

/*
 * Every function starts counting at once: the probes are enabled first
 * (each a text patch, slow), and count once @on is set. Spares for the
 * first call of each function on each online CPU.
 */
static void sess_start(struct func_sess *s)
{
	unsigned int i;

	kprof_agg_spares(&s->ctl, true);
	kprof_agg_reserve(s->nr * num_online_cpus());
	for (i = 0; i < s->nr; i++)
		enable_kretprobe(&s->fn[i]->krp);
	WRITE_ONCE(s->on, true);
	s->state = FUNC_ON;
}

/*
 * Every function stops counting at once; once this returns, no handler
 * adds a sample (they run with preemption off): the histograms are final.
 */
static void sess_stop(struct func_sess *s)
{
	unsigned int i;

	WRITE_ONCE(s->on, false);
	synchronize_rcu();
	for (i = 0; i < s->nr; i++)
		disable_kretprobe(&s->fn[i]->krp);
	kprof_agg_spares(&s->ctl, false);
	s->state = FUNC_STOPPED;
}

static ssize_t func_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct func_sess *s = ((struct seq_file *)file->private_data)->private;
	char buf[KSYM_NAME_LEN + 8], *cmd;
	int ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;	/* no command is that long */
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cmd = strim(buf);
	mutex_lock(&s->lock);
	if (!strncmp(cmd, "add ", 4))
		ret = sess_add(s, skip_spaces(cmd + 4));
	else if (!strcmp(cmd, "start") && s->state == FUNC_IDLE && s->nr)
		sess_start(s);
	else if (!strcmp(cmd, "stop") && s->state == FUNC_ON)
		sess_stop(s);
	else
		ret = -EINVAL;
	mutex_unlock(&s->lock);
	return ret ? ret : count;
}

/* A func_pcpu counter of @fp at @off, summed over the CPUs. */
static u64 pc_sum(const struct func_probe *fp, size_t off)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += local64_read((local64_t *)((char *)per_cpu_ptr(fp->pc, cpu) + off));
	return n;
}

static long pc_depth(const struct func_probe *fp)
{
	long d = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		d = max(d, local_read(&per_cpu_ptr(fp->pc, cpu)->depth));
	return d;
}

/* NESTED DEPTH, or "- -" where the kernel does not let kprof see them. */
static void nesting_show(struct seq_file *m, const struct func_probe *fp)
{
	if (KPROF_KRETPROBE_DEPTH)
		seq_printf(m, " %llu %ld\n", pc_sum(fp, offsetof(struct func_pcpu, nested)),
			   pc_depth(fp));
	else
		seq_puts(m, " - -\n");
}

static void probe_show(struct seq_file *m, struct func_sess *s, struct func_probe *fp,
		       struct kprof_hist *h)
{
	raw_spinlock_t *lock;
	struct func_cell c;
	int cpu;

	seq_printf(m, "func %s %llu %lu %lu %llu", fp->name,
		   pc_sum(fp, offsetof(struct func_pcpu, entries)),
		   (unsigned long)fp->krp.nmissed, fp->krp.kp.nmissed,
		   pc_sum(fp, offsetof(struct func_pcpu, nmi)));
	nesting_show(m, fp);
	for_each_possible_cpu(cpu) {
		lock = &per_cpu_ptr(s->cpu, cpu)->lock;
		raw_spin_lock_irq(lock);
		c = fp->cell[cpu];
		raw_spin_unlock_irq(lock);
		if (!IS_ERR_OR_NULL(c.h)) {
			kprof_hist_copy(lock, h, c.h);
			seq_printf(m, "hist %s %d", fp->name, cpu);
			kprof_hist_print(m, h);
		}
		if (c.untracked)
			seq_printf(m, "untracked %d %s %llu\n", cpu, fp->name, c.untracked);
		if (c.backwards)
			seq_printf(m, "backwards %d %s %llu\n", cpu, fp->name, c.backwards);
	}
}

/*
 * A session's read: the layout, its state (0 idle, 1 on, 2 stopped), then
 * for each function
 *   func NAME CALLS MISSED_NO_INSTANCE MISSED_RECURSION NMI NESTED DEPTH
 *   hist NAME CPU COUNT SUM MIN MAX BUCKET:N ...	(CPUs with calls)
 *   untracked CPU NAME N / backwards CPU NAME N
 * CALLS counts the calls timed from their entry; once stopped, each is in
 * a histogram, untracked, backwards, or was in flight at the stop. NESTED
 * of them were entered inside another timed call of the function in the
 * same task, DEPTH is the most in flight at once in a task; "- -" where
 * the kernel hides a task's pending returns (before 5.11).
 */
static int func_show(struct seq_file *m, void *v)
{
	struct func_sess *s = m->private;
	struct kprof_hist *h;
	unsigned int i;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	seq_printf(m, "layout sub_bits=%u kernel_bits=%u buckets=%llu\n",
		   KPROF_HIST_SUB_BITS, KPROF_HIST_KERNEL_BITS,
		   (u64)KPROF_HIST_KERNEL_BUCKETS);
	mutex_lock(&s->lock);
	seq_printf(m, "state %u\n", s->state);
	mutex_lock(&func_mutex);
	sess_fill(s);
	for (i = 0; i < s->nr; i++)
		probe_show(m, s, s->fn[i], h);
	mutex_unlock(&func_mutex);
	mutex_unlock(&s->lock);
	kvfree(h);
	return 0;
}

static int func_open(struct inode *inode, struct file *file)
{
	struct func_sess *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int cpu, ret;

	if (!s)
		return -ENOMEM;
	s->cpu = alloc_percpu(struct func_cpu);
	if (!s->cpu) {
		kfree(s);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(s->cpu, cpu)->lock);
	mutex_init(&s->lock);
	raw_spin_lock_init(&s->stage_lock);
	ret = single_open(file, func_show, s);
	if (ret) {
		free_percpu(s->cpu);
		kfree(s);
		return ret;
	}
	mutex_lock(&func_mutex);
	list_add(&s->node, &func_sessions);
	mutex_unlock(&func_mutex);
	return 0;
}

/*
 * @s's probes unregistered together, so that the kernel waits once for the
 * handlers in flight rather than once a probe; one at a time if the array
 * cannot be had.
 */
static void sess_unregister(struct func_sess *s)
{
	struct kretprobe **rps;
	unsigned int i;

	rps = kmalloc_array(s->nr, sizeof(*rps), GFP_KERNEL);
	if (!rps) {
		for (i = 0; i < s->nr; i++)
			unregister_kretprobe(&s->fn[i]->krp);
		return;
	}
	for (i = 0; i < s->nr; i++)
		rps[i] = &s->fn[i]->krp;
	if (s->nr)
		unregister_kretprobes(rps, s->nr);
	kfree(rps);
}

/* The session's file closed: its probes go, then its memory. */
static int func_release(struct inode *inode, struct file *file)
{
	struct func_sess *s = ((struct seq_file *)file->private_data)->private;
	unsigned int i;

	if (s->state == FUNC_ON)
		sess_stop(s);
	sess_unregister(s);
	mutex_lock(&func_mutex);
	list_del(&s->node);
	for (i = 0; i < s->nr; i++)
		probe_free(s->fn[i]);
	mutex_unlock(&func_mutex);
	free_percpu(s->cpu);
	kfree(s);
	return single_release(inode, file);
}

static const struct file_operations func_fops = {
	.owner = THIS_MODULE,
	.open = func_open,
	.read = seq_read,
	.write = func_write,
	.llseek = seq_lseek,
	.release = func_release,
};

void kprof_func_init(struct dentry *root)
{
	debugfs_create_file(KPROF_FILE(FUNC), 0600, root, NULL, &func_fops);
}
