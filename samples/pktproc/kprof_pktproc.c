// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_pktproc: a simulated NIC whose receive path kprof profiles.
 *
 * Per queue: an HRTIMER_MODE_*_HARD hrtimer "receives" packets at rate_pps
 * into a bounded single-producer/single-consumer ring (overflow is a drop)
 * and raises a real IRQ on a software IRQ domain every irq_coalesce packets,
 * or once coalesce_usecs have passed since the first unsignalled packet.
 * The hard handler only acknowledges and wakes the IRQ thread
 * (irq/N-kprof_pktproc), which drains what the ring held when it started,
 * in passes of at most batch packets: a fixed pass_overhead_ns per pass,
 * then work_ns of checksumming per packet. With batch=1 every packet pays
 * the pass overhead, which is the per-packet-versus-batched cost kprof
 * shows.
 *
 * With nowake_every=N the hard handler handles every Nth IRQ itself and
 * returns IRQ_HANDLED without waking the thread (as a driver does for a
 * status-only interrupt); its packets wait for the next woken IRQ. kprof
 * must not bill such an IRQ to the next thread run.
 *
 * The IRQ is requested with IRQF_NO_THREAD on the primary handler, so on
 * PREEMPT_RT too the primary runs in hard-IRQ context and kprof's
 * irq-to-thread latency is measured from a real hard-IRQ entry.
 *
 * Control: /sys/kernel/debug/kprof_pktproc/{start,stop,rate_pps,batch,
 * irq_coalesce,work_ns,pass_overhead_ns,nowake_every,stats}.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <kprof/kprof.h>

#include "compat.h"

#define PKT_PAYLOAD	64
#define MAX_QUEUES	8
#define MIN_PERIOD_NS	5000U		/* fastest timer: 200000 pps */
#define MAX_WORK_NS	1000000U
#define MAX_NOWAKE_EVERY 1000000U

static unsigned int rate_pps = 10000;
module_param(rate_pps, uint, 0444);
MODULE_PARM_DESC(rate_pps, "packets per second, per queue (1..200000, default 10000)");

static unsigned int batch = 64;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "most packets per processing pass (1..ring_size, default 64)");

static unsigned int irq_coalesce = 1;
module_param(irq_coalesce, uint, 0444);
MODULE_PARM_DESC(irq_coalesce, "raise an IRQ every N packets, like ethtool rx-frames (1..ring_size, default 1)");

static unsigned int coalesce_usecs;
module_param(coalesce_usecs, uint, 0444);
MODULE_PARM_DESC(coalesce_usecs, "also raise an IRQ this long after the first unsignalled packet, like ethtool rx-usecs (0 = off, default 0)");

static unsigned int work_ns = 2000;
module_param(work_ns, uint, 0444);
MODULE_PARM_DESC(work_ns, "CPU work per packet in ns, a checksum over the payload (0..1000000, default 2000)");

static unsigned int pass_overhead_ns = 20000;
module_param(pass_overhead_ns, uint, 0444);
MODULE_PARM_DESC(pass_overhead_ns, "fixed CPU cost of one processing pass in ns (0..1000000, default 20000)");

static unsigned int nowake_every;
module_param(nowake_every, uint, 0444);
MODULE_PARM_DESC(nowake_every, "handle every Nth IRQ in the hard handler without waking the thread (0 = never, default 0)");

static unsigned int tunnel_every;
module_param(tunnel_every, uint, 0444);
MODULE_PARM_DESC(tunnel_every, "every Nth packet is tunnelled: its inner packet goes through pktproc_rx_one() again, inside the outer call (0 = never, default 0)");

static unsigned int ring_size = 1024;
module_param(ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size, "packets per queue ring, a power of two (2..65536, default 1024)");

static unsigned int nr_queues = 1;
module_param(nr_queues, uint, 0444);
MODULE_PARM_DESC(nr_queues, "queues, each with its own IRQ, thread, ring and timer CPU (1..8, default 1)");

/* debugfs only: packets per queue per start, then the device goes quiet. */
static unsigned int rx_budget;
#define MAX_RX_BUDGET	100000000U
#define MAX_INJECT_US	100000U

static bool autostart;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "start receiving at load (default off)");

static bool kprof_hooks = true;
module_param(kprof_hooks, bool, 0444);
MODULE_PARM_DESC(kprof_hooks, "register with kprof and call its hooks; off makes a driver nobody instrumented (default on)");

