// SPDX-License-Identifier: GPL-2.0
// The decoder on raw pages captured from real guests (ci/capture-fixtures.sh):
// it must find exactly the events the kernel's own text output shows, with
// the same values, and report the pages where the ring buffer lost events.
#define BOOST_TEST_MODULE kprof_decoder
#include <boost/test/unit_test.hpp>

#include "core/context.hpp"
#include "core/decoder.hpp"
#include "core/report.hpp"
#include "core/tep.hpp"

#include <filesystem>
#include <fstream>
#include <cstring>
#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <sstream>
#include <unistd.h>
#include <string>
#include <tuple>

namespace fs = std::filesystem;
using namespace kprof;

namespace {

struct Totals {
	std::map<std::string, uint64_t> count;	// "event dev" -> events
	std::map<std::string, uint64_t> sum;	// "event dev" -> sum of the latency field
	std::map<std::string, uint64_t> aux;	// "event dev" -> sum of the extra field
	std::map<std::string, uint64_t> flags;	// "event dev" -> events with the flag field set
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
	std::map<int, int64_t> missed_by_cpu;
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
			r.missed_by_cpu[cpu] += pr.missed;
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
			// The first consuming read of a CPU reports every event the
			// buffer overwrote: the page headers add up to the CPU's
			// overrun figure in per_cpu/cpuN/stats, exactly.
			for (int cpu = 0; cpu < 2; cpu++) {
				std::ifstream in(dir / ("overrun.cpu" + std::to_string(cpu) + ".stats"));
				std::stringstream ss;
				ss << in.rdbuf();
				const RingStats st = parse_ring_stats(ss.str());
				BOOST_TEST_INFO("cpu" << cpu);
				BOOST_TEST(st.overrun > 0u);
				BOOST_TEST(got.missed_by_cpu[cpu] == int64_t(st.overrun));
			}
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

namespace {

// Pages made by hand in the ring buffer's layout, with a real kprof record
// taken from a fixture page.
struct PageMaker {
	Decoder &d;
	std::vector<uint8_t> record;	// one event's data, padded to 4 bytes

	static constexpr uint32_t kTimeExtend = 30;

