// SPDX-License-Identifier: GPL-2.0
#include "sys/collect.hpp"

#include "cmd/commands.hpp"
#include "core/counters.hpp"
#include "core/export.hpp"
#include "sys/sys.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>
#include <thread>

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

std::string cpumask_hex(const std::vector<int> &cpus)
{
	// tracing_cpumask: comma-separated 32-bit hex words, most significant first.
	const int words = cpus.back() / 32 + 1;
	std::vector<uint32_t> w(words, 0);
	for (int c : cpus)
		w[c / 32] |= 1u << (c % 32);
	std::string out;
	char buf[16];
	for (int i = words - 1; i >= 0; i--) {
		std::snprintf(buf, sizeof(buf), i == words - 1 ? "%x" : "%08x", w[i]);
		out += buf;
		if (i)
			out += ',';
	}
	return out;
}

}  // namespace

FuncProbes::FuncProbes(const std::string &dbg) : path_(dbg + "/" + kFuncFile)
{
	fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
	if (fd_ < 0 && errno == ENOENT)
		throw std::runtime_error("this kprof.ko has no function probes (no " + path_ +
					 "): load the kprof.ko of this kprofctl's version");
	if (fd_ < 0)
		throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
}

FuncProbes::~FuncProbes()
{
	::close(fd_);
}

int FuncProbes::add(const std::string &name)
{
	const std::string cmd = "add " + name;
	return ::write(fd_, cmd.data(), cmd.size()) == ssize_t(cmd.size()) ? 0 : errno;
}

void FuncProbes::command(const std::string &cmd)
{
	if (::write(fd_, cmd.data(), cmd.size()) != ssize_t(cmd.size()))
		throw std::runtime_error("writing '" + cmd + "' to " + path_ + ": " + std::strerror(errno));
}

std::string FuncProbes::read() const
{
	std::string out;
	char buf[65536];
	for (;;) {
		const ssize_t n = ::pread(fd_, buf, sizeof(buf), off_t(out.size()));
		if (n < 0)
			throw std::runtime_error("reading " + path_ + ": " + std::strerror(errno));
		if (n == 0)
			return out;
		out.append(buf, size_t(n));
	}
}

void in_kernel_window(const Plan &plan, const char *file, const CollectOptions &opts, KernelStats &ks, Report &rep,
		      const std::function<void()> &read)
{
	if (!plan.dbg)
		throw std::runtime_error("--in-kernel reads kprof.ko's histograms from debugfs, which is not mounted "
					 "(mount -t debugfs none /sys/kernel/debug)");
	{
		Aggregation agg(*plan.dbg + "/" + file);
		Window window(opts);
		window.wait();
		window.close().into(rep);
		agg.freeze();
		read();
		if (ks.samples && ks.state != AggState::Frozen)
			throw std::runtime_error("the in-kernel aggregation was switched by someone else meanwhile");
	}
	rep.in_kernel = true;
	rep.events_read = ks.samples;
	rep.filtered = ks.filtered;
	rep.overflow = ks.overflow;
	rep.untracked = ks.untracked;
	rep.check_note = "in-kernel aggregation: no events, nothing to cross-check";
}

Aggregation::Aggregation(const std::string &file) : file_(file)
{
	const auto state = sys::read_file(file_);
	if (!state)
		throw std::runtime_error("this kprof.ko has no in-kernel aggregation (no " + file_ +
					 "): load the kprof.ko of this kprofctl's version");
	fd_ = ::open(file_.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd_ < 0)
		throw std::runtime_error("cannot open " + file_ + ": " + std::strerror(errno));
	try {
		set(AggState::On);
	} catch (...) {
		::close(fd_);
		throw;
	}
	if (std::stoi(*state) != int(AggState::Off))
		std::cerr << "kprofctl: restarting the in-kernel aggregation an earlier run left on\n";
}

Aggregation::~Aggregation()
{
	try {
		set(AggState::Off);
	} catch (const std::exception &e) {
		std::cerr << "kprofctl: " << e.what() << '\n';
	}
	::close(fd_);
}

