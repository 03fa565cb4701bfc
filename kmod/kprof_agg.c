// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation: the memory budget and the cells' filling shared
 * with the IRQ tracker (kprof/memory), the devices' histograms, the
 * aggregation switch (kprof/aggregate) shared with the IRQ tracker's
 * (kprof/girq_aggregate, kprof_girq.c), and the histograms' copy and print.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "kprof_internal.h"

/* The budget */

static unsigned long agg_budget_kib;
module_param(agg_budget_kib, ulong, 0444);
MODULE_PARM_DESC(agg_budget_kib,
		 "memory the in-kernel aggregations may hold, in KiB (default 0: an eighth of RAM, at most 256 MiB)");

#define AGG_BUDGET_MAX_DEFAULT	(256UL << 20)

static unsigned long agg_budget;	/* bytes, set at load */
static atomic_long_t agg_used = ATOMIC_LONG_INIT(0);
static atomic_long_t agg_refused = ATOMIC_LONG_INIT(0);
static atomic_long_t agg_hists = ATOMIC_LONG_INIT(0);	/* allocated */

int kprof_agg_check_params(void)
{
	unsigned long ram = totalram_pages() / 8 * PAGE_SIZE;

	if (agg_budget_kib > ULONG_MAX >> 10) {
		pr_err("agg_budget_kib=%lu: more than the address space\n", agg_budget_kib);
		return -EINVAL;
	}
	agg_budget = agg_budget_kib ? agg_budget_kib << 10 : min(ram, AGG_BUDGET_MAX_DEFAULT);
	return 0;
}

/* Take @size bytes of the budget: 0, or -ENOMEM beyond it. */
static int agg_charge(size_t size)
{
	if (atomic_long_add_return(size, &agg_used) <= agg_budget)
		return 0;
	atomic_long_sub(size, &agg_used);
	return -ENOMEM;
}

/* agg_charge(), a refusal counted in kprof/memory. */
int kprof_agg_charge(size_t size)
{
	int ret = agg_charge(size);

	if (ret)
		atomic_long_inc(&agg_refused);
	return ret;
}

void kprof_agg_uncharge(size_t size)
{
	atomic_long_sub(size, &agg_used);
}

/*
 * A zeroed histogram within the budget, or ERR_PTR(-ENOMEM), then counted
 * as refused if it was for a cell (@cell).
 */
static struct kprof_hist *agg_hist_alloc(bool cell)
{
	struct kprof_hist *h;

	if (agg_charge(sizeof(*h)))
		goto refused;
	h = kvzalloc(sizeof(*h), GFP_KERNEL | __GFP_NOWARN);
	if (h) {
		atomic_long_inc(&agg_hists);
		return h;
	}
	kprof_agg_uncharge(sizeof(*h));
refused:
	if (cell)
		atomic_long_inc(&agg_refused);
	return ERR_PTR(-ENOMEM);
}

/* A cell's histogram freed: nothing for NULL or a refusal. */
void kprof_agg_hist_free(struct kprof_hist *h)
{
	if (IS_ERR_OR_NULL(h))
		return;
	kvfree(h);
	atomic_long_dec(&agg_hists);
	kprof_agg_uncharge(sizeof(*h));
}

/*
 * Spare histograms: a first sample takes one (kprof_cell_first()), and the
 * work allocates another, so that a new cell's samples wait in its stage
 * only when more cells start at once than there are spares. Kept while an
 * aggregation records (kprof_agg_spares()); counted in the budget.
 */
#define AGG_SPARES	8
#define AGG_SPARES_MAX	64	/* with a start's reserve (kprof_agg_reserve()) */

static void agg_kick(void);

static DEFINE_RAW_SPINLOCK(spare_lock);
static struct kprof_hist *spare[AGG_SPARES_MAX];	/* under spare_lock */
static unsigned int nr_spare;
static DEFINE_MUTEX(spare_mutex);	/* the pool's filling and freeing */
static unsigned int spare_users;

static struct kprof_hist *spare_take(void)
{
	struct kprof_hist *h = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&spare_lock, flags);
	if (nr_spare)
		h = spare[--nr_spare];
	raw_spin_unlock_irqrestore(&spare_lock, flags);
	return h;
}

/* Give @h to the pool; false if it is full. */
static bool spare_give(struct kprof_hist *h)
{
	bool ok = false;

	raw_spin_lock_irq(&spare_lock);
	if (nr_spare < AGG_SPARES_MAX) {
		spare[nr_spare++] = h;
		ok = true;
	}
	raw_spin_unlock_irq(&spare_lock);
	return ok;
}

