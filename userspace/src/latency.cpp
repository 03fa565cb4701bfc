// SPDX-License-Identifier: GPL-2.0
// `kprofctl latency`: collect kprof events in our own instance, decode the
// raw per-CPU pages, and report statistics with every loss accounted for.
// Stages: plan (check the request against the machine) -> Session (set the
// instance up, collect) -> account (what was lost, exactly) -> report.
#include "aggregate.hpp"
#include "commands.hpp"
#include "counters.hpp"
#include "decoder.hpp"
#include "instance.hpp"
#include "report.hpp"
#include "sys.hpp"
#include "tep.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <set>
#include <thread>

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

// What to collect, checked against this machine before anything changes.
struct Plan {
	std::string tdir;
	std::set<std::string> events;		// tracepoint names
	std::set<EventKind> kinds;		// the same, as kinds
	bool all_events = false;
	std::vector<int> cpus;			// the CPUs read
	bool some_cpus = false;			// -c: tracing_cpumask restricts them
	std::optional<std::string> dbg;		// kprof's debugfs, if there is one
	std::map<std::string, std::vector<std::string>> span_names;
};

std::set<std::string> select_events(const std::string &tdir, const std::vector<std::string> &patterns)
{
	std::set<std::string> names;
	for (const auto &p : patterns.empty() ? std::vector<std::string>{"kprof:*"} : patterns)
		for (auto &e : match_events(tdir, p.find(':') == std::string::npos ? "kprof:" + p : p, "kprof"))
			names.insert(e.substr(e.find(':') + 1));
	return names;
}

Plan make_plan(const LatencyOptions &opts)
{
	sys::require_root();
	Plan plan;
	plan.tdir = sys::tracing_dir();
	sys::require_module();
	plan.events = select_events(plan.tdir, opts.events);
	for (const auto &e : plan.events)
		if (const auto k = kind_of_event(e))
			plan.kinds.insert(*k);
	plan.all_events = plan.events.size() == size_t(sys::kprof_event_count(plan.tdir));

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
	if (opts.device && plan.dbg && !sys::read_file(*plan.dbg + "/" + *opts.device + "/counters"))
		throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");
	if (plan.dbg)
		plan.span_names = sys::read_span_names(*plan.dbg);
	return plan;
}

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

// Everything a collection saw, for account().
struct Collected {
	std::vector<CpuLoss> loss;		// pages, records, page headers
	std::vector<RingStats> ring0, ring1;
	std::optional<DeviceCounters> counters0, counters1;
	std::optional<Aggregator::Emitted> e0, e1;
	uint64_t events = 0, invalid = 0, other = 0;
	double duration_s = 0;
};

// The instance set up for one collection, its readers and the decoder.
class Session {
public:
	Session(const Plan &plan, const LatencyOptions &opts);
	Collected collect(const LatencyOptions &opts, Aggregator &agg);

private:
	std::optional<Aggregator::Emitted> read_emitted() const;
	std::optional<DeviceCounters> read_counters() const;
	void switch_events(const char *on);
	void drain(bool flush, Aggregator &agg, Collected &c);
	void consume(size_t i, const void *page, Aggregator &agg, Collected &c);
	void progress(Clock::duration elapsed, const Collected &c) const;

	const Plan &plan_;
	TepPtr tep_;
	Decoder decoder_;
	Instance inst_;
	std::vector<std::unique_ptr<CpuReader>> readers_;
	std::vector<Sample> samples_;
};

Session::Session(const Plan &plan, const LatencyOptions &opts)
	: plan_(plan), tep_(tep_from_tracefs(plan.tdir)), decoder_(tep_.get()), inst_(opts.instance, Instance::Mode::Session)
{
	if (!inst_.recovered().empty())
		std::cerr << "kprofctl: " << inst_.recovered() << '\n';
	inst_.refuse_unread();
	inst_.set("tracing_on", "0");
	if (opts.buffer_kb)
		inst_.set("buffer_size_kb", std::to_string(opts.buffer_kb));
	if (plan.some_cpus)
		inst_.set("tracing_cpumask", cpumask_hex(plan.cpus));
	inst_.set("trace", "", false);	// start from an empty buffer
	for (int c : plan.cpus)
		readers_.push_back(std::make_unique<CpuReader>(inst_, c));
	samples_.reserve(4096);
}

std::optional<Aggregator::Emitted> Session::read_emitted() const
{
	if (!plan_.dbg)
		return std::nullopt;
	return sys::read_emitted(*plan_.dbg);
}

std::optional<DeviceCounters> Session::read_counters() const
{
	if (!plan_.dbg)
		return std::nullopt;
	return sys::read_counters(*plan_.dbg);
}

void Session::switch_events(const char *on)
{
	// All at once if all are wanted, else one by one.
	if (plan_.all_events) {
		for (const auto &n : plan_.events)
			inst_.save("events/kprof/" + n + "/enable");
		inst_.set("events/kprof/enable", on, false);
	} else {
		for (const auto &n : plan_.events)
			inst_.set("events/kprof/" + n + "/enable", on);
	}
}

void Session::consume(size_t i, const void *page, Aggregator &agg, Collected &c)
{
	samples_.clear();
	const auto r = decoder_.decode_page(page, readers_[i]->page_size(), readers_[i]->cpu(), samples_);
	CpuLoss &l = c.loss[i];
	l.pages++;
	l.bad_pages += r.bad_page;
	l.records += r.events + r.other + r.invalid;
	if (r.missed > 0)
		l.header_missed += uint64_t(r.missed);
	else if (r.missed < 0)
		l.lossy_pages++;
	c.invalid += r.invalid;
	c.other += r.other;
	c.events += r.events;
	for (const auto &s : samples_)
		agg.add(s, decoder_.device_name(s.dev), plan_.span_names);
}

