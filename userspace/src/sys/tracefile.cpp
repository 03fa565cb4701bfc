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

// One pass over the file: the decoder and the samples of one page.
struct Pass {
	TraceFile &f;
	Decoder decoder;
	std::vector<Sample> samples;
};

// A page of @cpu, decoded whole as the live path decodes it: its records,
// and what the ring buffer dropped before it, from its header.
void on_page(Pass &p, const kprof_tc_page &page, int cpu)
{
	TraceFile &f = p.f;
	CpuLoss &l = f.cpus[cpu];
	l.cpu = cpu;
	p.samples.clear();
	const PageResult r = p.decoder.decode_page(page.data, size_t(page.size), cpu, p.samples);
	l.pages++;
	l.bad_pages += r.bad_page;
	l.records += r.events + r.other + r.invalid;
	if (r.missed > 0)
		l.header_missed += uint64_t(r.missed);
	else if (r.missed < 0)
		l.lossy_pages++;
	if (r.first_ts <= r.last_ts) {
		f.first_ts = std::min(f.first_ts, r.first_ts);
		f.last_ts = std::max(f.last_ts, r.last_ts);
	}
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
		kprof_tc_page page;
		for (int first = 1; kprof_tc_next_page(in.get(), cpu, first, &page); first = 0)
			on_page(*p, page, cpu);
	}
	return f;
}

}  // namespace kprof