struct pkt {
	u64 seq;
	u64 rx_ns;		/* kprof_now() at receive; 0 while kprof is off */
	u8 payload[PKT_PAYLOAD];
	bool tunnelled;		/* carries an inner packet (tunnel_every) */
};

struct pktq {
	unsigned int index;
	unsigned int cpu;	/* where the timer fires */
	unsigned int irq;
	struct kprof_dev *kdev;
	struct hrtimer timer;
	struct completion flushed;
	bool running;		/* timer re-arms; false: flush once and stop */

	/* SPSC ring: the timer produces at head, the thread consumes at tail. */
	struct pkt *ring;
	unsigned int head;
	unsigned int tail;
	u64 seq;

	/* Written by the timer (hard IRQ) only. */
	unsigned int untunnelled;	/* packets since the last tunnelled one */
	unsigned int unsignalled;
	u64 first_unsignalled_ns;
	u64 rx_packets;
	u64 dropped;
	unsigned int rx_run;	/* packets received since the last start */
	/* Written by the hard handler only (on the timer's CPU, or after it stopped). */
	u64 irqs;
	u64 wakes;
	bool unwoken;		/* packets signalled by an IRQ that did not wake */
	/* Written by the IRQ thread only. */
	unsigned int thread_cpu;	/* where it ran last */
	u64 processed;
	u64 thread_runs;
	u64 batches;
	u64 decapsulated;	/* tunnelled packets, each an inner rx_one call */
	u32 csum;
};

static struct {
	struct mutex lock;	/* start/stop and parameter writes */
	bool running;
	struct irq_domain *domain;
	struct pktq *q;
	struct dentry *dir;
	/* The last injected delay (inject_delay_us), under lock. */
	unsigned int inject_cpu;
	u64 inject_ns;
} pp;

static const char * const span_names[] = { "packet", NULL };
enum { SPAN_PACKET };

static u32 checksum(const u8 *p, size_t n, u32 sum)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum = (sum << 5) + sum + p[i];
	return sum;
}

/* Burn about @ns of CPU doing real work on @pkt. */
static u32 burn(const struct pkt *pkt, unsigned int ns, u32 sum)
{
	u64 end = ktime_get_ns() + ns;

	do {
		sum = checksum(pkt->payload, PKT_PAYLOAD, sum);
	} while (ktime_get_ns() < end);
	return sum;
}

static void raise_irq(struct pktq *q)
{
	q->unsignalled = 0;
	generic_handle_irq(q->irq);
}

/* Whether the packet @q receives now is tunnelled: every tunnel_every-th. */
static bool tunnelled(struct pktq *q)
{
	unsigned int every = READ_ONCE(tunnel_every);

	if (!every || ++q->untunnelled < every)
		return false;
	q->untunnelled = 0;
	return true;
}

static enum hrtimer_restart rx_timer(struct hrtimer *t)
{
	struct pktq *q = container_of(t, struct pktq, timer);
	unsigned int head = q->head, coalesce = READ_ONCE(irq_coalesce);
	unsigned int usecs = READ_ONCE(coalesce_usecs), budget;
	u64 now = ktime_get_ns();
	struct pkt *pkt;

	if (!READ_ONCE(q->running)) {
		/* Stopping: signal what is left, then stay quiet. */
		if (q->unsignalled || q->unwoken)
			raise_irq(q);
		complete(&q->flushed);
		return HRTIMER_NORESTART;
	}

	WRITE_ONCE(q->rx_packets, q->rx_packets + 1);
	/* Pairs with the thread's release of tail: its slots are free. */
	if (head - smp_load_acquire(&q->tail) >= ring_size) {
		WRITE_ONCE(q->dropped, q->dropped + 1);
	} else {
		pkt = &q->ring[head & (ring_size - 1)];
		pkt->seq = q->seq++;
		pkt->rx_ns = kprof_now();
		memset(pkt->payload, (u8)pkt->seq, sizeof(pkt->payload));
		pkt->tunnelled = tunnelled(q);
		/* Publish the packet's contents before the new head. */
		smp_store_release(&q->head, head + 1);
		if (!q->unsignalled++)
			q->first_unsignalled_ns = now;
	}
	if (q->unsignalled &&
	    (q->unsignalled >= coalesce ||
	     (usecs && now - q->first_unsignalled_ns >= usecs * NSEC_PER_USEC)))
		raise_irq(q);

