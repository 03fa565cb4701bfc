// SPDX-License-Identifier: GPL-2.0
// `kprofctl latency`: collect kprof events in our own instance, decode the
// raw per-CPU pages, and report statistics with every loss accounted for.
// Stages: plan (check the request against the machine) -> Session (set the
// instance up, collect) -> account (what was lost, exactly) -> report.
#include "collect.hpp"
#include "commands.hpp"
#include "inkernel.hpp"
#include "sys.hpp"

#include <chrono>
#include <iostream>
#include <thread>

namespace kprof {

namespace {

// The device events matching @patterns (default: all of them). The IRQ
// tracker's events belong to 'kprofctl irq'.
std::set<std::string> select_events(const std::string &tdir, const std::vector<std::string> &patterns)
{
	std::set<std::string> names;
	for (const auto &p : patterns.empty() ? std::vector<std::string>{"kprof:*"} : patterns)
		for (auto &e : match_events(tdir, p.find(':') == std::string::npos ? "kprof:" + p : p, "kprof")) {
			const std::string name = e.substr(e.find(':') + 1);
			const auto k = kind_of_event(name);
			if (k && source_of(*k) == Source::Tracker) {
				if (!patterns.empty() && p.find_first_of("*?[") == std::string::npos)
					throw UsageError(name + " is the IRQ tracker's: use 'kprofctl irq'");
				continue;
			}
			names.insert(name);
		}
	if (names.empty())
		throw UsageError("no kprof device event matches; the events are: " + event_labels());
	return names;
}

Plan make_plan(const LatencyOptions &opts)
{
	Plan plan = base_plan(Source::Device, opts);
	plan.events = select_events(plan.tdir, opts.events);
	for (const auto &e : plan.events)
		if (const auto k = kind_of_event(e))
			plan.kinds.insert(*k);
	if (opts.device && plan.dbg && !sys::read_file(*plan.dbg + "/" + *opts.device + "/counters"))
		throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");
	if (plan.dbg)
		plan.span_names = sys::read_span_names(*plan.dbg);
	return plan;
}

// kprof/aggregate switched on for one run: on (zeroed) at construction,
// frozen for reading, off (freed) at destruction, also on errors and
// signals.
class Aggregation {
public:
	explicit Aggregation(const std::string &dbg) : file_(dbg + "/" + kAggregateFile)
	{
		const auto state = sys::read_file(file_);
		if (!state)
			throw std::runtime_error("this kprof.ko has no in-kernel aggregation (no " + file_ +
						 "): load the kprof.ko of this kprofctl's version");
		if (std::stoi(*state) != int(AggState::Off))
			std::cerr << "kprofctl: restarting the in-kernel aggregation an earlier run left on\n";
		set(AggState::On);
	}
	Aggregation(const Aggregation &) = delete;
	Aggregation &operator=(const Aggregation &) = delete;
	~Aggregation()
	{
		try {
			set(AggState::Off);
		} catch (const std::exception &e) {
			std::cerr << "kprofctl: " << e.what() << '\n';
		}
	}
	void freeze() { set(AggState::Frozen); }

private:
	void set(AggState s) { sys::write_file(file_, std::to_string(int(s))); }
	std::string file_;
};

// Until the duration is over or a signal came; the seconds waited.
double wait_for_end(std::chrono::nanoseconds duration)
{
	using Clock = std::chrono::steady_clock;
	const auto start = Clock::now();
	while (!g_stop && !(duration.count() && Clock::now() - start >= duration))
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	return std::chrono::duration<double>(Clock::now() - start).count();
}

int run_in_kernel(const LatencyOptions &opts, const Plan &plan)
{
	if (!plan.dbg)
		throw std::runtime_error("--in-kernel reads kprof.ko's histograms from debugfs, which is not mounted "
					 "(mount -t debugfs none /sys/kernel/debug)");
	KernelStats ks;
	Report rep;
	DeviceCounters c0, c1;
	{
		Aggregation agg(*plan.dbg);
		c0 = sys::read_counters(*plan.dbg);
		const double cpu0 = sys::cpu_seconds();
		rep.duration_s = wait_for_end(opts.duration);
		rep.cpu_s = sys::cpu_seconds() - cpu0;
		agg.freeze();
		c1 = sys::read_counters(*plan.dbg);
		for (const auto &dev : sys::devices(*plan.dbg))
			if (!opts.device || *opts.device == dev)
				if (const auto text = sys::read_file(*plan.dbg + "/" + dev + "/hist"))
					load_kernel_hist(*text, dev, plan.kinds, opts.per_cpu, ks);
		if (ks.samples && ks.state != AggState::Frozen)
			throw std::runtime_error("the in-kernel aggregation was switched by someone else meanwhile");
	}
	rep.in_kernel = true;
	rep.events_read = ks.samples;
	rep.filtered = ks.filtered;
	rep.overflow = ks.overflow;
	rep.counters = true;
	rep.unpaired = counter_moved(c0, c1, "unpaired_runs", opts.device);
	rep.check_note = "in-kernel aggregation: no events, nothing to cross-check";
	fill_rows(opts, ks.totals, ks.per_cpu, rep);
	render(opts, rep);
	return 0;
}

}  // namespace

int run_latency(const LatencyOptions &opts)
{
	const Plan plan = make_plan(opts);
	if (opts.in_kernel)
		return run_in_kernel(opts, plan);
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
	account_loss(plan, c, agg, opts.device, rep);
	rep.counters = c.counters0 && c.counters1;
	if (rep.counters)
		rep.unpaired = counter_moved(*c.counters0, *c.counters1, "unpaired_runs", opts.device);
	fill_rows(opts, agg.totals(), agg.per_cpu(), rep);
	render(opts, rep);
	return 0;
}

}  // namespace kprof
