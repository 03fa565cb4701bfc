// SPDX-License-Identifier: GPL-2.0
#include "sys/tracefile.hpp"

#include "sys/tracecmd_shim.h"

#include <algorithm>
#include <memory>

namespace kprof {

namespace {

struct InputClose {
	void operator()(kprof_tc *tc) const { kprof_tc_close(tc); }
};
using InputPtr = std::unique_ptr<kprof_tc, InputClose>;

// One pass over the file: the decoder and the samples of one record.
struct Pass {
	TraceFile &f;
	Decoder decoder;
	std::vector<Sample> samples;
};

// A record of @cpu; on the first of a page, what the ring buffer dropped
// before that page, from its header (> 0 the count, < 0 unknown), as the
// live path reads it.
void on_record(Pass &p, const kprof_tc_record *rec, int cpu)
{
	TraceFile &f = p.f;
	CpuLoss &l = f.cpus[cpu];
	l.cpu = cpu;
	l.records++;
	if (rec->page) {
		const auto missed = p.decoder.page_missed(rec->page, size_t(rec->page_size));
		if (!missed)
			l.bad_pages++;
		else if (*missed > 0)
			l.header_missed += uint64_t(*missed);
		else if (*missed < 0)
			l.lossy_pages++;
	}
	f.first_ts = std::min<uint64_t>(f.first_ts, rec->ts);
	f.last_ts = std::max<uint64_t>(f.last_ts, rec->ts);
	PageResult r;
	p.samples.clear();
	p.decoder.decode_record(static_cast<const uint8_t *>(rec->data), rec->size, rec->ts, cpu, r, p.samples);
	f.events += r.events;
	f.invalid += r.invalid;
	f.other += r.other;
	static const std::map<std::string, std::vector<std::string>> kNoSpanNames;
	for (const auto &s : p.samples)
		f.agg.add(s, p.decoder.device_name(s.dev), kNoSpanNames);
}

}  // namespace

// Every record of the file, a CPU at a time: the statistics need no order
// across CPUs, and merging them by time (tracecmd_iterate_events) made
// libtracecmd's share of report -i 3x slower on a file of 10^7 events.
std::unique_ptr<TraceFile> read_trace_file(const std::string &path, const std::vector<int> &cpus,
					   const AggregateOptions &aopts)
{
	InputPtr in(kprof_tc_open(path.c_str()));
	if (!in)
		throw std::runtime_error("cannot read " + path + " as a trace-cmd data file");
	tep_handle *tep = kprof_tc_tep(in.get());
	auto f = std::make_unique<TraceFile>(aopts);
	std::unique_ptr<Pass> p;
	try {
		p.reset(new Pass{*f, Decoder(tep), {}});
	} catch (const std::runtime_error &e) {
		throw std::runtime_error(path + ": " + e.what() + " (record with: trace-cmd record -e kprof)");
	}
	const int ncpus = kprof_tc_cpus(in.get());
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!cpus.empty() && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
			continue;
		kprof_tc_record rec;
		for (int first = 1; kprof_tc_next(in.get(), cpu, first, &rec); first = 0)
			on_record(*p, &rec, cpu);
	}
	return f;
}

}  // namespace kprof
