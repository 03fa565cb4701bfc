// SPDX-License-Identifier: GPL-2.0
// kprofctl's offline path on one core: decode raw ring-buffer pages and
// aggregate the samples into the report's histograms, N events' worth.
//
// The pages are the ones captured from a 6.1 guest (tests/unit/fixtures),
// decoded over and over; before each round every latency field gets a new
// value, log-uniform from 16 us to 1 ms (a driver's latencies), so the
// histograms see N distinct samples, not the same few hundred again. The timed loop includes that
// patching. Prints one JSON line: events, seconds, events_per_s, and the
// process's maximum RSS.
//
//   decode_bench FIXTURE_DIR EVENTS
//   decode_bench --accuracy VALUES
//   decode_bench --context FIXTURE_DIR ROUNDS
// The second form records VALUES heavy-tailed values and prints the
// largest relative error of p1 ... p99.99 against an exact sort. The third
// times irq -T's path: the IRQ tracker capture (tracker.cpu*.raw, with the
// kernel's irq and sched events) decoded ROUNDS times, each round's page
// stamps 10 s on, its context events through ContextDecoder into the
// threshold Analyzer and its samples into the histograms and the Analyzer.
#include "core/aggregate.hpp"
#include "core/analysis.hpp"
#include "core/context.hpp"
#include "core/decoder.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

using namespace kprof;

namespace {

constexpr size_t kPage = 4096;

std::vector<uint8_t> read_all(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw std::runtime_error("cannot read " + path);
	return {std::istreambuf_iterator<char>(in), {}};
}

// Where each record's latency field lies in @pages (offsets into it).
std::vector<size_t> value_offsets(tep_handle *tep, std::vector<uint8_t> &pages)
{
	std::vector<size_t> out;
	KbufferPtr kb(tep_kbuffer(tep));
	for (size_t off = 0; off + kPage <= pages.size(); off += kPage) {
		kbuffer_load_subbuffer(kb.get(), pages.data() + off);
		unsigned long long ts;
		for (void *d = kbuffer_read_event(kb.get(), &ts); d; d = kbuffer_next_event(kb.get(), &ts)) {
			tep_record rec{};
			rec.data = d;
			rec.size = kbuffer_event_size(kb.get());
			tep_event *ev = tep_find_event(tep, tep_data_type(tep, &rec));
			if (!ev)
				continue;
			for (const char *name : {"delta_ns", "duration_ns"})
				if (tep_format_field *f = tep_find_field(ev, name))
					out.push_back(size_t(static_cast<uint8_t *>(d) - pages.data()) + size_t(f->offset));
		}
	}
	return out;
}

uint64_t next(uint64_t &x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

int accuracy(uint64_t n)
{
	std::vector<uint64_t> v(n);
	Histogram h;
	uint64_t rng = 2463534242ULL;
	for (auto &x : v) {
		const uint64_t r = next(rng);
		x = 1000 + (r >> (20 + r % 24));
		h.record(x);
	}
	std::sort(v.begin(), v.end());
	double worst = 0;
	for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
		const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(p / 100 * double(n) - 1e-9)));
		const double exact = double(v[rank - 1]);
		worst = std::max(worst, std::fabs(double(h.percentile(p)) - exact) / exact);
	}
	std::printf("{\"values\": %llu, \"max_relative_error\": %.6g, \"bound\": %.6g}\n", (unsigned long long)n,
		    worst, Histogram::kRelativeError);
	return worst <= Histogram::kRelativeError ? 0 : 1;
}

// Print the one JSON line of a timed run of @events events (@context of
// them context events, or -1 for none counted) since @t0.
int report(uint64_t events, int64_t context, std::chrono::steady_clock::time_point t0)
{
	const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	rusage ru{};
	getrusage(RUSAGE_SELF, &ru);
	std::printf("{\"events\": %llu, ", (unsigned long long)events);
	if (context >= 0)
		std::printf("\"context_events\": %lld, ", (long long)context);
	std::printf("\"seconds\": %.6f, \"events_per_s\": %.0f, \"maxrss_kb\": %ld}\n", secs, double(events) / secs,
		    ru.ru_maxrss);
	return 0;
}

