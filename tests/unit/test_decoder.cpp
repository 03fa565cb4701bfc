// SPDX-License-Identifier: GPL-2.0
// The decoder on raw pages captured from real guests (ci/capture-fixtures.sh):
// it must find exactly the events the kernel's own text output shows, with
// the same values, and report the pages where the ring buffer lost events.
#define BOOST_TEST_MODULE kprof_decoder
#include <boost/test/unit_test.hpp>

#include "decoder.hpp"
#include "tep.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using namespace kprof;

namespace {

struct Totals {
	std::map<std::string, uint64_t> count;	// "event dev" -> events
	std::map<std::string, uint64_t> sum;	// "event dev" -> sum of the latency field
	std::map<std::string, uint64_t> aux;	// "event dev" -> sum of the extra field
	uint64_t events = 0;
};

std::string field(const std::string &line, const std::string &name)
{
	auto p = line.find(" " + name + "=");
	if (p == std::string::npos)
		return "";
	p += name.size() + 2;
	return line.substr(p, line.find(' ', p) - p);
}

// What the kernel printed in the instance's "trace" file for the same buffer.
Totals from_text(const fs::path &file)
{
	static const std::map<std::string, std::pair<const char *, const char *>> fields = {
		{"kprof_irq_thread_latency", {"delta_ns", "coalesced"}},
		{"kprof_irq_handler", {"duration_ns", nullptr}},
		{"kprof_batch", {"duration_ns", "packets"}},
		{"kprof_span", {"delta_ns", "id"}},
	};
	Totals t;
	std::ifstream in(file);
	BOOST_REQUIRE(in);
	for (std::string line; std::getline(in, line);) {
		if (line.empty() || line[0] == '#')
			continue;
		for (const auto &[ev, f] : fields) {
			if (line.find(" " + ev + ": ") == std::string::npos)
				continue;
			const std::string key = ev + " " + field(line, "dev");
			t.count[key]++;
			t.sum[key] += std::stoull(field(line, f.first));
			if (f.second)
				t.aux[key] += std::stoull(field(line, f.second));
			t.events++;
		}
	}
	return t;
}

struct Decoded {
	Totals totals;
	std::vector<int64_t> missed;	// per page
	uint64_t invalid = 0, other = 0, bad_pages = 0;
};

Decoded decode_files(Decoder &d, const fs::path &dir, const std::string &which, int cpus)
{
	Decoded r;
	for (int cpu = 0; cpu < cpus; cpu++) {
		std::ifstream in(dir / (which + ".cpu" + std::to_string(cpu) + ".raw"), std::ios::binary);
		BOOST_REQUIRE(in);
		std::vector<char> page(4096);
		std::vector<Sample> out;
		while (in.read(page.data(), page.size())) {
			auto pr = d.decode_page(page.data(), page.size(), cpu, out);
			r.missed.push_back(pr.missed);
			r.invalid += pr.invalid;
			r.other += pr.other;
			r.bad_pages += pr.bad_page;
		}
		for (const auto &s : out) {
			const std::string key = std::string(event_name(s.kind)) + " " + d.device_name(s.dev);
			r.totals.count[key]++;
			r.totals.sum[key] += s.value_ns;
			if (s.kind != EventKind::IrqHandler)
				r.totals.aux[key] += s.aux;
			r.totals.events++;
			BOOST_TEST_REQUIRE(s.cpu == cpu);
			if (s.kind == EventKind::IrqThreadLatency)
				BOOST_TEST_REQUIRE((s.hard_cpu == 0 || s.hard_cpu == 1));
		}
	}
	return r;
}

std::vector<fs::path> captures()
{
	std::vector<fs::path> dirs;
	for (const auto &e : fs::directory_iterator(KPROF_FIXTURES))
		dirs.push_back(e.path());
	std::sort(dirs.begin(), dirs.end());
	return dirs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fixtures_present)
{
	// At least the 6.1 and 6.12 layouts (__assign_str changed in 6.10).
	BOOST_TEST(captures().size() >= 2u);
}

BOOST_AUTO_TEST_CASE(lossless_capture_matches_kernel_text)
{
	for (const auto &dir : captures()) {
		BOOST_TEST_CONTEXT(dir.filename().string())
		{
			auto tep = tep_from_capture(dir);
			Decoder d(tep.get());
			for (auto k : {EventKind::IrqThreadLatency, EventKind::IrqHandler, EventKind::Batch, EventKind::Span})
				BOOST_TEST(d.knows(k));
			auto got = decode_files(d, dir, "normal", 2);
			auto want = from_text(dir / "normal.txt");
			BOOST_TEST(want.events > 1000u);
			BOOST_TEST(got.totals.events == want.events);
			BOOST_TEST(got.totals.count == want.count);
			BOOST_TEST(got.totals.sum == want.sum);
			BOOST_TEST(got.totals.aux == want.aux);
			BOOST_TEST(got.invalid == 0u);
			BOOST_TEST(got.other == 0u);
			BOOST_TEST(got.bad_pages == 0u);
			for (auto m : got.missed)
				BOOST_TEST(m == 0);
			BOOST_TEST(d.device_count() == 2u);
		}
	}
}

BOOST_AUTO_TEST_CASE(overrun_capture_reports_missed_events)
{
	for (const auto &dir : captures()) {
		BOOST_TEST_CONTEXT(dir.filename().string())
		{
			auto tep = tep_from_capture(dir);
			Decoder d(tep.get());
			auto got = decode_files(d, dir, "overrun", 2);
			auto want = from_text(dir / "overrun.txt");
			BOOST_TEST(got.totals.count == want.count);
			BOOST_TEST(got.totals.sum == want.sum);
			int64_t lossy_pages = 0;
			for (auto m : got.missed)
				lossy_pages += m != 0;
			BOOST_TEST(lossy_pages > 0);
		}
	}
}

BOOST_AUTO_TEST_CASE(garbage_is_rejected_not_trusted)
{
	auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	std::vector<Sample> out;
	std::vector<char> zeros(4096, 0);
	auto r = d.decode_page(zeros.data(), zeros.size(), 0, out);
	BOOST_TEST(out.empty());
	BOOST_TEST(r.events == 0u);
	// A short read is not a page.
	auto shortr = d.decode_page(zeros.data(), 8, 0, out);
	BOOST_TEST(shortr.bad_page);
	// A tep handle without kprof formats (module not loaded) is an error.
	TepPtr empty(tep_alloc());
	BOOST_CHECK_THROW(Decoder{empty.get()}, std::runtime_error);
}