	/*
	 * A spent budget ends the traffic without anyone's help: a test can
	 * overload the thread for a bounded time even where the overload
	 * starves the task that would stop it (PREEMPT_RT). stop() flushes.
	 */
	budget = READ_ONCE(rx_budget);
	if (budget && ++q->rx_run >= budget) {
		if (q->unsignalled)
			raise_irq(q);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_SEC / READ_ONCE(rate_pps)));
	return HRTIMER_RESTART;
}

/* The primary handler's return, through kprof when the queue has a device. */
static irqreturn_t hard_return(struct pktq *q, irqreturn_t ret)
{
	return q->kdev ? kprof_irq_exit(q->kdev, ret) : ret;
}

static irqreturn_t pktproc_hard(int irq, void *data)
{
	struct pktq *q = data;
	unsigned int every = READ_ONCE(nowake_every);
	u64 n = q->irqs + 1;

	if (q->kdev)
		kprof_irq_enter(q->kdev);
	WRITE_ONCE(q->irqs, n);
	/* The stop's last IRQ always wakes: it flushes the ring. */
	if (every && !do_div(n, every) && READ_ONCE(q->running)) {
		q->unwoken = true;
		return hard_return(q, IRQ_HANDLED);
	}
	q->unwoken = false;
	WRITE_ONCE(q->wakes, q->wakes + 1);
	return hard_return(q, IRQ_WAKE_THREAD);
}

/*
 * One packet's work. Not inlined, nor is pktproc_poll(): they are the
 * per-packet and per-pass functions a profiler finds in the driver
 * (kprofctl func), whose calls the counters count: processed and
 * decapsulated (a tunnelled packet's inner call, nested in its outer one)
 * for pktproc_rx_one(), batches for pktproc_poll().
 */
static noinline void pktproc_rx_one(struct pktq *q, const struct pkt *pkt, unsigned int wns,
				    bool inner)
{
	q->csum = burn(pkt, wns, q->csum);
	/* A tunnel's receive hands the decapsulated packet back to receive. */
	if (pkt->tunnelled && !inner) {
		WRITE_ONCE(q->decapsulated, q->decapsulated + 1);
		pktproc_rx_one(q, pkt, wns, true);
	}
	if (q->kdev && !inner)
		kprof_span_end_at(q->kdev, SPAN_PACKET, pkt->rx_ns);
}

/* One pass over the @n packets from @tail: its fixed cost, then each packet. */
static noinline void pktproc_poll(struct pktq *q, unsigned int tail, unsigned int n)
{
	unsigned int wns = READ_ONCE(work_ns), i;
	u64 overhead_end;

	if (q->kdev)
		kprof_batch_begin(q->kdev);
	/* The fixed cost of a pass: descriptor refill, doorbells... */
	overhead_end = ktime_get_ns() + READ_ONCE(pass_overhead_ns);
	while (ktime_get_ns() < overhead_end)
		cpu_relax();
	for (i = 0; i < n; i++)
		pktproc_rx_one(q, &q->ring[(tail + i) & (ring_size - 1)], wns, false);
	/* Done reading the slots before handing them back. */
	smp_store_release(&q->tail, tail + n);
	WRITE_ONCE(q->processed, q->processed + n);
	WRITE_ONCE(q->batches, q->batches + 1);
	if (q->kdev)
		kprof_batch_end(q->kdev, n);
}

static irqreturn_t pktproc_thread(int irq, void *data)
{
	struct pktq *q = data;
	unsigned int tail = q->tail, head, n;

	if (q->kdev)
		kprof_thread_begin(q->kdev);
	WRITE_ONCE(q->thread_runs, q->thread_runs + 1);
	WRITE_ONCE(q->thread_cpu, raw_smp_processor_id());

	/*
	 * Serve what the device had received when the thread started, not
	 * what keeps arriving: later packets come with their own IRQ, so a
	 * run is bounded even when the device outpaces the thread.
	 * Pairs with the timer's release of head: packets are written.
	 */
	head = smp_load_acquire(&q->head);
	while (tail != head) {
		n = min(head - tail, READ_ONCE(batch));
		pktproc_poll(q, tail, n);
		tail += n;
		cond_resched();
	}
	return IRQ_HANDLED;
}