/* Up to @n spares while anyone records; spare_mutex held. */
static void spares_refill(unsigned int n)
{
	struct kprof_hist *h;

	while (spare_users && READ_ONCE(nr_spare) < n) {
		h = agg_hist_alloc(false);
		if (IS_ERR(h))
			return;
		if (!spare_give(h)) {
			kprof_agg_hist_free(h);
			return;
		}
	}
}

/*
 * @ctl's aggregation starts (@on: after its own allocations, before its
 * first sample) or stops recording; a repeat changes nothing.
 */
void kprof_agg_spares(struct kprof_agg_ctl *ctl, bool on)
{
	struct kprof_hist *h;

	if (ctl->spares == on)
		return;
	ctl->spares = on;
	mutex_lock(&spare_mutex);
	if (on)
		spare_users++;
	else
		spare_users--;
	spares_refill(AGG_SPARES);
	while (!spare_users && (h = spare_take()))
		kprof_agg_hist_free(h);
	mutex_unlock(&spare_mutex);
}

/*
 * A start that expects many cells at once (every CPU's timer and IPIs)
 * fills the pool up to @n spares (at most AGG_SPARES_MAX) once; the work
 * then keeps it at AGG_SPARES. Call after kprof_agg_spares(ctl, true).
 */
void kprof_agg_reserve(unsigned int n)
{
	mutex_lock(&spare_mutex);
	spares_refill(min_t(unsigned int, n, AGG_SPARES_MAX));
	mutex_unlock(&spare_mutex);
}

/*
 * The first sample of cell @id (*@cell NULL), or one of a refused cell:
 * the cell takes a spare, or the sample waits in @st. The cell's lock
 * held; @st_lock is @st's, or NULL if it is the cell's.
 */
bool kprof_cell_first(struct kprof_hist **cell, struct kprof_stage *st,
		      raw_spinlock_t *st_lock, u32 id, u64 ns)
{
	struct kprof_hist *h;
	bool kept = true;

	if (*cell)
		return false;
	h = spare_take();
	if (h) {
		*cell = h;
		kprof_hist_add(h, ns);
		goto out;
	}
	if (st_lock)
		raw_spin_lock(st_lock);
	if (st->n < KPROF_STAGE_LEN) {
		st->e[st->n].cell = id;
		st->e[st->n].ns = ns;
		st->n++;
	} else {
		kept = false;
	}
	if (st_lock)
		raw_spin_unlock(st_lock);
out:
	agg_kick();
	return kept;
}

/* Take a sample off @c's stage; false if none is left. */
static bool stage_pop(const struct kprof_cells *c, u32 *id, u64 *ns)
{
	struct kprof_stage *st = c->stage;
	bool got;

	raw_spin_lock_irq(c->stage_lock);
	got = st->n;
	if (got) {
		st->n--;
		*id = st->e[st->n].cell;
		*ns = st->e[st->n].ns;
	}
	raw_spin_unlock_irq(c->stage_lock);
	return got;
}

/*
 * Give every cell with staged samples its histogram (or its refusal) and
 * move the samples in, each under its cell's lock, which is never taken
 * with the stage's. A cell is set here, or by its first sample when a
 * spare is left; the callers serialise this per set of cells and against
 * the cells' freeing.
 */
void kprof_agg_fill(const struct kprof_cells *c)
{
	struct kprof_hist *h, **cell;
	raw_spinlock_t *lock;
	u64 ns;
	u32 id;

	while (stage_pop(c, &id, &ns)) {
		lock = c->lock(c->ctx, id);
		h = NULL;
		raw_spin_lock_irq(lock);
		cell = c->cell(c->ctx, id);
		if (!*cell) {
			raw_spin_unlock_irq(lock);
			h = spare_take() ?: agg_hist_alloc(true);
			raw_spin_lock_irq(lock);
			if (!*cell)
				swap(*cell, h);	/* else a spare came meanwhile */
		}
		if (IS_ERR(*cell))
			c->untracked(c->ctx, id);
		else
			kprof_hist_add(*cell, ns);
		raw_spin_unlock_irq(lock);
		kprof_agg_hist_free(h);
	}
}

/*
 * The probes and hooks stage a sample from any context (a scheduler
 * tracepoint included), where only an irq_work may be queued; it queues
 * the work that fills every set of cells.
 */
