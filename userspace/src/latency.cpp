// SPDX-License-Identifier: GPL-2.0
// `kprofctl latency`: collect kprof events in our own instance, decode the
// raw per-CPU pages, and report statistics with every loss accounted for.
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
#include <sstream>
#include <thread>

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

struct CpuStats {
	uint64_t overrun = 0, dropped = 0;
};

CpuStats read_cpu_stats(const std::string &dir, int cpu)
{
	CpuStats s;
	auto text = sys::read_file(dir + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
	if (!text)
		return s;
	std::istringstream in(*text);
	for (std::string line; std::getline(in, line);) {
		if (line.rfind("overrun: ", 0) == 0)
			s.overrun = std::stoull(line.substr(9));
		else if (line.rfind("dropped events: ", 0) == 0)
			s.dropped = std::stoull(line.substr(16));
	}
	return s;
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

// Which counter a kprof event's count should equal.
const char *counter_for(EventKind k)
{
	switch (k) {
	case EventKind::IrqThreadLatency:
		return "thread_runs";	// minus unpaired_runs
	case EventKind::IrqHandler:
		return "irqs";
	case EventKind::Batch:
		return "batches";
	case EventKind::Span:
		return "spans";
	}
	return "";
}

}  // namespace

int run_latency(const LatencyOptions &opts)
{
	sys::require_root();
	const std::string tdir = sys::tracing_dir();
	sys::require_module();

	// Which events: names to kinds.
	std::set<std::string> names;
	for (const auto &p : opts.events.empty() ? std::vector<std::string>{"kprof:*"} : opts.events)
		for (auto &e : match_events(tdir, p.find(':') == std::string::npos ? "kprof:" + p : p, "kprof"))
			names.insert(e.substr(e.find(':') + 1));

	const int ncpus = int(sys::trace_cpus(tdir).size());
	for (int c : opts.cpus)
		if (c >= ncpus)
			throw UsageError("CPU " + std::to_string(c) + " does not exist (this machine traces " +
					 std::to_string(ncpus) + " CPUs)");
	if (opts.device) {
		const auto dbg = sys::kprof_debugfs();
		if (dbg && !sys::read_file(*dbg + "/" + *opts.device + "/counters"))
			throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");
	}

	const char *systems[] = {"kprof", nullptr};
	TepPtr tep(tracefs_local_events_system(tdir.c_str(), systems));
	if (!tep)
		throw std::runtime_error("cannot read the kprof event formats under " + tdir + "/events/kprof");
	Decoder decoder(tep.get());

	const auto dbg = sys::kprof_debugfs();
	const auto span_names = dbg ? sys::read_span_names(*dbg) : std::map<std::string, std::vector<std::string>>{};

	Instance inst(opts.instance, Instance::Mode::Session);
	if (!inst.recovered().empty())
		std::cerr << "kprofctl: " << inst.recovered() << '\n';
	inst.set("tracing_on", "0");
	if (opts.buffer_kb)
		inst.set("buffer_size_kb", std::to_string(opts.buffer_kb));
	if (!opts.cpus.empty())
		inst.set("tracing_cpumask", cpumask_hex(opts.cpus));
	inst.set("trace", "", false);	// start from an empty buffer

	std::vector<int> cpus = opts.cpus;
	if (cpus.empty())
		for (int c = 0; c < ncpus; c++)
			cpus.push_back(c);
	std::vector<std::unique_ptr<CpuReader>> readers;
	std::vector<CpuStats> stats0;
	for (int c : cpus) {
		readers.push_back(std::make_unique<CpuReader>(inst, c));
		stats0.push_back(read_cpu_stats(inst.dir(), c));
	}

	AggregateOptions aopts;
	aopts.device = opts.device;
	aopts.per_cpu = opts.per_cpu;
	Aggregator agg(aopts);
	Report rep;
	rep.loss.resize(cpus.size());
	for (size_t i = 0; i < cpus.size(); i++)
		rep.loss[i].cpu = cpus[i];
	std::vector<Sample> samples;
	samples.reserve(4096);

	auto consume = [&](size_t i, const void *page) {
		samples.clear();
		const auto r = decoder.decode_page(page, readers[i]->page_size(), readers[i]->cpu(), samples);
		CpuLoss &l = rep.loss[i];
		l.pages++;
		if (r.missed > 0)
			l.missed += uint64_t(r.missed);
		else if (r.missed < 0)
			l.lossy_pages++;
		rep.invalid += r.invalid + (r.bad_page ? 1 : 0);
		rep.other += r.other;
		rep.events_read += r.events;
		for (const auto &s : samples)
			agg.add(s, decoder.device_name(s.dev), span_names);
	};
	auto drain = [&](bool flush) {
		for (size_t i = 0; i < readers.size(); i++)
			while (const void *page = flush ? readers[i]->flush() : readers[i]->read())
				consume(i, page);
	};

	const auto counters0 = dbg ? sys::read_counters(*dbg) : decltype(sys::read_counters("")){};
	// Tracing on first, then the events: the hooks' key comes on with the
	// events, so the module counts nothing that the buffer does not see.
	inst.set("tracing_on", "1");
	// All of them at once if all are wanted: the counters then move
	// without events only for the microseconds the kernel takes to flip
	// them (the cross-check shows such differences under live traffic).
	const bool all_events = names.size() == size_t(sys::kprof_event_count(tdir));
	auto switch_events = [&](const char *on) {
		if (all_events) {
			for (const auto &n : names)
				inst.save("events/kprof/" + n + "/enable");
			inst.set("events/kprof/enable", on, false);
		} else {
			for (const auto &n : names)
				inst.set("events/kprof/" + n + "/enable", on);
		}
	};
	switch_events("1");

	const bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
	const auto start = Clock::now();
	auto last_progress = start;
	while (!g_stop) {
		const auto now = Clock::now();
		if (opts.duration.count() && now - start >= opts.duration)
			break;
		drain(false);
		if (tty && now - last_progress >= std::chrono::milliseconds(500)) {
			uint64_t missed = 0;
			for (const auto &l : rep.loss)
				missed += l.missed;
			std::fprintf(stderr, "\rkprofctl: %.1f s, %llu events, %llu missed  ",
				     std::chrono::duration<double>(now - start).count(),
				     (unsigned long long)rep.events_read, (unsigned long long)missed);
			std::fflush(stderr);
			last_progress = now;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
	}
	rep.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
	switch_events("0");
	const auto counters1 = dbg ? sys::read_counters(*dbg) : decltype(counters0){};
	inst.set("tracing_on", "0");
	drain(false);
	drain(true);
	if (tty)
		std::fprintf(stderr, "\r%60s\r", "");

	for (size_t i = 0; i < cpus.size(); i++) {
		const CpuStats s1 = read_cpu_stats(inst.dir(), cpus[i]);
		rep.loss[i].overrun = s1.overrun - stats0[i].overrun;
		rep.loss[i].dropped = s1.dropped - stats0[i].dropped;
	}

	// Cross-check: what we read against how far the module's counters moved.
	if (dbg) {
		rep.counters = true;
		for (const auto &[dev, c1] : counters1) {
			const auto it = counters0.find(dev);
			const auto d = counters_delta(it == counters0.end() ? decltype(c1){} : it->second, c1);
			auto get = [&](const char *k) { return d.count(k) ? d.at(k) : 0; };
			rep.unpaired += get("unpaired_runs");
			if (opts.device && *opts.device != dev)
				continue;
			for (auto k : {EventKind::IrqThreadLatency, EventKind::IrqHandler, EventKind::Batch, EventKind::Span}) {
				const std::string ev = event_name(k);
				if (!names.count(ev))
					continue;
				uint64_t want = get(counter_for(k));
				if (k == EventKind::IrqThreadLatency)
					want -= std::min(want, get("unpaired_runs"));
				const auto seen = agg.seen().find({ev, dev});
				const uint64_t got = seen == agg.seen().end() ? 0 : seen->second;
				if (got || want)
					rep.checks.push_back({dev, ev, got, want});
			}
		}
	}

	rep.unit = opts.unit;
	rep.divisor = opts.divisor;
	rep.show_hist = opts.hist;
	rep.per_cpu = opts.per_cpu;
	rep.filtered = agg.filtered_out();
	for (const auto &[key, h] : agg.totals()) {
		rep.rows.push_back({key.first, key.second, -1, &h});
		if (opts.per_cpu)
			for (const auto &[ck, ch] : agg.per_cpu())
				if (std::get<0>(ck) == key.first && std::get<1>(ck) == key.second)
					rep.rows.push_back({key.first, key.second, std::get<2>(ck), &ch});
	}

	if (opts.json)
		std::cout << render_json(rep).dump(2) << '\n';
	else if (opts.csv)
		std::cout << render_csv(rep);
	else
		std::cout << render_text(rep);
	if (rep.lost_anything() && (opts.json || opts.csv))
		std::cerr << "kprofctl: WARNING: " << rep.total_missed() << " events lost, " << rep.invalid
			  << " invalid records; the statistics do not cover them\n";
	else if (opts.csv)
		std::cerr << "kprofctl: " << rep.events_read << " events read, none lost\n";
	return 0;
}

}  // namespace kprof