static void start_timer_on_cpu(void *data)
{
	struct pktq *q = data;

	hrtimer_start(&q->timer, ns_to_ktime(NSEC_PER_SEC / READ_ONCE(rate_pps)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void pktproc_start(void)
{
	unsigned int i;

	lockdep_assert_held(&pp.lock);
	if (pp.running)
		return;
	for (i = 0; i < nr_queues; i++) {
		struct pktq *q = &pp.q[i];

		WRITE_ONCE(q->running, true);
		q->rx_run = 0;
		reinit_completion(&q->flushed);
		if (cpu_online(q->cpu))
			smp_call_function_single(q->cpu, start_timer_on_cpu, q, 1);
		else
			start_timer_on_cpu(q);
	}
	WRITE_ONCE(pp.running, true);
}

/* Stop receiving and wait until every received packet is processed. */
static void pktproc_stop(void)
{
	unsigned int i;

	lockdep_assert_held(&pp.lock);
	if (!pp.running)
		return;
	for (i = 0; i < nr_queues; i++) {
		struct pktq *q = &pp.q[i];

		hrtimer_cancel(&q->timer);
		WRITE_ONCE(q->running, false);
		/* One last expiry raises the IRQ for unsignalled packets. */
		hrtimer_start(&q->timer, 0, HRTIMER_MODE_REL_HARD);
		wait_for_completion(&q->flushed);
		hrtimer_cancel(&q->timer);
		/* Waits for the hard handler and the thread's last run. */
		synchronize_irq(q->irq);
	}
	WRITE_ONCE(pp.running, false);
}

static int stats_show(struct seq_file *m, void *v)
{
	u64 rx = 0, done = 0, drop = 0, irqs = 0, wakes = 0, runs = 0, batches = 0, decap = 0;
	unsigned int i;

	for (i = 0; i < nr_queues; i++) {
		const struct pktq *q = &pp.q[i];

		rx += READ_ONCE(q->rx_packets);
		done += READ_ONCE(q->processed);
		drop += READ_ONCE(q->dropped);
		irqs += READ_ONCE(q->irqs);
		wakes += READ_ONCE(q->wakes);
		runs += READ_ONCE(q->thread_runs);
		batches += READ_ONCE(q->batches);
		decap += READ_ONCE(q->decapsulated);
	}
	seq_printf(m, "running: %d\nqueues: %u\n", READ_ONCE(pp.running), nr_queues);
	seq_printf(m, "rx_packets: %llu\nprocessed: %llu\ndropped: %llu\n", rx, done, drop);
	seq_printf(m, "irqs: %llu\nwakes: %llu\nthread_runs: %llu\nbatches: %llu\n",
		   irqs, wakes, runs, batches);
	seq_printf(m, "decapsulated: %llu\n", decap);
	for (i = 0; i < nr_queues; i++)
		seq_printf(m, "q%u: irq=%u timer_cpu=%u rx_packets=%llu processed=%llu dropped=%llu\n",
			   i, pp.q[i].irq, pp.q[i].cpu, READ_ONCE(pp.q[i].rx_packets),
			   READ_ONCE(pp.q[i].processed), READ_ONCE(pp.q[i].dropped));
	mutex_lock(&pp.lock);
	seq_printf(m, "injected: cpu=%u ns=%llu\n", pp.inject_cpu, pp.inject_ns);
	mutex_unlock(&pp.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* start and stop: write 1 to either. */
static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	bool start = (uintptr_t)file->private_data;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	mutex_lock(&pp.lock);
	if (start)
		pktproc_start();
	else
		pktproc_stop();
	mutex_unlock(&pp.lock);
	return count;
}

/* Reading either file tells whether the device is receiving. */
static ssize_t control_read(struct file *file, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	char buf[3];
	int len = scnprintf(buf, sizeof(buf), "%d\n", READ_ONCE(pp.running));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = control_read,
	.write = control_write,
	.llseek = noop_llseek,
};

/*
 * inject_delay_us: a known culprit for IRQ-latency analysis. Writing N
 * busy-loops for N us with preemption disabled, in a kworker on the CPU
 * where queue 0's IRQ thread ran last, so that the thread, woken there,
 * waits. The write returns when the loop is over; stats shows its CPU and
 * its measured length.
 */
static long inject_fn(void *arg)
{
	u64 ns = *(u64 *)arg, t0, t1;

	preempt_disable();
	t0 = ktime_get_ns();
	do {
		cpu_relax();
		t1 = ktime_get_ns();
	} while (t1 - t0 < ns);
	preempt_enable();
	return (long)min_t(u64, t1 - t0, LONG_MAX);
}

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int us, cpu;
	u64 ns;
	long took;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &us);
	if (ret)
		return ret;
	if (!us || us > MAX_INJECT_US)
		return -EINVAL;
	ns = (u64)us * NSEC_PER_USEC;
	cpu = READ_ONCE(pp.q[0].thread_cpu);
	mutex_lock(&pp.lock);
	took = work_on_cpu(cpu, inject_fn, &ns);
	pp.inject_cpu = cpu;
	pp.inject_ns = took;
	mutex_unlock(&pp.lock);
	return count;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
	.llseek = noop_llseek,
};

/* Runtime parameters: read the value, write a new one (range-checked). */
struct knob {
	const char *name;
	unsigned int *val;
	unsigned int min;
	unsigned int max;	/* 0: up to ring_size */
};

static struct knob knobs[] = {
	{ "rate_pps", &rate_pps, 1, NSEC_PER_SEC / MIN_PERIOD_NS },
	{ "batch", &batch, 1, 0 },
	{ "irq_coalesce", &irq_coalesce, 1, 0 },
	{ "work_ns", &work_ns, 0, MAX_WORK_NS },
	{ "pass_overhead_ns", &pass_overhead_ns, 0, MAX_WORK_NS },
	{ "nowake_every", &nowake_every, 0, MAX_NOWAKE_EVERY },
	{ "tunnel_every", &tunnel_every, 0, MAX_NOWAKE_EVERY },
	{ "rx_budget", &rx_budget, 0, MAX_RX_BUDGET },
};

static bool knob_ok(const struct knob *k, unsigned int v)
{
	return v >= k->min && v <= (k->max ? k->max : ring_size);
}

static ssize_t knob_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	const struct knob *k = file->private_data;
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(*k->val));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t knob_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	const struct knob *k = file->private_data;
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &v);
	if (ret)
		return ret;
	if (!knob_ok(k, v))
		return -EINVAL;
	mutex_lock(&pp.lock);
	WRITE_ONCE(*k->val, v);
	mutex_unlock(&pp.lock);
	return count;
}