static void agg_work_fn(struct work_struct *work)
{
	struct kprof_dev *dev;

	mutex_lock(&kprof_dev_mutex);
	list_for_each_entry(dev, &kprof_devices, node)
		kprof_dev_agg_fill(dev);
	mutex_unlock(&kprof_dev_mutex);
	kprof_girq_agg_fill();
	kprof_func_agg_fill();
	mutex_lock(&spare_mutex);
	spares_refill(AGG_SPARES);
	mutex_unlock(&spare_mutex);
}

static DECLARE_WORK(agg_work, agg_work_fn);

/*
 * Unbound: the CPU that staged the sample may stay busy in the kernel for
 * long (patching text for a tracepoint's static key, with an IPI to every
 * CPU per site), and its stage fills meanwhile; any idle CPU can fill it.
 */
static void agg_irq_work_fn(struct irq_work *w)
{
	queue_work(system_unbound_wq, &agg_work);
}

static DEFINE_IRQ_WORK(agg_irq_work, agg_irq_work_fn);

static void agg_kick(void)
{
	irq_work_queue(&agg_irq_work);
}

/* Module exit, when nothing can stage a sample any more. */
void kprof_agg_sync(void)
{
	irq_work_sync(&agg_irq_work);
	cancel_work_sync(&agg_work);
}

/* kprof/memory */
static int memory_show(struct seq_file *m, void *v)
{
	seq_printf(m, "budget_bytes: %lu\n", agg_budget);
	seq_printf(m, "used_bytes: %ld\n", atomic_long_read(&agg_used));
	seq_printf(m, "histograms: %ld\n", atomic_long_read(&agg_hists));
	seq_printf(m, "spare_histograms: %u\n", READ_ONCE(nr_spare));
	seq_printf(m, "hist_bytes: %zu\n", sizeof(struct kprof_hist));
	seq_printf(m, "refused: %ld\n", atomic_long_read(&agg_refused));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(memory);

/*
 * kprof/aggregate (struct kprof_agg_ctl): every device's histograms. While
 * on it holds a reference on the key. The state is written under
 * kprof_dev_agg.lock and kprof_dev_mutex, and read under either;
 * kprof_dev_agg.lock is taken first, and the key's mutex never inside
 * kprof_dev_mutex.
 */
static int agg_set(unsigned int val);

struct kprof_agg_ctl kprof_dev_agg = {
	.lock = __MUTEX_INITIALIZER(kprof_dev_agg.lock),
	.set = agg_set,
};

static size_t dev_agg_size(const struct kprof_dev *dev)
{
	return struct_size((struct kprof_dev_agg *)NULL, cell,
			   array_size(nr_cpu_ids, kprof_nr_kinds(dev)));
}

/*
 * The cells of @dev that its first samples may start at once, a (CPU,
 * kind) each: a start reserves a spare for each, so that its burst of
 * first samples does not wait in the stage. The work that fills the stage
 * can be kept off every CPU for longer than the stage lasts (on RT, by IRQ
 * threads at 5,000 IRQs/s), and a sample that finds it full is lost.
 */
static unsigned int dev_cells_online(const struct kprof_dev *dev)
{
	return num_online_cpus() * kprof_nr_kinds(dev);
}

/* @dev's cells, recording, none with a histogram yet; within the budget. */
static struct kprof_dev_agg *agg_alloc(const struct kprof_dev *dev)
{
	struct kprof_dev_agg *a;

	if (kprof_agg_charge(dev_agg_size(dev)))
		return NULL;
	a = kvzalloc(dev_agg_size(dev), GFP_KERNEL | __GFP_NOWARN);
	if (!a) {
		kprof_agg_uncharge(dev_agg_size(dev));
		return NULL;
	}
	raw_spin_lock_init(&a->stage_lock);
	a->on = true;
	return a;
}

void kprof_dev_agg_free(const struct kprof_dev *dev, struct kprof_dev_agg *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < nr_cpu_ids * kprof_nr_kinds(dev); i++)
		kprof_agg_hist_free(a->cell[i].h);
	kvfree(a);
	kprof_agg_uncharge(dev_agg_size(dev));
}

/* @dev's cells; kprof_dev_mutex held. */
static struct kprof_dev_agg *dev_agg(struct kprof_dev *dev)
{
	return rcu_dereference_protected(dev->agg, lockdep_is_held(&kprof_dev_mutex));
}