void Session::drain(bool flush, Aggregator &agg, Collected &c)
{
	// A second signal abandons the rest: teardown must come promptly.
	for (size_t i = 0; i < readers_.size(); i++)
		while (g_stop < 2) {
			const void *page = flush ? readers_[i]->flush() : readers_[i]->read();
			if (!page)
				break;
			consume(i, page, agg, c);
		}
}

void Session::progress(Clock::duration elapsed, const Collected &c) const
{
	uint64_t missed = 0;
	for (const auto &l : c.loss)
		missed += l.header_missed;
	std::fprintf(stderr, "\rkprofctl: %.1f s, %llu events, %llu missed  ",
		     std::chrono::duration<double>(elapsed).count(), (unsigned long long)c.events,
		     (unsigned long long)missed);
	std::fflush(stderr);
}

// Tracing on, then the events (the hooks' key comes on with them); the
// emitted counts are read while the events are on, so that every event
// emitted between the two readings must be in the buffer (seq window).
Collected Session::collect(const LatencyOptions &opts, Aggregator &agg)
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
	c.e0 = read_emitted();
	if (c.e0)
		agg.window_open(*c.e0);

	const bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
	const auto start = Clock::now();
	auto last_progress = start;
	while (!g_stop) {
		const auto now = Clock::now();
		if (opts.duration.count() && now - start >= opts.duration)
			break;
		drain(false, agg, c);
		if (tty && now - last_progress >= std::chrono::milliseconds(500)) {
			progress(now - start, c);
			last_progress = now;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
	}
	c.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	drain(false, agg, c);	// everything drained so far has seq <= e1
	c.e1 = read_emitted();
	if (c.e1)
		agg.window_close(*c.e1);
	switch_events("0");
	c.counters1 = read_counters();
	inst_.set("tracing_on", "0");
	drain(false, agg, c);
	drain(true, agg, c);
	if (tty)
		std::fprintf(stderr, "\r%60s\r", "");
	if (g_stop >= 2)
		throw std::runtime_error("interrupted twice: no report; the events are disabled");
	for (int cpu : plan_.cpus)
		c.ring1.push_back(parse_ring_stats(inst_.cpu_stats(cpu)));
	return c;
}

// What was lost, exactly: the ring buffer's own figures per CPU against
// what was decoded, and the seq window per (device, event).
void account(const Plan &plan, const LatencyOptions &opts, const Collected &c, const Aggregator &agg, Report &rep)
{
	rep.duration_s = c.duration_s;
	rep.loss = c.loss;
	for (size_t i = 0; i < rep.loss.size(); i++)
		rep.loss[i].ring = ring_delta(c.ring0[i], c.ring1[i]);
	rep.events_read = c.events;
	rep.invalid = c.invalid;
	rep.other = c.other;
	rep.filtered = agg.filtered_out();
	rep.counters = c.counters0 && c.counters1;
	if (rep.counters)
		rep.unpaired = counter_moved(*c.counters0, *c.counters1, "unpaired_runs", opts.device);
	if (plan.some_cpus) {
		rep.check_note = "not made with -c: kprof.ko emits on every CPU, the instance records only some";
		return;
	}
	rep.checked = true;
	const bool window = c.e0 && c.e1;
	rep.checks = cross_checks(agg, plan.events, opts.device, window ? &*c.e0 : nullptr, window ? &*c.e1 : nullptr);
	if (!window)
		rep.check_note = "kprof's debugfs is not available: checked by seq gaps between the events read only";
}

void render(const LatencyOptions &opts, const Report &rep)
{
	if (opts.json)
		std::cout << render_json(rep).dump(2) << '\n';
	else if (opts.csv)
		std::cout << render_csv(rep);
	else
		std::cout << render_text(rep);
	std::cout.flush();
	if (rep.lost_anything() && (opts.json || opts.csv))
		std::cerr << "kprofctl: WARNING: " << rep.total_missed() << " events lost, " << rep.invalid
			  << " invalid records; the statistics do not cover them\n";
	else if (opts.csv)
		std::cerr << "kprofctl: " << rep.events_read << " events read, none lost\n";
}

}  // namespace

int run_latency(const LatencyOptions &opts)
{
	const Plan plan = make_plan(opts);
	AggregateOptions aopts;
	aopts.device = opts.device;
	aopts.kinds = plan.kinds;
	aopts.per_cpu = opts.per_cpu;
	Aggregator agg(aopts);

	Collected c;
	{
		Session session(plan, opts);
		c = session.collect(opts, agg);
	}	// the instance is restored or removed before the report

	Report rep;
	account(plan, opts, c, agg, rep);
	rep.unit = opts.unit;
	rep.divisor = opts.divisor;
	rep.show_hist = opts.hist;
	rep.per_cpu = opts.per_cpu;
	for (const auto &[key, h] : agg.totals()) {
		rep.rows.push_back({key.first, key.second, -1, &h});
		if (opts.per_cpu)
			for (const auto &[ck, ch] : agg.per_cpu())
				if (std::get<0>(ck) == key.first && std::get<1>(ck) == key.second)
					rep.rows.push_back({key.first, key.second, std::get<2>(ck), &ch});
	}
	render(opts, rep);
	return 0;
}

}  // namespace kprof