int context(const std::filesystem::path &dir, uint64_t rounds)
{
	TepPtr tep = tep_from_capture(dir, context_events());
	Decoder dec(tep.get());
	ContextDecoder ctx(tep.get());
	Analyzer an(UINT64_MAX);	// no hits: the context kept, pruned past 2 s
	Aggregator agg(AggregateOptions{});
	const std::map<std::string, std::vector<std::string>> spans;
	int64_t nctx = 0;
	dec.on_other([&](const OtherRecord &r) {
		if (const auto e = ctx.decode(r)) {
			an.context(*e);
			nctx++;
		}
	});
	std::vector<std::vector<uint8_t>> cpus;
	for (int c = 0; c < 2; c++)
		cpus.push_back(read_all((dir / ("tracker.cpu" + std::to_string(c) + ".raw")).string()));
	std::vector<Sample> samples;
	uint64_t events = 0;
	const auto t0 = std::chrono::steady_clock::now();
	for (uint64_t r = 0; r < rounds; r++) {
		for (int c = 0; c < 2; c++) {
			for (size_t off = 0; off + kPage <= cpus[c].size(); off += kPage) {
				uint8_t *page = cpus[c].data() + off;
				uint64_t ts;
				std::memcpy(&ts, page, sizeof(ts));
				ts += 10000000000ULL;
				std::memcpy(page, &ts, sizeof(ts));
				samples.clear();
				const PageResult pr = dec.decode_page(page, kPage, c, samples);
				events += pr.events + pr.other;
				for (const auto &s : samples) {
					agg.add(s, dec.device_name(s.dev), spans);
					an.sample(s, dec.device_name(s.dev));
				}
			}
		}
		an.take(false);
	}
	return report(events, nctx, t0);
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc == 3 && std::string(argv[1]) == "--accuracy")
		return accuracy(std::stoull(argv[2]));
	if (argc == 4 && std::string(argv[1]) == "--context")
		return context(argv[2], std::stoull(argv[3]));
	if (argc != 3) {
		std::cerr << "usage: decode_bench FIXTURE_DIR EVENTS | --accuracy VALUES | --context FIXTURE_DIR ROUNDS\n";
		return 2;
	}
	const std::string dir = argv[1];
	const uint64_t want = std::stoull(argv[2]);
	TepPtr tep = tep_from_capture(dir);
	std::vector<uint8_t> pages = read_all(dir + "/normal.cpu0.raw");
	const auto more = read_all(dir + "/normal.cpu1.raw");
	pages.insert(pages.end(), more.begin(), more.end());
	const std::vector<size_t> fields = value_offsets(tep.get(), pages);

	Decoder dec(tep.get());
	Aggregator agg(AggregateOptions{});
	const std::map<std::string, std::vector<std::string>> spans;
	std::vector<Sample> samples;
	samples.reserve(4096);
	uint64_t events = 0, rng = 88172645463325252ULL;
	const auto t0 = std::chrono::steady_clock::now();
	while (events < want) {
		for (size_t off : fields) {
			const uint64_t r = next(rng);
			const uint64_t base = 1ULL << (14 + r % 6);	// 16 us .. 1 ms, log-uniform
			const uint64_t v = base + (r >> 8) % base;
			std::memcpy(pages.data() + off, &v, sizeof(v));
		}
		for (size_t off = 0; off + kPage <= pages.size() && events < want; off += kPage) {
			samples.clear();
			const PageResult r = dec.decode_page(pages.data() + off, kPage, int(off / kPage) % 2, samples);
			for (const auto &s : samples)
				agg.add(s, dec.device_name(s.dev), spans);
			events += r.events;
		}
	}
	uint64_t recorded = 0;
	for (const auto &[k, h] : agg.totals())
		recorded += h.count();
	if (recorded != events) {
		std::cerr << "decode_bench: " << events << " events decoded, " << recorded << " in the histograms\n";
		return 1;
	}
	return report(events, -1, t0);
}