static struct kprof_hist **dev_cell(void *ctx, u32 id)
{
	return &dev_agg(ctx)->cell[id].h;
}

static raw_spinlock_t *dev_cell_lock(void *ctx, u32 id)
{
	struct kprof_dev *dev = ctx;

	return &per_cpu_ptr(dev->pcpu, id / kprof_nr_kinds(dev))->lock;
}

static void dev_untracked(void *ctx, u32 id)
{
	dev_agg(ctx)->cell[id].untracked++;
}

/* @dev's staged samples into their histograms; kprof_dev_mutex held. */
void kprof_dev_agg_fill(struct kprof_dev *dev)
{
	struct kprof_dev_agg *a = dev_agg(dev);
	struct kprof_cells c = {
		.lock = dev_cell_lock, .cell = dev_cell, .untracked = dev_untracked, .ctx = dev,
	};

	if (!a)
		return;
	c.stage_lock = &a->stage_lock;
	c.stage = &a->stage;
	kprof_agg_fill(&c);
}

/*
 * A device registered while aggregation is on: its samples count from
 * now. kprof_dev_mutex held; no hook runs on @dev yet.
 */
int kprof_dev_agg_attach(struct kprof_dev *dev)
{
	struct kprof_dev_agg *a;

	if (kprof_dev_agg.state != KPROF_AGG_ON)
		return 0;
	a = agg_alloc(dev);
	if (!a)
		return -ENOMEM;
	kprof_agg_reserve(AGG_SPARES + dev_cells_online(dev));
	rcu_assign_pointer(dev->agg, a);
	return 0;
}

/* Install @a (or NULL) as @dev's cells; the old ones wait for agg_free_retired(). */
static void agg_retire(struct kprof_dev *dev, struct kprof_dev_agg *a)
{
	dev->agg_retired = dev_agg(dev);
	rcu_assign_pointer(dev->agg, a);
}

/*
 * The cells agg_retire() replaced freed, once no hook can be using them
 * (the hooks read them with interrupts off); kprof_dev_mutex held.
 */
static void agg_free_retired(void)
{
	struct kprof_dev *dev;
	bool any = false;

	list_for_each_entry(dev, &kprof_devices, node)
		any |= !!dev->agg_retired;
	if (!any)
		return;
	synchronize_rcu();
	list_for_each_entry(dev, &kprof_devices, node) {
		kprof_dev_agg_free(dev, dev->agg_retired);
		dev->agg_retired = NULL;
	}
}

/* Every device's histograms freed; kprof_dev_mutex held. */
static void agg_free_all(void)
{
	struct kprof_dev *dev;

	list_for_each_entry(dev, &kprof_devices, node)
		agg_retire(dev, NULL);
	agg_free_retired();
}

/* Spares for every device's first samples (dev_cells_online()); kprof_dev_mutex held. */
static void agg_reserve_all(void)
{
	struct kprof_dev *dev;
	unsigned int cells = 0;

	list_for_each_entry(dev, &kprof_devices, node)
		cells += dev_cells_online(dev);
	kprof_agg_reserve(cells);
}

/*
 * Fresh cells for every device, recording; kprof_dev_mutex held. If one
 * allocation fails every device is left without any.
 */
static int agg_start_all(void)
{
	struct kprof_dev *dev;
	struct kprof_dev_agg *a;

	list_for_each_entry(dev, &kprof_devices, node) {
		a = agg_alloc(dev);
		if (!a) {
			agg_free_retired();
			agg_free_all();
			return -ENOMEM;
		}
		agg_retire(dev, a);
	}
	agg_free_retired();
	return 0;
}

/*
 * Recording stopped, the histograms kept; kprof_dev_mutex held. Returns
 * once no hook is adding a sample.
 */
static void agg_freeze_all(void)
{
	struct kprof_dev *dev;
	struct kprof_dev_agg *a;

	list_for_each_entry(dev, &kprof_devices, node) {
		a = dev_agg(dev);
		if (a)
			WRITE_ONCE(a->on, false);
	}
	synchronize_rcu();
}