	std::vector<uint8_t> page(const std::vector<uint8_t> &data, uint64_t commit_flags, uint64_t stored = 0) const
	{
		std::vector<uint8_t> p(std::max<size_t>(4096, 16 + data.size() + 8), 0);	// room for @stored
		const uint64_t commit = data.size() | commit_flags;
		std::memcpy(p.data() + 8, &commit, 8);
		if (!data.empty())	// memcpy from an empty vector's nullptr is UB (UBSan)
			std::memcpy(p.data() + 16, data.data(), data.size());
		std::memcpy(p.data() + 16 + data.size(), &stored, 8);
		return p;
	}
	// A record header: type_len = size / 4, time delta 1.
	std::vector<uint8_t> event() const
	{
		std::vector<uint8_t> e(4);
		const uint32_t h = (1u << 5) | uint32_t(record.size() / 4);
		std::memcpy(e.data(), &h, 4);
		e.insert(e.end(), record.begin(), record.end());
		return e;
	}
	static std::vector<uint8_t> time_extend()
	{
		std::vector<uint8_t> e(8, 0);
		const uint32_t h = (5u << 5) | kTimeExtend, hi = 1;
		std::memcpy(e.data(), &h, 4);
		std::memcpy(e.data() + 4, &hi, 4);
		return e;
	}
};

std::vector<uint8_t> first_record(Decoder &d, const fs::path &dir, tep_handle *tep)
{
	std::ifstream in(dir / "normal.cpu0.raw", std::ios::binary);
	std::vector<char> page(4096);
	BOOST_REQUIRE(in.read(page.data(), page.size()));
	KbufferPtr kb(tep_kbuffer(tep));
	BOOST_REQUIRE(kbuffer_load_subbuffer(kb.get(), page.data()) == 0);
	unsigned long long ts;
	const auto *data = static_cast<const uint8_t *>(kbuffer_read_event(kb.get(), &ts));
	BOOST_REQUIRE(data);
	const int size = kbuffer_event_size(kb.get());
	BOOST_REQUIRE(size > 0);
	std::vector<uint8_t> rec(data, data + size);
	rec.resize((rec.size() + 3) / 4 * 4, 0);
	std::vector<Sample> out;
	(void)d;
	return rec;
}

constexpr uint64_t kMissed = 1ULL << 31, kStored = 1ULL << 30;

}  // namespace

// A page that begins with a time extend still reports its lost events
// (kbuffer_missed_events() says 0 once its cursor has moved past one).
BOOST_AUTO_TEST_CASE(crafted_pages_report_missed_events)
{
	const auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	PageMaker m{d, first_record(d, dir, tep.get())};
	std::vector<uint8_t> data = PageMaker::time_extend();
	const auto ev = m.event();
	data.insert(data.end(), ev.begin(), ev.end());

	std::vector<Sample> out;
	auto p = m.page(data, kMissed | kStored, 42);
	auto r = d.decode_page(p.data(), p.size(), 0, out);
	BOOST_TEST(!r.bad_page);
	BOOST_TEST(r.events == 1u);
	BOOST_TEST(r.missed == 42);
	BOOST_TEST(r.bytes == data.size());	// the header's length, for the reader's pacing
	BOOST_TEST(out.size() == 1u);

	p = m.page(data, kMissed);	// flagged, no count stored
	BOOST_TEST(d.decode_page(p.data(), p.size(), 0, out).missed == -1);
	p = m.page(data, 0);
	BOOST_TEST(d.decode_page(p.data(), p.size(), 0, out).missed == 0);
}

BOOST_AUTO_TEST_CASE(crafted_pages_that_lie_are_not_read)
{
	const auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	PageMaker m{d, first_record(d, dir, tep.get())};
	const auto ev = m.event();
	std::vector<Sample> out;

	// A commit length beyond the page: the page is invalid, nothing read.
	auto p = m.page(ev, 0);
	const uint64_t huge = 5000;
	std::memcpy(p.data() + 8, &huge, 8);
	auto r = d.decode_page(p.data(), p.size(), 0, out);
	BOOST_TEST(r.bad_page);
	BOOST_TEST(r.events == 0u);
	BOOST_TEST(out.empty());

	// A record cut by the commit length: invalid, never decoded.
	std::vector<uint8_t> cut(ev.begin(), ev.begin() + ev.size() / 2);
	p = m.page(cut, 0);
	r = d.decode_page(p.data(), p.size(), 0, out);
	BOOST_TEST(r.events == 0u);
	BOOST_TEST(r.invalid + r.other >= 1u);
	BOOST_TEST(out.empty());

	// A bad type_len: a record claiming 112 bytes in a 60-byte page.
	std::vector<uint8_t> bad = ev;
	const uint32_t h = (1u << 5) | 28u;
	std::memcpy(bad.data(), &h, 4);
	p = m.page(bad, 0);
	r = d.decode_page(p.data(), p.size(), 0, out);
	BOOST_TEST(r.events == 0u);
	BOOST_TEST(out.empty());

	// A page shorter than its header.
	BOOST_TEST(d.decode_page(p.data(), 12, 0, out).bad_page);
}

// Records whose length does not move forward. kbuffer follows them without a
// check, so decode_page() hung in kbuffer_next_event() (fuzz.decoder found a
// type-0 record whose length pointed back; a padding record pointing at
// itself loops inside kbuffer). Such pages are bad, read no further, and
// return. A padding that fills the page to its end, as the kernel writes
// one, is still read past.
BOOST_AUTO_TEST_CASE(records_that_do_not_move_forward_are_not_followed)
{
	const auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	PageMaker m{d, first_record(d, dir, tep.get())};
	const auto ev = m.event();
	auto record = [](uint32_t type_len, uint32_t word) {
		std::vector<uint8_t> r(8);
		const uint32_t h = (1u << 5) | type_len;
		std::memcpy(r.data(), &h, 4);
		std::memcpy(r.data() + 4, &word, 4);
		return r;
	};
	auto decode = [&](const std::vector<uint8_t> &tail) {
		std::vector<uint8_t> data = ev;
		data.insert(data.end(), tail.begin(), tail.end());
		data.insert(data.end(), ev.begin(), ev.end());
		const auto p = m.page(data, 0);
		std::vector<Sample> out;
		const auto r = d.decode_page(p.data(), p.size(), 0, out);
		BOOST_TEST(out.size() == r.events);
		return r;
	};
	constexpr uint32_t kPadding = 29;
	for (const auto &bad : {record(kPadding, uint32_t(-4)),	// padding: next is itself
				record(kPadding, uint32_t(-40)),	// padding: back
				record(kPadding, 5000),			// padding: past the page
				record(0, uint32_t(-8)),		// type 0: back
				record(0, uint32_t(-4)),		// type 0: next is itself
				record(0, 0x7ffffffc)}) {		// type 0: past the page
		const auto r = decode(bad);
		BOOST_TEST(r.bad_page);
		BOOST_TEST(r.events == 0u);
	}
	// A page ending in padding to its last byte, as the kernel leaves one.
	std::vector<uint8_t> data = ev;
	const auto pad = record(kPadding, uint32_t(4080 - data.size() - 4));
	data.insert(data.end(), pad.begin(), pad.end());
	data.resize(4080, 0);
	const auto p = m.page(data, 0);
	std::vector<Sample> out;
	const auto r = d.decode_page(p.data(), p.size(), 0, out);
	BOOST_TEST(!r.bad_page);
	BOOST_TEST(r.events == 1u);
}

// Random commit lengths, random records, random flags: never a crash, never
// an event decoded from outside the committed data.
BOOST_AUTO_TEST_CASE(fuzzed_pages)
{
	const auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	PageMaker m{d, first_record(d, dir, tep.get())};
	std::mt19937_64 rng(12345);
	std::vector<Sample> out;
	uint64_t decoded = 0;
	for (int i = 0; i < 20000; i++) {
		std::vector<uint8_t> data;
		const int nev = int(rng() % 5);
		for (int e = 0; e < nev; e++) {
			const auto ev = rng() % 3 ? m.event() : PageMaker::time_extend();
			data.insert(data.end(), ev.begin(), ev.end());
		}
		// Corrupt a few bytes anywhere in the data.
		for (int k = int(rng() % 4); k > 0 && !data.empty(); k--)
			data[rng() % data.size()] = uint8_t(rng());
		auto p = m.page(data, (rng() % 2 ? kMissed : 0) | (rng() % 2 ? kStored : 0), rng() % 100);
		uint64_t commit = data.size();
		if (rng() % 4 == 0)
			commit = rng() % 5000;	// a lying length
		commit |= rng() % 2 ? kMissed : 0;
		std::memcpy(p.data() + 8, &commit, 8);
		out.clear();
		const size_t size = rng() % 8 ? p.size() : rng() % p.size();
		const auto r = d.decode_page(p.data(), size, 0, out);
		const uint64_t len = commit & ~(kMissed | kStored);
		if (len > (size < 16 ? 0 : size - 16))
			BOOST_REQUIRE(r.bad_page);
		BOOST_REQUIRE(out.size() == r.events);
		BOOST_REQUIRE(r.events * (m.record.size() + 4) <= len);
		decoded += r.events;
	}
	BOOST_TEST(decoded > 1000u);	// the fuzzer did reach valid events
}

// kprofctl reads only the kprof formats from tracefs: the tep made from a
// tracefs-like tree decodes a capture exactly as the capture's own does.
BOOST_AUTO_TEST_CASE(tep_from_a_tracefs_tree)
{
	for (const auto &dir : captures()) {
		BOOST_TEST_CONTEXT(dir.filename().string())
		{
			const fs::path t = fs::temp_directory_path() / ("kprof-tracefs-" + std::to_string(getpid()));
			fs::remove_all(t);
			fs::create_directories(t / "events" / "kprof");
			fs::copy_file(dir / "header_page", t / "events" / "header_page");
			// A header page but no kprof format: not a tep without events.
			BOOST_CHECK_THROW(tep_from_tracefs(t), std::runtime_error);
			std::ofstream(t / "events" / "kprof" / "enable") << "0\n";
			for (const auto &e : fs::directory_iterator(dir / "formats")) {
				fs::create_directories(t / "events" / "kprof" / e.path().filename());
				fs::copy_file(e.path(), t / "events" / "kprof" / e.path().filename() / "format");
			}
			auto tep = tep_from_tracefs(t);
			fs::remove_all(t);
			Decoder d(tep.get());
			auto got = decode_files(d, dir, "normal", 2);
			auto want = from_text(dir / "normal.txt");
			BOOST_TEST(got.totals.events == want.events);
			BOOST_TEST(got.totals.sum == want.sum);
			BOOST_TEST(got.invalid == 0u);
		}
	}
}

namespace {

// kprof_girq_* in a text trace: "event irq name" -> count, sum of the
// latency field, sum of the extra field.
Totals girq_from_text(const fs::path &file)
{
	static const std::map<std::string, std::pair<const char *, const char *>> fields = {
		{"kprof_girq_handler", {"duration_ns", "ret"}},
		{"kprof_girq_wake", {"delta_ns", "coalesced"}},
		{"kprof_girq_thread", {"delta_ns", "coalesced"}},
	};
	Totals t;
	std::ifstream in(file);
	BOOST_REQUIRE(in);
	for (std::string line; std::getline(in, line);)
		for (const auto &[ev, f] : fields) {
			const auto at = line.find(" " + ev + ": ");
			if (at == std::string::npos)
				continue;
			// " irq=" is the first field: make field() find it.
			const std::string rest = line.substr(at + ev.size() + 2);
			const std::string key = ev + " " + field(rest, "irq") + " " + field(rest, "name");
			t.count[key]++;
			t.sum[key] += std::stoull(field(rest, f.first));
			t.aux[key] += std::stoull(field(rest, f.second));
			// busy= where the kernel's format has it (not in older captures)
			if (const std::string b = field(rest, "busy"); !b.empty() && b != "0")
				t.flags[key]++;
			t.events++;
		}
	return t;
}

// The context events in a text trace, each as "event a b name": the values
// the decoder puts in CtxEvent (sorted, to compare with the decoder's,
// which reads CPU by CPU).
std::vector<std::string> context_from_text(const fs::path &file)
{
	// event -> the text fields for a, b and name_a (nullptr: none)
	static const std::map<std::string, std::array<const char *, 3>> fields = {
		{"irq_handler_entry", {"irq", nullptr, "name"}},
		{"irq_handler_exit", {"irq", "ret", nullptr}},
		{"softirq_entry", {"vec", nullptr, nullptr}},
		{"softirq_exit", {"vec", nullptr, nullptr}},
		{"sched_switch", {"prev_pid", "next_pid", "prev_comm"}},
		{"sched_waking", {"pid", "target_cpu", "comm"}},
	};
	std::vector<std::string> out;
	std::ifstream in(file);
	for (std::string line; std::getline(in, line);)
		for (const auto &[ev, f] : fields) {
			const auto at = line.find(" " + ev + ": ");
			if (at == std::string::npos)
				continue;
			const std::string rest = line.substr(at + ev.size() + 1);
			// irq_handler_exit prints its ret as "handled" (any non-zero) or "unhandled".
			auto num = [&](const char *n) -> std::string {
				if (!n)
					return "0";
				const std::string v = field(rest, n);
				return v == "handled" ? "1" : v == "unhandled" ? "0" : std::to_string(std::stol(v));
			};
			out.push_back(ev + " " + num(f[0]) + " " + num(f[1]) + " " + (f[2] ? field(rest, f[2]) : ""));
		}
	std::sort(out.begin(), out.end());
	return out;
}

std::string ctx_line(const CtxEvent &e)
{
	static const char *const names[] = {"irq_handler_entry", "irq_handler_exit", "softirq_entry",
					    "softirq_exit",      "sched_switch",     "sched_waking"};
	const bool named = e.kind == CtxEvent::IrqEntry || e.kind == CtxEvent::Switch || e.kind == CtxEvent::Waking;
	const int b = e.kind == CtxEvent::IrqExit ? e.b != 0 : e.b;	// as the text prints it
	return std::string(names[e.kind]) + " " + std::to_string(e.a) + " " + std::to_string(b) + " " +
	       std::string(named ? e.name_a : "");
}

}  // namespace

// The IRQ tracker's events and the kernel's irq and sched events, captured
// together (as kprofctl irq -T collects them): the decoder and the context
// decoder find exactly what the kernel's text shows, with the same values.
BOOST_AUTO_TEST_CASE(tracker_capture_matches_kernel_text)
{
	for (const auto &dir : captures()) {
		BOOST_TEST_CONTEXT(dir.filename().string())
		{
			auto tep = tep_from_capture(dir, context_events());
			Decoder d(tep.get());
			ContextDecoder ctx(tep.get());
			std::vector<std::string> got_ctx;
			uint64_t undecoded = 0, switches = 0;
			d.on_other([&](const OtherRecord &r) {
				const auto e = ctx.decode(r);
				if (!e) {
					undecoded++;
					return;
				}
				got_ctx.push_back(ctx_line(*e));
				switches += e->kind == CtxEvent::Switch;
				BOOST_TEST_REQUIRE(e->cpu == r.cpu);
			});
			Totals got;
			for (int cpu = 0; cpu < 2; cpu++) {
				std::ifstream in(dir / ("tracker.cpu" + std::to_string(cpu) + ".raw"), std::ios::binary);
				BOOST_REQUIRE(in);
				std::vector<char> page(4096);
				std::vector<Sample> out;
				while (in.read(page.data(), page.size())) {
					const auto pr = d.decode_page(page.data(), page.size(), cpu, out);
					BOOST_TEST_REQUIRE(pr.missed == 0);
					BOOST_TEST_REQUIRE(pr.invalid == 0u);
				}
				for (const auto &s : out) {
					BOOST_TEST_REQUIRE((source_of(s.kind) == Source::Tracker));
					const std::string key = std::string(event_name(s.kind)) + " " + std::to_string(s.irq) + " " +
								d.device_name(s.dev);
					got.count[key]++;
					got.sum[key] += s.value_ns;
					got.aux[key] += s.aux;
					if (s.flag)
						got.flags[key]++;
					got.events++;
				}
			}
			const Totals want = girq_from_text(dir / "tracker.txt");
			BOOST_TEST(got.flags == want.flags);
			BOOST_TEST(want.events > 500u);
			BOOST_TEST(got.count == want.count);
			BOOST_TEST(got.sum == want.sum);
			BOOST_TEST(got.aux == want.aux);
			BOOST_TEST(undecoded == 0u);
			const auto want_ctx = context_from_text(dir / "tracker.txt");
			std::sort(got_ctx.begin(), got_ctx.end());
			BOOST_TEST(switches > 100u);
			BOOST_TEST(got_ctx.size() == want_ctx.size());
			BOOST_TEST((got_ctx == want_ctx));
		}
	}
}

namespace {

// Every record kbuffer finds in the @length bytes of the page at @page:
// its data, size and time stamp, and the same from for_each_record().
using Walk = std::vector<std::tuple<const uint8_t *, int, uint64_t>>;

std::pair<Walk, Walk> both_walks(tep_handle *tep, const uint8_t *page, size_t size)
{
	Walk kb_walk, ours;
	KbufferPtr kb(tep_kbuffer(tep));
	BOOST_REQUIRE(kbuffer_load_subbuffer(kb.get(), const_cast<uint8_t *>(page)) == 0);
	unsigned long long ts;
	for (void *d = kbuffer_read_event(kb.get(), &ts); d; d = kbuffer_next_event(kb.get(), &ts))
		kb_walk.emplace_back(static_cast<const uint8_t *>(d), kbuffer_event_size(kb.get()), ts);
	const ByteOrder order = byte_order_of(tep);
	const auto hdr = parse_page_header(page, size, size_t(tep_get_header_page_size(tep)), order);
	BOOST_REQUIRE(hdr);
	BOOST_REQUIRE(records_walkable(page + hdr->data_offset, size - hdr->data_offset, hdr->length, order));
	for_each_record(page + hdr->data_offset, hdr->length, order.load(page, 8), order, [&](const RawRecord &r) {
		ours.emplace_back(r.data, r.size, r.ts);
		return true;
	});
	return {kb_walk, ours};
}

}  // namespace

// The decoder walks pages itself (for_each_record), no longer through
// kbuffer: on every page the guests wrote (the fixtures), the two find the
// same records, at the same addresses, with the same sizes and time stamps.
BOOST_AUTO_TEST_CASE(record_walk_matches_kbuffer_on_captured_pages)
{
	uint64_t records = 0, pages = 0;
	for (const auto &dir : captures()) {
		auto tep = tep_from_capture(dir);
		for (const auto &e : fs::directory_iterator(dir)) {
			if (e.path().extension() != ".raw")
				continue;
			std::ifstream in(e.path(), std::ios::binary);
			std::vector<uint8_t> page(4096);
			while (in.read(reinterpret_cast<char *>(page.data()), page.size())) {
				const auto [kb_walk, ours] = both_walks(tep.get(), page.data(), page.size());
				BOOST_TEST_REQUIRE((ours == kb_walk), e.path() << " page " << pages);
				records += ours.size();
				pages++;
			}
		}
	}
	BOOST_TEST(pages > 100u);
	BOOST_TEST(records > 10000u);
}

// Pages of every record type the ring buffer writes, in random order with
// random time deltas: data records short and long (type 1..28 and 0), time
// extends, absolute time stamps and padding, on a page time stamp with
// high bits set. kbuffer and for_each_record() agree on each.
BOOST_AUTO_TEST_CASE(record_walk_matches_kbuffer_on_random_pages)
{
	auto tep = tep_from_capture(captures().front());
	std::mt19937_64 rng(2718);
	uint64_t stamps = 0, records = 0;
	for (int i = 0; i < 5000; i++) {
		std::vector<uint8_t> data;
		auto word = [&](uint32_t w) {
			data.resize(data.size() + 4);
			std::memcpy(data.data() + data.size() - 4, &w, 4);
		};
		while (data.size() < 3800) {
			const uint32_t delta = uint32_t(rng() & ((1u << 27) - 1)) >> (rng() % 27);
			const auto kind = rng() % 6;
			if (kind == 0) {		// time extend or absolute stamp
				const uint32_t type = rng() % 2 ? rb::kTimeExtend : rb::kTimeStamp;
				stamps += type == rb::kTimeStamp;
				word(delta << 5 | type);
				word(uint32_t(rng()));
			} else if (kind == 1) {	// padding over a few words
				const uint32_t words = uint32_t(rng() % 4);
				word(delta << 5 | rb::kPadding);
				word(4 + 4 * words);	// from the length word on
				data.resize(data.size() + 4 * words, 0);
			} else if (kind == 2) {	// type 0: the length in the next word
				const uint32_t len = 4 * (29 + uint32_t(rng() % 8));
				word(delta << 5);
				word(len + 4);
				data.resize(data.size() + len, 0xab);
				records++;
			} else {
				const uint32_t words = 1 + uint32_t(rng() % 28);
				word(delta << 5 | words);
				data.resize(data.size() + 4 * words, 0xcd);
				records++;
			}
		}
		std::vector<uint8_t> page(4096, 0);
		const uint64_t page_ts = (rng() | 0xf8ULL << 56) >> (rng() % 2 ? 0 : 8);
		const uint64_t commit = data.size();
		std::memcpy(page.data(), &page_ts, 8);
		std::memcpy(page.data() + 8, &commit, 8);
		std::memcpy(page.data() + 16, data.data(), data.size());
		const auto [kb_walk, ours] = both_walks(tep.get(), page.data(), page.size());
		BOOST_TEST_REQUIRE((ours == kb_walk), "random page " << i);
	}
	BOOST_TEST(stamps > 1000u);
	BOOST_TEST(records > 100000u);
}

namespace {

// A record's fields, to compare decodes of the same records.
std::vector<std::tuple<int, uint32_t, uint64_t, uint64_t, uint32_t, uint64_t>> fields_of(const std::vector<Sample> &v)
{
	std::vector<std::tuple<int, uint32_t, uint64_t, uint64_t, uint32_t, uint64_t>> f;
	for (const auto &s : v)
		f.emplace_back(int(s.kind), s.dev, s.ts, s.value_ns, s.aux, s.seq);
	return f;
}

// @page (an x86-64 capture: an 8-byte commit) as the writer left it when
// its records ended at @length.
std::vector<uint8_t> cut_at(const std::vector<uint8_t> &page, uint64_t length)
{
	std::vector<uint8_t> p = page;
	uint64_t commit;
	std::memcpy(&commit, p.data() + 8, 8);
	commit = (commit & ~uint64_t(0x3fffffff)) | length;
	std::memcpy(p.data() + 8, &commit, 8);
	return p;
}

}  // namespace

// A mapped reader page is handed out while the writer still adds to it:
// first its records up to some point, then the same page again with @skip.
// Together the two decodes must give every record of the page once, with
// the time stamps of a decode of the whole page (the skipped records are
// walked for their deltas), and the page's loss once.
BOOST_AUTO_TEST_CASE(a_page_handed_out_in_two_parts_decodes_as_one)
{
	const auto dir = captures().front();
	auto tep = tep_from_capture(dir);
	Decoder d(tep.get());
	std::ifstream in(dir / "normal.cpu0.raw", std::ios::binary);
	std::vector<uint8_t> page(4096);
	BOOST_REQUIRE(in.read(reinterpret_cast<char *>(page.data()), page.size()));
	const uint64_t length = d.page_length(page.data(), page.size());
	BOOST_REQUIRE(length > 0u);

	// The end of the middle record: where the first part stops.
	std::vector<uint64_t> ends;
	const uint8_t *data = page.data() + 16;
	for_each_record(data, length, 0, ByteOrder(), [&](const RawRecord &r) {
		ends.push_back(uint64_t(r.data + r.size - data));
		return true;
	});
	BOOST_REQUIRE(ends.size() >= 4u);
	const uint64_t cut = ends[ends.size() / 2];

	std::vector<Sample> whole, parts;
	BOOST_REQUIRE(d.decode_page(page.data(), page.size(), 0, whole).events == ends.size());

	std::vector<uint8_t> copy(page.size());
	const auto first = cut_at(page, cut);
	BOOST_TEST(d.copy_live_page(first.data(), first.size(), copy.data()) == cut);
	const auto r1 = d.decode_page(copy.data(), copy.size(), 0, parts);
	BOOST_TEST(r1.events == ends.size() / 2 + 1);
	BOOST_TEST(r1.bytes == cut);

	BOOST_TEST(d.copy_live_page(page.data(), page.size(), copy.data()) == length);
	const auto r2 = d.decode_page(copy.data(), copy.size(), 0, parts, cut);
	BOOST_TEST(r2.events == ends.size() - (ends.size() / 2 + 1));
	BOOST_TEST(r2.bytes == length - cut);
	BOOST_TEST((fields_of(parts) == fields_of(whole)));

	// A loss the header reports is counted with the first part only.
	auto lossy = cut_at(page, cut);
	uint64_t commit;
	std::memcpy(&commit, lossy.data() + 8, 8);
	commit |= kMissed | kStored;
	std::memcpy(lossy.data() + 8, &commit, 8);
	const uint64_t stored = 7;
	std::memcpy(lossy.data() + 16 + cut, &stored, 8);
	std::vector<Sample> out;
	BOOST_TEST(d.decode_page(lossy.data(), lossy.size(), 0, out).missed == 7);
	BOOST_TEST(d.decode_page(lossy.data(), lossy.size(), 0, out, cut / 2).missed == 0);
}