void Aggregation::set(AggState s)
{
	const std::string v = std::to_string(int(s));
	if (::write(fd_, v.data(), v.size()) == ssize_t(v.size()))
		return;
	if (errno != EBUSY)
		throw std::runtime_error("cannot write '" + v + "' to " + file_ + ": " + std::strerror(errno));
	std::string who;
	for (const auto &h : sys::holders_of(file_))
		who += (who.empty() ? " by pid " : ", pid ") + h;
	throw std::runtime_error("the in-kernel aggregation (" + file_ + ") is in use" + who +
				 ": one run at a time owns it (latency --in-kernel, irq --in-kernel, top); "
				 "wait for that run to end, or collect without --in-kernel");
}

Plan base_plan(Source source, const CollectOptions &opts)
{
	sys::require_root();
	Plan plan;
	plan.source = source;
	plan.tdir = sys::tracing_dir();
	sys::require_module();
	const int ncpus = int(sys::trace_cpus(plan.tdir).size());
	for (int c : opts.cpus)
		if (c >= ncpus)
			throw UsageError("CPU " + std::to_string(c) + " does not exist (this machine traces " +
					 std::to_string(ncpus) + " CPUs)");
	plan.cpus = opts.cpus;
	plan.some_cpus = !opts.cpus.empty() && int(opts.cpus.size()) < ncpus;
	if (plan.cpus.empty())
		for (int c = 0; c < ncpus; c++)
			plan.cpus.push_back(c);
	plan.dbg = sys::kprof_debugfs();
	return plan;
}

// KPROFCTL_READER, if set: mmap (the default), splice or read.
ReaderWay Session::wanted_reader()
{
	const char *env = std::getenv(kReaderEnv);
	if (!env || !*env)
		return ReaderWay::Mmap;
	if (const auto way = reader_way(env))
		return *way;
	throw UsageError(std::string(kReaderEnv) + "='" + env + "': expected " +
			 reader_name(ReaderWay::Mmap) + ", " + reader_name(ReaderWay::Splice) + " or " +
			 reader_name(ReaderWay::Read));
}

Session::Session(const Plan &plan, const CollectOptions &opts, Watcher *watcher)
	: plan_(plan), tep_(tep_from_tracefs(plan.tdir, plan.context)), decoder_(tep_.get()),
	  inst_(opts.instance, Instance::Mode::Session), watcher_(watcher)
{
	if (watcher_)
		decoder_.on_other([w = watcher_](const OtherRecord &r) { w->other(r); });
	if (!inst_.recovered().empty())
		std::cerr << "kprofctl: " << inst_.recovered() << '\n';
	inst_.refuse_unread();
	inst_.set("tracing_on", "0");
	if (opts.buffer_kb)
		inst_.set("buffer_size_kb", std::to_string(opts.buffer_kb));
	if (plan.some_cpus)
		inst_.set("tracing_cpumask", cpumask_hex(plan.cpus));
	inst_.set("trace", "", false);	// start from an empty buffer
	// poll() wakes on any data: pacer_ spaces the passes. A watermark
	// (buffer_percent > 0) makes poll() and the writers call the kernel's
	// ring_buffer_nr_dirty_pages(), whose WARN_ON_ONCE(read > cnt + 1)
	// fired in a 6.1 guest with an 8 KiB buffer overwritten while this
	// reader was stopped: a kernel warning is not a tool's to cause.
	inst_.set("buffer_percent", "0");
	// Context events are set against the kprof deltas (ktime_get_ns()).
	if (!plan.context.empty())
		inst_.set(kTraceClockFile, "mono");
	const ReaderWay want = wanted_reader();
	for (int c : plan.cpus) {
		readers_.push_back(std::make_unique<CpuReader>(inst_, c, want));
		const RingMap *m = readers_.back()->map();
		taking_.push_back({m ? MapCursor{m->reader_id(), m->reader_read()} : MapCursor{}});
	}
	buffer_bytes_ = buffer_bytes();
	pacer_ = Pacer(buffer_bytes_, kPace);
	samples_.reserve(4096);
	const uint64_t all = buffer_bytes_ * readers_.size();
	queue_ = std::make_unique<PageQueue>(std::clamp<uint64_t>(all, kQueueMin, kQueueMax));
}

// The size of the smallest per-CPU buffer (per_cpu/cpuN/buffer_size_kb).
uint64_t Session::buffer_bytes() const
{
	uint64_t least = 0;
	for (const auto &r : readers_) {
		const uint64_t bytes = inst_.cpu_buffer_kb(r->cpu()) * 1024;
		if (!least || bytes < least)
			least = bytes;
	}
	return least;
}