static const struct file_operations knob_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = knob_read,
	.write = knob_write,
	.llseek = default_llseek,
};

/*
 * The IRQ chip: nothing to mask or acknowledge (the "device" is a timer),
 * like the kernel's dummy_irq_chip, but with an affinity, so that
 * /proc/irq/N/smp_affinity works and the IRQ thread follows it, as on a
 * NIC whose queue IRQs are steered to CPUs.
 */
static void pktproc_chip_noop(struct irq_data *d)
{
}

static unsigned int pktproc_chip_startup(struct irq_data *d)
{
	return 0;
}

static int pktproc_chip_set_affinity(struct irq_data *d, const struct cpumask *mask,
				     bool force)
{
	irq_data_update_effective_affinity(d, mask);
	return IRQ_SET_MASK_OK;
}

static struct irq_chip pktproc_chip = {
	.name = "pktproc",
	.irq_startup = pktproc_chip_startup,
	.irq_shutdown = pktproc_chip_noop,
	.irq_enable = pktproc_chip_noop,
	.irq_disable = pktproc_chip_noop,
	.irq_ack = pktproc_chip_noop,
	.irq_mask = pktproc_chip_noop,
	.irq_unmask = pktproc_chip_noop,
	.irq_set_affinity = pktproc_chip_set_affinity,
	.flags = IRQCHIP_SKIP_SET_WAKE,
};

static int pktproc_map(struct irq_domain *d, unsigned int virq, irq_hw_number_t hw)
{
	irq_set_chip_and_handler(virq, &pktproc_chip, handle_simple_irq);
	kprof_irq_move_in_process_context(virq);
	return 0;
}

static const struct irq_domain_ops pktproc_domain_ops = {
	.map = pktproc_map,
	.xlate = irq_domain_xlate_onecell,
};

static int params_ok(void)
{
	unsigned int i;

	if (ring_size < 2 || ring_size > 65536 || !is_power_of_2(ring_size)) {
		pr_err("ring_size=%u: want a power of two in 2..65536\n", ring_size);
		return -EINVAL;
	}
	if (!nr_queues || nr_queues > MAX_QUEUES) {
		pr_err("nr_queues=%u: want 1..%u\n", nr_queues, MAX_QUEUES);
		return -EINVAL;
	}
	if (coalesce_usecs > 1000000) {
		pr_err("coalesce_usecs=%u: want 0..1000000\n", coalesce_usecs);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (!knob_ok(&knobs[i], *knobs[i].val)) {
			pr_err("%s=%u: want %u..%u\n", knobs[i].name, *knobs[i].val,
			       knobs[i].min, knobs[i].max ? knobs[i].max : ring_size);
			return -EINVAL;
		}
	}
	return 0;
}

