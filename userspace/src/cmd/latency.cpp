// SPDX-License-Identifier: GPL-2.0
// `kprofctl latency`: collect kprof events in our own instance, decode the
// raw per-CPU pages, and report statistics with every loss accounted for.
// Stages: plan (check the request against the machine) -> Session (set the
// instance up, collect) -> account (what was lost, exactly) -> report.
#include "sys/collect.hpp"
#include "cmd/commands.hpp"
#include "core/inkernel.hpp"
#include "sys/sys.hpp"


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

int run_in_kernel(const LatencyOptions &opts, const Plan &plan)
{
	KernelStats ks;
	Report rep;
	const DeviceCounters c0 = plan.dbg ? sys::read_counters(*plan.dbg) : DeviceCounters{};
	DeviceCounters c1;
	in_kernel_window(plan, kAggregateFile, opts, ks, rep, [&] {
		c1 = sys::read_counters(*plan.dbg);
		for (const auto &dev : sys::devices(*plan.dbg))
			if (!opts.device || *opts.device == dev)
				if (const auto text = sys::read_file(*plan.dbg + "/" + dev + "/hist"))
					load_kernel_hist(*text, dev, plan.kinds, opts.per_cpu, ks);
	});
	rep.counters = true;
	rep.unpaired = counter_moved(c0, c1, "unpaired_runs", opts.device);
	fill_rows(opts, ks.totals, ks.per_cpu, rep);
	render(opts, rep);
	return exit_status(rep);
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
	return exit_status(rep);
}

}  // namespace kprof