/* Switch to @val; kprof_dev_agg.lock held. The key is taken or dropped outside kprof_dev_mutex. */
static int agg_set(unsigned int val)
{
	bool was_on = kprof_dev_agg.state == KPROF_AGG_ON;
	int ret = 0;

	if (was_on && val != KPROF_AGG_ON)
		kprof_key_put();
	mutex_lock(&kprof_dev_mutex);
	if (val == KPROF_AGG_ON) {
		/* The spares first: samples come as soon as the cells are in. */
		kprof_agg_spares(&kprof_dev_agg, true);
		agg_reserve_all();
		ret = agg_start_all();
	} else if (val == KPROF_AGG_FROZEN) {
		agg_freeze_all();
	} else {
		agg_free_all();
	}
	kprof_agg_spares(&kprof_dev_agg, !ret && val == KPROF_AGG_ON);
	kprof_dev_agg.state = ret ? KPROF_AGG_OFF : val;
	mutex_unlock(&kprof_dev_mutex);
	if (ret && was_on)
		kprof_key_put();	/* a failed restart leaves it off */
	else if (!ret && !was_on && val == KPROF_AGG_ON)
		kprof_key_get();
	return ret;
}

static ssize_t aggregate_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct kprof_agg_ctl *ctl = file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret)
		return ret;
	if (val > KPROF_AGG_FROZEN)
		return -EINVAL;
	mutex_lock(&ctl->lock);
	if (ctl->owner && ctl->owner != file)
		ret = -EBUSY;	/* another run's */
	else if (val == KPROF_AGG_FROZEN && ctl->state == KPROF_AGG_OFF)
		ret = -EINVAL;	/* nothing to freeze */
	else
		ret = ctl->set(val);
	if (!ret)
		ctl->owner = val == KPROF_AGG_OFF ? NULL : file;
	mutex_unlock(&ctl->lock);
	return ret ? ret : count;
}

/* The owner's file closed: the aggregation stays as it left it, unowned. */
static int aggregate_release(struct inode *inode, struct file *file)
{
	struct kprof_agg_ctl *ctl = file->private_data;

	mutex_lock(&ctl->lock);
	if (ctl->owner == file)
		ctl->owner = NULL;
	mutex_unlock(&ctl->lock);
	return 0;
}

static ssize_t aggregate_read(struct file *file, char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct kprof_agg_ctl *ctl = file->private_data;
	char buf[3];
	int len;

	mutex_lock(&ctl->lock);
	len = scnprintf(buf, sizeof(buf), "%u\n", ctl->state);
	mutex_unlock(&ctl->lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations aggregate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = aggregate_read,
	.write = aggregate_write,
	.release = aggregate_release,
	.llseek = default_llseek,
};

void kprof_agg_file(struct dentry *root, const char *name, struct kprof_agg_ctl *ctl)
{
	debugfs_create_file(name, 0600, root, ctl, &aggregate_fops);
}

void kprof_agg_init(struct dentry *root)
{
	kprof_agg_file(root, KPROF_FILE(AGGREGATE), &kprof_dev_agg);
	debugfs_create_file(KPROF_FILE(MEMORY), 0400, root, NULL, &memory_fops);
}

/* Module exit: no device is left; drop aggregation's key reference. */
void kprof_dev_agg_exit(void)
{
	mutex_lock(&kprof_dev_agg.lock);
	agg_set(KPROF_AGG_OFF);
	mutex_unlock(&kprof_dev_agg.lock);
}

/*
 * Copy @src under @lock a chunk at a time: no 64-bit count tears on a
 * 32-bit CPU, and IRQs are never off for a whole histogram's copy. While
 * aggregation is on the copy is a live one: a sample may land in a bucket
 * already copied and count in the fields copied later, or the reverse.
 */
#define HIST_COPY_CHUNK	1024
void kprof_hist_copy(raw_spinlock_t *lock, struct kprof_hist *dst,
		     const struct kprof_hist *src)
{
	size_t off, n, size = sizeof(*src);
	unsigned long flags;

	for (off = 0; off < size; off += n) {
		n = min_t(size_t, size - off, HIST_COPY_CHUNK);
		raw_spin_lock_irqsave(lock, flags);
		memcpy((char *)dst + off, (const char *)src + off, n);
		raw_spin_unlock_irqrestore(lock, flags);
	}
}

/* " COUNT SUM MIN MAX BUCKET:N ...", and the line's end. */
void kprof_hist_print(struct seq_file *m, const struct kprof_hist *h)
{
	u32 b;

	seq_printf(m, " %llu %llu %llu %llu", h->count, h->sum, h->min, h->max);
	for (b = 0; b < KPROF_HIST_KERNEL_BUCKETS; b++)
		if (h->buckets[b])
			seq_printf(m, " %u:%llu", b, h->buckets[b]);
	seq_putc(m, '\n');
}