static void queues_teardown(unsigned int n)
{
	while (n--) {
		struct pktq *q = &pp.q[n];

		free_irq(q->irq, q);
		kprof_dev_unregister(q->kdev);
		irq_dispose_mapping(q->irq);
		kvfree(q->ring);
	}
}

static int queue_setup(struct pktq *q, unsigned int i)
{
	struct kprof_dev_info info = { .span_names = span_names };
	char name[KPROF_NAME_MAX + 1];
	int ret;

	q->index = i;
	q->cpu = cpumask_local_spread(i, NUMA_NO_NODE);
	q->thread_cpu = q->cpu;
	init_completion(&q->flushed);
	kprof_hrtimer_setup(&q->timer, rx_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);

	q->ring = kvcalloc(ring_size, sizeof(*q->ring), GFP_KERNEL);
	if (!q->ring)
		return -ENOMEM;
	q->irq = irq_create_mapping(pp.domain, i);
	if (!q->irq) {
		ret = -ENXIO;
		goto err_ring;
	}
	snprintf(name, sizeof(name), "pktproc-q%u", i);
	info.irq = q->irq;
	q->kdev = NULL;
	if (kprof_hooks) {
		q->kdev = kprof_dev_register(name, &info);
		if (IS_ERR(q->kdev)) {
			ret = PTR_ERR(q->kdev);
			goto err_map;
		}
	}
	ret = request_threaded_irq(q->irq, pktproc_hard, pktproc_thread,
				   IRQF_NO_THREAD, KBUILD_MODNAME, q);
	if (ret)
		goto err_kdev;
	return 0;

err_kdev:
	kprof_dev_unregister(q->kdev);
err_map:
	irq_dispose_mapping(q->irq);
err_ring:
	kvfree(q->ring);
	return ret;
}

static int __init pktproc_init(void)
{
	unsigned int i;
	int ret;

	ret = params_ok();
	if (ret)
		return ret;
	mutex_init(&pp.lock);
	pp.q = kcalloc(nr_queues, sizeof(*pp.q), GFP_KERNEL);
	if (!pp.q)
		return -ENOMEM;
	pp.domain = irq_domain_create_linear(NULL, nr_queues, &pktproc_domain_ops, NULL);
	if (!pp.domain) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < nr_queues; i++) {
		ret = queue_setup(&pp.q[i], i);
		if (ret)
			goto err_queues;
	}

	pp.dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("start", 0600, pp.dir, (void *)1, &control_fops);
	debugfs_create_file("stop", 0600, pp.dir, (void *)0, &control_fops);
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		debugfs_create_file(knobs[i].name, 0600, pp.dir, &knobs[i], &knob_fops);
	debugfs_create_file("stats", 0400, pp.dir, NULL, &stats_fops);
	debugfs_create_file("inject_delay_us", 0200, pp.dir, NULL, &inject_fops);

	if (autostart) {
		mutex_lock(&pp.lock);
		pktproc_start();
		mutex_unlock(&pp.lock);
	}
	pr_info("%u queue(s), %u pps each, batch %u, irq_coalesce %u\n",
		nr_queues, rate_pps, batch, irq_coalesce);
	return 0;

err_queues:
	queues_teardown(i);
	irq_domain_remove(pp.domain);
err_free:
	kfree(pp.q);
	return ret;
}

static void __exit pktproc_exit(void)
{
	/* No control writes from here on, then stop the sources. */
	debugfs_remove_recursive(pp.dir);
	mutex_lock(&pp.lock);
	pktproc_stop();
	mutex_unlock(&pp.lock);
	queues_teardown(nr_queues);
	irq_domain_remove(pp.domain);
	kfree(pp.q);
}

module_init(pktproc_init);
module_exit(pktproc_exit);

MODULE_AUTHOR("kprof developers");
MODULE_DESCRIPTION("kprof sample: a simulated NIC with batched packet processing on a threaded IRQ");
MODULE_LICENSE("GPL");
