// SPDX-License-Identifier: GPL-2.0
// `kprofctl report -i FILE`: the latency report of a trace-cmd data file
// (tracefile.hpp reads it). The losses are those the file shows (missed
// events per page, seq gaps).
#include "sys/collect.hpp"
#include "cmd/commands.hpp"
#include "sys/tracefile.hpp"

#include <algorithm>
#include <memory>

namespace kprof {

namespace {

// -e: event names or labels ("batch", "kprof_batch"), exactly.
std::set<EventKind> select_kinds(const std::vector<std::string> &names)
{
	std::set<EventKind> kinds;
	for (const auto &n : names) {
		const auto it = std::find_if(std::begin(kEvents), std::end(kEvents), [&](const EventSpec &s) {
			return n == s.label || n == s.event || n == std::string("kprof:") + s.event;
		});
		if (it == std::end(kEvents))
			throw UsageError("no kprof event '" + n + "'; the events are: " + event_labels() +
					 ", handler, entry_to_woken, entry_to_running");
		kinds.insert(it->kind);
	}
	return kinds;
}

}  // namespace

int run_report(const ReportOptions &opts)
{
	AggregateOptions aopts;
	aopts.device = opts.device;
	aopts.kinds = select_kinds(opts.events);
	aopts.per_cpu = opts.per_cpu;
	const auto f = read_trace_file(opts.input, opts.cpus, aopts);

	Report rep;
	rep.title = "report of " + opts.input;
	rep.duration_s = f->events ? double(f->last_ts - f->first_ts) / 1e9 : 0;
	for (const auto &[cpu, l] : f->cpus)
		rep.loss.push_back(l);
	rep.events_read = f->events;
	rep.invalid = f->invalid;
	rep.other = f->other;
	rep.filtered = f->agg.filtered_out();
	std::set<std::string> events;
	for (const auto &s : kEvents)
		events.insert(s.event);
	rep.checked = true;
	rep.checks = cross_checks(f->agg, events, opts.device, nullptr, nullptr);
	rep.check_note = "a recorded file: checked by seq gaps between the events read only";
	fill_rows(opts, f->agg.totals(), f->agg.per_cpu(), rep);
	render(opts, rep);
	return 0;
}

}  // namespace kprof
