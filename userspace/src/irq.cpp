// SPDX-License-Identifier: GPL-2.0
// `kprofctl irq`: the generic IRQ tracker's events (any driver, no
// instrumentation), collected and reported like `latency`'s: per IRQ
// action and measured interval, with every loss accounted for and what
// became of each thread wake request.
#include "collect.hpp"
#include "commands.hpp"
#include "sys.hpp"

namespace kprof {

namespace {

Plan make_plan(const IrqOptions &opts)
{
	Plan plan = base_plan(Source::Tracker, opts);
	for (const auto &e : source_events(Source::Tracker)) {
		if (!sys::read_file(plan.tdir + "/events/kprof/" + e + "/format"))
			throw std::runtime_error("this kprof.ko has no IRQ tracker (no kprof:" + e + "); load kprof.ko " +
						 "of the same version as kprofctl");
		plan.events.insert(e);
		plan.kinds.insert(*kind_of_event(e));
	}
	return plan;
}

// The IRQs the tally saw, and what their wake requests became.
std::vector<IrqRow> irq_rows(const Aggregator &agg)
{
	std::vector<IrqRow> rows;
	for (const auto &[key, t] : agg.irqs())
		rows.push_back({key.first, key.second, t.handlers, t.requests, t.woken, t.runs, t.coalesced,
				t.unswitched()});
	return rows;
}

}  // namespace

int run_irq(const IrqOptions &opts)
{
	const Plan plan = make_plan(opts);
	AggregateOptions aopts;
	aopts.kinds = plan.kinds;
	aopts.per_cpu = opts.per_cpu;
	aopts.irqs = opts.irqs;
	Aggregator agg(aopts);

	Collected c;
	{
		Session session(plan, opts);
		c = session.collect(opts, agg);
	}	// the instance is restored or removed, the tracker detached

	Report rep;
	rep.title = "irq";
	account_loss(plan, c, agg, std::nullopt, rep);
	if (!c.note.empty())
		rep.check_note += (rep.check_note.empty() ? "" : "; ") + c.note;
	rep.unit = opts.unit;
	rep.divisor = opts.divisor;
	rep.show_hist = opts.hist;
	rep.per_cpu = opts.per_cpu;
	add_rows(agg, opts.per_cpu, rep);
	rep.irqs = irq_rows(agg);
	render(opts, rep);
	return 0;
}

}  // namespace kprof
