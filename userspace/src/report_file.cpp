// SPDX-License-Identifier: GPL-2.0
// `kprofctl report -i FILE`: the latency report of a trace-cmd data file,
// read through libtracecmd. The records go through the same decoder,
// aggregation and report as a live run; the losses are those the file
// shows (missed events per page, seq gaps).
#include "aggregate.hpp"
#include "collect.hpp"
#include "commands.hpp"
#include "decoder.hpp"

#include <algorithm>
#include <memory>

extern "C" {
#include <trace-cmd.h>
}

namespace kprof {

namespace {

struct InputClose {
	void operator()(tracecmd_input *h) const { tracecmd_close(h); }
};
using InputPtr = std::unique_ptr<tracecmd_input, InputClose>;

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

// What one pass over the file gathers.
struct FileRead {
	FileRead(tep_handle *tep, const ReportOptions &o, AggregateOptions a) : decoder(tep), opts(o), agg(std::move(a)) {}
	Decoder decoder;
	const ReportOptions &opts;
	Aggregator agg;
	std::map<int, CpuLoss> cpus;
	std::vector<Sample> samples;
	uint64_t first_ts = UINT64_MAX, last_ts = 0, events = 0, invalid = 0, other = 0;
};

bool wanted_cpu(const ReportOptions &o, int cpu)
{
	return o.cpus.empty() || std::find(o.cpus.begin(), o.cpus.end(), cpu) != o.cpus.end();
}

// A record of @cpu, the first of a page the ring buffer dropped events
// before when its missed_events is set (> 0 the count, < 0 unknown).
void on_record(FileRead &f, const tep_record *rec, int cpu)
{
	CpuLoss &l = f.cpus[cpu];
	l.cpu = cpu;
	l.records++;
	if (rec->missed_events > 0)
		l.header_missed += uint64_t(rec->missed_events);
	else if (rec->missed_events < 0)
		l.lossy_pages++;
	f.first_ts = std::min<uint64_t>(f.first_ts, rec->ts);
	f.last_ts = std::max<uint64_t>(f.last_ts, rec->ts);
	PageResult r;
	f.samples.clear();
	f.decoder.decode_record(static_cast<const uint8_t *>(rec->data), rec->size, rec->ts, cpu, r, f.samples);
	f.events += r.events;
	f.invalid += r.invalid;
	f.other += r.other;
	static const std::map<std::string, std::vector<std::string>> kNoSpanNames;
	for (const auto &s : f.samples)
		f.agg.add(s, f.decoder.device_name(s.dev), kNoSpanNames);
}

struct RecordFree {
	void operator()(tep_record *r) const { tracecmd_free_record(r); }
};
using RecordPtr = std::unique_ptr<tep_record, RecordFree>;

// Every record of the file, a CPU at a time: the statistics need no order
// across CPUs, and merging them by time (tracecmd_iterate_events) made
// libtracecmd's share of report -i 3x slower on a file of 10^7 events.
void read_records(tracecmd_input *in, FileRead &f)
{
	const int ncpus = tep_get_cpus(tracecmd_get_tep(in));
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!wanted_cpu(f.opts, cpu))
			continue;
		for (RecordPtr r(tracecmd_read_cpu_first(in, cpu)); r; r.reset(tracecmd_read_data(in, cpu)))
			on_record(f, r.get(), cpu);
	}
}

}  // namespace

int run_report(const ReportOptions &opts)
{
	InputPtr in(tracecmd_open(opts.input.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS));
	if (!in)
		throw std::runtime_error("cannot read " + opts.input + " as a trace-cmd data file");
	tep_handle *tep = tracecmd_get_tep(in.get());
	AggregateOptions aopts;
	aopts.device = opts.device;
	aopts.kinds = select_kinds(opts.events);
	aopts.per_cpu = opts.per_cpu;
	std::unique_ptr<FileRead> f;
	try {
		f = std::make_unique<FileRead>(tep, opts, aopts);
	} catch (const std::runtime_error &e) {
		throw std::runtime_error(opts.input + ": " + e.what() + " (record with: trace-cmd record -e kprof)");
	}
	read_records(in.get(), *f);

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