std::optional<Aggregator::Emitted> Session::read_emitted() const
{
	if (!plan_.dbg)
		return std::nullopt;
	return plan_.source == Source::Tracker ? sys::read_girq_emitted(*plan_.dbg) : sys::read_emitted(*plan_.dbg);
}

std::optional<DeviceCounters> Session::read_counters() const
{
	if (!plan_.dbg)
		return std::nullopt;
	return plan_.source == Source::Tracker ? sys::read_girq_counters(*plan_.dbg) : sys::read_counters(*plan_.dbg);
}

// One by one: the system-wide switch would take the other source's
// events along (and attach the IRQ tracker for nothing).
void Session::switch_events(const char *on)
{
	for (const auto &n : plan_.context)
		inst_.set("events/" + n + "/enable", on);
	for (const auto &n : plan_.events)
		inst_.set("events/kprof/" + n + "/enable", on);
}

// The IRQ tracker attaches from a work item once its events are enabled;
// collecting starts when it has (kprof/girq_counters: "attached: 1").
void Session::wait_attached(Collected &c)
{
	if (plan_.source != Source::Tracker)
		return;
	if (!plan_.dbg) {
		std::this_thread::sleep_for(std::chrono::milliseconds(500));
		c.note = "no debugfs: cannot see when the IRQ tracker attached; waited 0.5 s";
		return;
	}
	for (int i = 0; i < 100 && !g_stop; i++) {
		const auto all = sys::read_girq_counters(*plan_.dbg);
		const auto &ctr = all.at(kGirqScope);
		if (ctr.count("attached") && ctr.at("attached") == 1) {
			c.note = tracker_probe_note(ctr);
			return;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
	}
	if (!g_stop)
		throw std::runtime_error("kprof.ko's IRQ tracker did not attach to the kernel's tracepoints within 5 s "
					 "(see dmesg)");
}

// Decoding thread: one page of CPU @i's buffer into the aggregator.
void Session::consume(const PageQueue::Item &it, Aggregator &agg, Collected &c)
{
	samples_.clear();
	const auto r = decoder_.decode_page(it.bytes.data(), it.bytes.size(), plan_.cpus[it.source], samples_, it.skip);
	CpuLoss &l = c.loss[it.source];
	l.add_page(r.bad_page, r.events + r.other + r.invalid, r.missed);
	c.invalid += r.invalid;
	c.other += r.other;
	c.events += r.events;
	shown_events_.store(c.events, std::memory_order_relaxed);
	if (r.missed > 0)
		shown_missed_.fetch_add(uint64_t(r.missed), std::memory_order_relaxed);
	for (const auto &s : samples_) {
		const std::string &name = decoder_.device_name(s.dev);
		agg.add(s, name, plan_.span_names);
		if (watcher_)
			watcher_->sample(s, name);
	}
}

// Decoding thread: the queue's items in order, until it is closed and
// empty. -P is per thread, and this one starts with the default policy
// (set_priority() resets it on fork): it takes -P of its own. An error
// aborts the queue, which the reading loop sees. Its name tells the two
// threads apart in top -H and /proc/PID/task.
void Session::decode_loop(const CollectOptions &opts, Aggregator &agg, Collected &c)
{
	pthread_setname_np(pthread_self(), kDecoderThread);
	try {
		if (opts.priority)
			set_priority(*opts.priority);
		while (auto it = queue_->pop()) {
			switch (it->mark) {
			case kPage:
				consume(*it, agg, c);
				queue_->recycle(std::move(it->bytes));
				break;
			case kPassDone:
				if (watcher_)
					watcher_->pass_done();
				break;
			case kWindowClose:
				agg.window_close(*c.e1);
				break;
			}
		}
	} catch (...) {
		decode_error_ = std::current_exception();
		queue_->abort();
	}
}

// The decoding thread starts with every signal blocked, so that a signal
// always interrupts the reading thread's poll(): Ctrl-C ends the window
// at once, not at the next timeout.
void Session::start_decoding(const CollectOptions &opts, Aggregator &agg, Collected &c)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	try {
		decoding_ = std::thread([this, &opts, &agg, &c] { decode_loop(opts, agg, c); });
	} catch (...) {
		pthread_sigmask(SIG_SETMASK, &old, nullptr);
		throw;
	}
	pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// Everything queued is decoded when this returns (or the decoder failed).
void Session::stop_decoding()
{
	queue_->close();
	if (decoding_.joinable())
		decoding_.join();
}

Session::~Session()
{
	stop_decoding();
}

void Session::queue_mark(Mark m)
{
	queue_->push({0, m, {}});
	queue_->publish();
}

// Reading thread: the next page of CPU @i's buffer, queued for decoding.
// In a pass, the writer's page ends the CPU's reading (writers_page()).
PageRead Session::read_page(size_t i, Drain how)
{
	if (g_stop >= 2 || queue_->aborted())
		return {};
	CpuReader &r = *readers_[i];
	if (RingMap *m = r.map())
		return take_mapped(i, *m, how);
	if (r.way() == ReaderWay::Splice && how != Drain::Flush)
		return take_spliced(i);
	auto buf = queue_->buffer(r.page_size());
	const size_t n = r.read(buf);
	copied_ += n && r.way() == ReaderWay::Splice;	// the end's rest
	return queue_page(i, std::move(buf), n, how == Drain::Pass);
}

// @n bytes of @buf, read from CPU @i's buffer, queued (none: recycled).
// @partial_ok: a partial page is the writer's, and ends the CPU's pass.
PageRead Session::queue_page(size_t i, std::vector<uint8_t> &&buf, size_t n, bool partial_ok)
{
	if (!n) {
		queue_->recycle(std::move(buf));
		return {};
	}
	buf.resize(n);
	const uint64_t bytes = decoder_.page_length(buf.data(), n);
	queue_->push({uint32_t(i), kPage, std::move(buf)});
	return {true, bytes, partial_ok && writers_page(bytes, readers_[i]->page_size())};
}

// Reading thread, CPU @i's buffer spliced: whole pages, and read()s as
// its SplicePlan says (the writer's page of a quiet CPU, and the rest of a
// page read in part).
PageRead Session::take_spliced(size_t i)
{
	CpuReader &r = *readers_[i];
	SplicePlan &plan = taking_[i].plan;
	auto buf = queue_->buffer(r.page_size());
	for (auto op = plan.next(); op != SplicePlan::Op::Stop; op = plan.next()) {
		const bool spliced = op == SplicePlan::Op::Splice;
		const size_t n = spliced ? r.splice(buf) : r.read(buf);
		plan.done(op, n > 0, Clock::now());
		if (n) {
			(spliced ? spliced_ : copied_)++;
			return queue_page(i, std::move(buf), n, !spliced);
		}
	}
	queue_->recycle(std::move(buf));
	return {};
}

// Reading thread, CPU @i's buffer mapped: what its reader page holds past
// the cursor, copied (the kernel takes the page back at the next swap,
// and the queue must hold it until it is decoded). With nothing new, a
// swap: the first may only move the kernel's reader past what was handed
// out, the second brings in the next page, if any. The kernel swaps only
// a page its reader has moved past whole, and the cursor was read after
// the swap before it: no record is skipped.
PageRead Session::take_mapped(size_t i, RingMap &map, Drain how)
{
	MapCursor &cur = taking_[i].cursor;
	for (int swaps = 0; swaps <= 2; swaps++) {
		if (swaps)
			map.swap();
		const auto live = map.reader_page();
		if (map.reader_id() != cur.id)
			cur = {map.reader_id(), 0};
		if (decoder_.page_length(live.data(), live.size()) <= cur.done)
			continue;
		auto buf = queue_->buffer(live.size());
		const uint64_t len = decoder_.copy_live_page(live.data(), live.size(), buf.data());
		const uint64_t skip = std::min(cur.done, len);
		cur.done = len;
		queue_->push({uint32_t(i), kPage, std::move(buf), uint32_t(skip)});
		return {true, len - skip, how == Drain::Pass && writers_page(len, live.size())};
	}
	return {};
}

// Drain::Pass reads at most kPassPages per CPU, so that a rate the reader
// cannot keep up with still lets the loop see the end of the duration
// and signals; All and Flush read until the buffers are empty, once the
// events are off. A second signal abandons the rest: teardown must come
// promptly.
Session::Drained Session::drain(Drain how)
{
	const size_t cap = how == Drain::Pass ? kPassPages : SIZE_MAX;
	const auto now = Clock::now();
	for (auto &t : taking_)
		t.plan.begin(now);
	const auto read = drain_rounds(readers_.size(), kRoundPages, cap, [&](size_t i) { return read_page(i, how); });
	Drained d;
	for (const auto &r : read) {
		d.busiest = std::max(d.busiest, r.bytes);
		d.capped |= r.more;
	}
	queue_mark(kPassDone);
	return d;
}

// Until a CPU's buffer holds data, @most has passed or a signal came;
// after a wake on data, not before the pacer's pause has passed since the pass that
// followed it.
void Session::wait_for_data(Clock::duration most)
{
	const auto since = Clock::now() - pacer_.last_pass();
	if (woke_on_data_ && since < pacer_.pause()) {
		const auto nap = std::min<Clock::duration>(pacer_.pause() - since, most);
		const auto ms = std::chrono::ceil<std::chrono::milliseconds>(nap).count();
		if (ms > 0 && poll(nullptr, 0, int(ms)) < 0 && errno != EINTR)
			throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
		most -= nap;
		if (g_stop)
			return;
	}
	std::vector<pollfd> fds;
	for (const auto &r : readers_)
		fds.push_back({r->fd(), POLLIN, 0});
	const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(most).count();
	const int n = ms > 0 ? poll(fds.data(), fds.size(), int(ms)) : 0;
	if (n < 0 && errno != EINTR)
		throw std::runtime_error(std::string("poll on the ring buffers: ") + std::strerror(errno));
	woke_on_data_ = n > 0;
}

void Session::progress(Clock::duration elapsed) const
{
	std::fprintf(stderr, "\rkprofctl: %.1f s, %llu events, %llu missed  ",
		     std::chrono::duration<double>(elapsed).count(),
		     (unsigned long long)shown_events_.load(std::memory_order_relaxed),
		     (unsigned long long)shown_missed_.load(std::memory_order_relaxed));
	std::fflush(stderr);
}

// Reading thread, from the window's opening to the buffers' last page.
// The decoding thread starts once the window has set -P.
void Session::read_window(const CollectOptions &opts, Aggregator &agg, Collected &c)
{
	const bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
	Window window(opts);
	start_decoding(opts, agg, c);
	const auto start = window.start();
	auto last_progress = start;
	while (!window.over() && !(watcher_ && watcher_->stop()) && !queue_->aborted()) {
		const auto now = Clock::now();
		const Drained d = drain(Drain::Pass);
		pacer_.pass(d.busiest, d.capped, now);
		if (tty && now - last_progress >= kProgressEvery) {
			progress(now - start);
			last_progress = now;
		}
		Clock::duration wait = watcher_ ? kWatchedWait : kIdleWait;
		if (tty)
			wait = std::min<Clock::duration>(wait, kProgressEvery);
		wait_for_data(window.wait_at_most(wait));
	}
	c.window = window.close();
	drain(Drain::Pass);	// everything drained so far has seq <= e1
	c.e1 = read_emitted();
	if (c.e1)
		queue_mark(kWindowClose);
	switch_events("0");
	c.counters1 = read_counters();
	inst_.set("tracing_on", "0");
	drain(Drain::All);
	drain(Drain::Flush);
	if (tty)
		std::fprintf(stderr, "\r%60s\r", "");
}

// Tracing on, then the events (the hooks' key comes on with them); the
// emitted counts are read while the events are on, so that every event
// emitted between the two readings must be in the buffer (seq window).
Collected Session::collect(const CollectOptions &opts, Aggregator &agg)
{
	Collected c;
	c.loss.resize(plan_.cpus.size());
	for (size_t i = 0; i < plan_.cpus.size(); i++) {
		c.loss[i].cpu = plan_.cpus[i];
		c.ring0.push_back(parse_ring_stats(inst_.cpu_stats(plan_.cpus[i])));
	}
	c.counters0 = read_counters();
	inst_.set("tracing_on", "1");
	switch_events("1");
	wait_attached(c);
	c.e0 = read_emitted();
	if (c.e0)
		agg.window_open(*c.e0);
	if (watcher_) {
		timespec now{};
		clock_gettime(CLOCK_MONOTONIC, &now);
		watcher_->window_open(uint64_t(now.tv_sec) * 1000000000ULL + uint64_t(now.tv_nsec));
	}
	// The decoding thread writes into c: it must end before c does.
	try {
		read_window(opts, agg, c);
	} catch (...) {
		stop_decoding();
		throw;
	}
	stop_decoding();
	if (decode_error_)
		std::rethrow_exception(decode_error_);
	c.queue = queue_->figures();
	const bool mapped = std::any_of(readers_.begin(), readers_.end(), [](const auto &r) { return r->map(); });
	c.queue.reader = mapped || readers_.empty() ? ReaderWay::Mmap : readers_.front()->way();
	c.queue.spliced = spliced_;
	c.queue.copied = copied_;
	if (g_stop >= 2)
		throw std::runtime_error("interrupted twice: no report; the events are disabled");
	for (int cpu : plan_.cpus)
		c.ring1.push_back(parse_ring_stats(inst_.cpu_stats(cpu)));
	return c;
}

// What was lost, exactly: the ring buffer's own figures per CPU against
// what was decoded, and the seq window per (device, event).
void account_loss(const Plan &plan, const Collected &c, const Aggregator &agg, const std::optional<std::string> &device,
		  Report &rep)
{
	c.window.into(rep);
	rep.loss = c.loss;
	for (size_t i = 0; i < rep.loss.size(); i++)
		rep.loss[i].ring = ring_delta(c.ring0[i], c.ring1[i]);
	rep.events_read = c.events;
	rep.reader_queue = c.queue;
	rep.invalid = c.invalid;
	rep.other = c.other;
	rep.filtered = agg.filtered_out();
	if (plan.some_cpus) {
		rep.check_note = "not made with -c: kprof.ko emits on every CPU, the instance records only some";
		return;
	}
	rep.checked = true;
	const bool window = c.e0 && c.e1;
	rep.checks = cross_checks(agg, plan.events, device, window ? &*c.e0 : nullptr, window ? &*c.e1 : nullptr);
	if (!window)
		rep.check_note = "kprof's debugfs is not available: checked by seq gaps between the events read only";
}

void fill_rows(const CollectOptions &opts, const std::map<Aggregator::Key, Histogram> &totals,
	       const std::map<Aggregator::CpuKey, Histogram> &per_cpu, Report &rep)
{
	rep.unit = opts.unit;
	rep.divisor = opts.divisor;
	rep.show_hist = opts.hist;
	rep.per_cpu = opts.per_cpu;
	for (const auto &[key, h] : totals) {
		const auto &[label, device, irq] = key;
		rep.rows.push_back({label, device, -1, &h, irq});
		if (!opts.per_cpu)
			continue;
		for (const auto &[ck, ch] : per_cpu)
			if (std::get<0>(ck) == label && std::get<1>(ck) == device && std::get<2>(ck) == irq)
				rep.rows.push_back({label, device, std::get<3>(ck), &ch, irq});
	}
}

// The run's metrics added to those @path holds (checked before collecting:
// cli.cpp), written whole.
void add_to_prometheus_file(const std::string &path, const Report &rep)
{
	Metrics m;
	if (const auto text = sys::read_file(path)) {
		try {
			m = parse_prometheus(*text);
		} catch (const std::runtime_error &e) {
			throw std::runtime_error(path + ": " + e.what() + " (changed while kprofctl ran?)");
		}
	}
	add_metrics(m, metrics_of(rep));
	sys::replace_file(path, render_prometheus(m));
}

void render(const CollectOptions &opts, const Report &rep)
{
	const std::string out = opts.json  ? dump_json(render_json(rep)) + '\n'
				: opts.csv ? render_csv(rep)
					   : render_text(rep);
	if (opts.output)
		sys::replace_file(*opts.output, out);
	else
		std::cout << out << std::flush;
	if (opts.save)
		sys::replace_file(*opts.save, dump_json(render_json(rep)) + '\n');
	if (rep.lost_anything() && (opts.json || opts.csv))
		std::cerr << "kprofctl: WARNING: " << rep.total_missed() << " events lost, " << rep.invalid
			  << " invalid records; the statistics do not cover them\n";
	else if (opts.csv)
		std::cerr << "kprofctl: " << rep.events_read << " events read, none lost\n";
	if (opts.svg)
		sys::replace_file(*opts.svg, render_svg(rep));
	if (opts.prometheus)
		add_to_prometheus_file(*opts.prometheus, rep);
}


}  // namespace kprof
