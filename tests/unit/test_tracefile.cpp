// SPDX-License-Identifier: GPL-2.0
// report -i's reader on a file trace-cmd recorded in a guest
// (ci/capture-fixtures.sh 6.1 tracedat), against trace-cmd's own text of
// the same file: every kprof event read, with the same values.
#define BOOST_TEST_MODULE kprof_tracefile
#include <boost/test/unit_test.hpp>

#include "bigendian_tracedat.hpp"
#include "core/tep.hpp"
#include "core/tracedat.hpp"
#include "sys/tracefile.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <iterator>
#include <regex>

#include <unistd.h>

using namespace kprof;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(KPROF_FIXTURES) / "6.1.0-57-amd64";

// From trace-cmd report's text: per (label, device) the count and max.
struct Text {
	uint64_t events = 0;
	std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> rows;
	std::vector<std::string> lines;	// the kprof events' lines
};

Text read_text(std::istream &in)
{
	Text t;
	const std::regex dev_event(R"( kprof_(irq_thread_latency|irq_handler|batch): +dev=(\S+) .*(delta|duration)_ns=(\d+))");
	std::smatch m;
	for (std::string line; std::getline(in, line);) {
		if (line.find(" kprof_") == std::string::npos)
			continue;
		t.events++;
		t.lines.push_back(line);
		if (!std::regex_search(line, m, dev_event))
			continue;
		auto &[count, max] = t.rows[{m[1], m[2]}];
		count++;
		max = std::max<uint64_t>(max, std::stoull(m[4]));
	}
	return t;
}

Text read_text()
{
	std::ifstream in(kDir / "trace.txt");
	return read_text(in);
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_what_trace_cmd_shows)
{
	const Text text = read_text();
	BOOST_REQUIRE(text.events > 1000);
	const auto f = read_trace_file((kDir / "trace.dat").string(), {}, {});
	BOOST_TEST(f->events == text.events);
	BOOST_TEST(f->invalid == 0u);
	uint64_t header_missed = 0;
	for (const auto &[cpu, l] : f->cpus)
		header_missed += l.header_missed + l.lossy_pages;
	BOOST_TEST(header_missed == 0u);
	BOOST_TEST(text.rows.size() == 6u);	// 3 kinds x 2 queues
	for (const auto &[key, want] : text.rows) {
		BOOST_TEST_CONTEXT(key.first << " " << key.second)
		{
			const Histogram &h = f->agg.totals().at({key.first, key.second, -1});
			BOOST_TEST(h.count() == want.first);
			BOOST_TEST(h.max() == want.second);
		}
	}
}

// fuzz.tracedat's crasher: one byte of the file changed (0x52 -> 0x4f, at
// 897,604, in the flyrecord options) made libtracecmd 3.1.6's
// tracecmd_open() crash in its own error path. Now a clean error. (The
// offset is this file's: a re-captured trace.dat needs it found again.)
BOOST_AUTO_TEST_CASE(fuzz_crasher_is_an_error)
{
	std::ifstream in(kDir / "trace.dat", std::ios::binary);
	std::string bytes((std::istreambuf_iterator<char>(in)), {});
	BOOST_REQUIRE(bytes.size() == 906111u && bytes[897604] == 0x52);
	bytes[897604] = 0x4f;
	const fs::path bad = fs::temp_directory_path() / ("kprof-crasher-" + std::to_string(getpid()) + ".dat");
	std::ofstream(bad, std::ios::binary) << bytes;
	BOOST_CHECK_THROW(read_trace_file(bad.string(), {}, {}), std::runtime_error);
	fs::remove(bad);
}

// Only the CPUs asked for; a file that is not one is a clean error.
BOOST_AUTO_TEST_CASE(cpus_and_errors)
{
	const auto all = read_trace_file((kDir / "trace.dat").string(), {}, {});
	const auto cpu1 = read_trace_file((kDir / "trace.dat").string(), {1}, {});
	BOOST_TEST(cpu1->events > 0u);
	BOOST_TEST(cpu1->events < all->events);
	BOOST_TEST(cpu1->cpus.count(0) == 0u);
	BOOST_CHECK_THROW(read_trace_file((kDir / "trace.txt").string(), {}, {}), std::runtime_error);
	BOOST_CHECK_THROW(read_trace_file("/nonexistent/trace.dat", {}, {}), std::runtime_error);
}

namespace {

// The fixture as a version 6 file without compression (trace-cmd convert),
// whose pages lie in the file as the ring buffer wrote them.
std::string uncompressed_fixture(const fs::path &out)
{
	const std::string cmd = "trace-cmd convert --file-version 6 --compression none -i '" +
				(kDir / "trace.dat").string() + "' -o '" + out.string() + "' >/dev/null 2>&1";
	BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "trace-cmd convert failed (make deps installs trace-cmd)");
	std::ifstream in(out, std::ios::binary);
	return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The fixture's little-endian u64s (relayout.hpp's accessors).
uint64_t load64(const std::string &b, size_t at)
{
	return test::get_le(reinterpret_cast<const uint8_t *>(b.data()) + at, 8);
}

void store64(std::string &b, size_t at, uint64_t v)
{
	test::put(reinterpret_cast<uint8_t *>(b.data()) + at, v, 8, false);
}

constexpr uint64_t kMissingEvents = 1ull << 31, kMissingStored = 1ull << 30;

}  // namespace

// A page that begins with a time extend (as after a write that an
// interrupt nested into) and was flagged with 1234 events lost before it:
// libtracecmd's count (kbuffer_missed_events()) is 0 there, because its
// first event is not at the page's start; the header says 1234.
BOOST_AUTO_TEST_CASE(loss_before_a_page_that_begins_with_a_time_extend)
{
	const fs::path v6 = fs::temp_directory_path() / ("kprof-v6-" + std::to_string(getpid()) + ".dat");
	std::string bytes = uncompressed_fixture(v6);
	// "flyrecord\0", then each CPU's data offset and size (u64).
	const size_t fly = bytes.rfind(std::string("flyrecord", 10));
	BOOST_REQUIRE(fly != std::string::npos);
	const uint64_t off = load64(bytes, fly + 10), size = load64(bytes, fly + 18);
	constexpr size_t kPage = 4096, kHeader = 16;
	BOOST_REQUIRE(off % kPage == 0 && off + size <= bytes.size());
	// The first page of CPU 0 with room for 16 more bytes: a time extend
	// of delta 0 before its records, and the stored count after them.
	size_t page = 0;
	for (size_t p = off; p < off + size && !page; p += kPage)
		if (load64(bytes, p + 8) + kHeader + 16 <= kPage)
			page = p;
	BOOST_REQUIRE(page != 0);
	const uint64_t len = load64(bytes, page + 8);
	BOOST_REQUIRE((len & (kMissingEvents | kMissingStored)) == 0u);
	bytes.replace(page + kHeader + 8, len, bytes, page + kHeader, len);
	store64(bytes, page + kHeader, 30);	// type_len 30 (time extend), delta 0
	store64(bytes, page + 8, (len + 8) | kMissingEvents | kMissingStored);
	store64(bytes, page + kHeader + len + 8, 1234);
	std::ofstream(v6, std::ios::binary | std::ios::trunc) << bytes;

	const Text text = read_text();
	const auto f = read_trace_file(v6.string(), {}, {});
	fs::remove(v6);
	BOOST_TEST(f->events == text.events);
	BOOST_TEST(f->invalid == 0u);
	BOOST_TEST(f->cpus.at(0).header_missed == 1234u);
	BOOST_TEST(f->cpus.at(0).lossy_pages == 0u);
	BOOST_TEST(f->cpus.at(1).header_missed == 0u);
}

// The fixture as a big-endian board's trace-cmd writes it
// (bigendian_tracedat.hpp). trace-cmd report prints every kprof event of it
// as it does the original's (so the file is a faithful big-endian one), and
// report -i reads the same events and values from it.
BOOST_AUTO_TEST_CASE(a_big_endian_boards_file)
{
	const std::string tag = std::to_string(getpid());
	const fs::path v6 = fs::temp_directory_path() / ("kprof-v6-" + tag + ".dat");
	const fs::path be = fs::temp_directory_path() / ("kprof-be-" + tag + ".dat");
	const fs::path txt = fs::temp_directory_path() / ("kprof-be-" + tag + ".txt");
	const std::string bytes = uncompressed_fixture(v6);
	fs::remove(v6);
	auto tep = tep_from_capture(kDir);
	std::ofstream(be, std::ios::binary) << test::tracedat_to_big(bytes, tep.get());
	const std::string cmd = "trace-cmd report -i '" + be.string() + "' >'" + txt.string() + "' 2>/dev/null";
	BOOST_REQUIRE(std::system(cmd.c_str()) == 0);
	std::ifstream report(txt);
	const Text theirs = read_text(report);
	const Text text = read_text();
	BOOST_TEST(theirs.lines == text.lines);

	const auto f = read_trace_file(be.string(), {}, {});
	fs::remove(be);
	fs::remove(txt);
	BOOST_TEST(f->events == theirs.events);
	BOOST_TEST(f->invalid == 0u);
	for (const auto &[cpu, l] : f->cpus)
		BOOST_TEST(l.header_missed + l.lossy_pages + l.bad_pages == 0u);
	for (const auto &[key, want] : text.rows) {
		BOOST_TEST_CONTEXT(key.first << " " << key.second)
		{
			const Histogram &h = f->agg.totals().at({key.first, key.second, -1});
			BOOST_TEST(h.count() == want.first);
			BOOST_TEST(h.max() == want.second);
		}
	}
}

namespace {

// @from's file converted by trace-cmd to @args (file version, compression).
fs::path converted(const std::string &args, const std::string &tag)
{
	const fs::path out = fs::temp_directory_path() / ("kprof-" + tag + "-" + std::to_string(getpid()) + ".dat");
	const std::string cmd = "trace-cmd convert " + args + " -i '" + (kDir / "trace.dat").string() + "' -o '" +
				out.string() + "' >/dev/null 2>&1";
	BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "trace-cmd convert " << args << " failed");
	return out;
}

void require_same(const TraceFile &a, const TraceFile &b)
{
	BOOST_TEST(a.events == b.events);
	BOOST_TEST(a.invalid == b.invalid);
	BOOST_TEST(a.other == b.other);
	BOOST_TEST(a.first_ts == b.first_ts);
	BOOST_TEST(a.last_ts == b.last_ts);
	BOOST_REQUIRE(a.cpus.size() == b.cpus.size());
	for (const auto &[cpu, l] : a.cpus) {
		const CpuLoss &m = b.cpus.at(cpu);
		BOOST_TEST(l.records == m.records);
		BOOST_TEST(l.header_missed == m.header_missed);
		BOOST_TEST(l.lossy_pages == m.lossy_pages);
		BOOST_TEST(l.bad_pages == m.bad_pages);
	}
	BOOST_REQUIRE(a.agg.totals().size() == b.agg.totals().size());
	for (const auto &[key, h] : a.agg.totals()) {
		const Histogram &o = b.agg.totals().at(key);
		BOOST_TEST(h.count() == o.count());
		BOOST_TEST(h.min() == o.min());
		BOOST_TEST(h.max() == o.max());
		BOOST_TEST(h.mean() == o.mean());
		BOOST_TEST(h.buckets() == o.buckets());
	}
}

}  // namespace

// report -i reads a version-7 file's pages itself (core/tracedat.hpp),
// zstd-compressed as trace-cmd writes it by default or uncompressed, and
// finds exactly what the pages libtracecmd hands over give; a version-6
// file goes through libtracecmd.
BOOST_AUTO_TEST_CASE(pages_from_the_file_match_libtracecmds)
{
	const fs::path none = converted("--file-version 7 --compression none", "v7none");
	const fs::path v6 = converted("--file-version 6 --compression none", "v6");
	for (const auto &[path, direct] : {std::pair{kDir / "trace.dat", true}, {none, true}, {v6, false}}) {
		BOOST_TEST_CONTEXT(path)
		{
			const auto mine = read_trace_file(path.string(), {}, {});
			const auto theirs = read_trace_file(path.string(), {}, {}, PagesFrom::Libtracecmd);
			BOOST_TEST(mine->direct == direct);
			BOOST_TEST(!theirs->direct);
			BOOST_TEST(mine->events == read_text().events);
			require_same(*mine, *theirs);
			const auto cpu1 = read_trace_file(path.string(), {1}, {});
			BOOST_TEST(cpu1->cpus.count(0) == 0u);
			BOOST_TEST(cpu1->events > 0u);
			BOOST_TEST(cpu1->events < mine->events);
		}
	}
	fs::remove(none);
	fs::remove(v6);
}

// A compressed chunk cut short, or a CPU's data placed outside the file:
// an error that says so, never a read outside the file.
BOOST_AUTO_TEST_CASE(damaged_version_7_files_are_refused)
{
	std::ifstream in(kDir / "trace.dat", std::ios::binary);
	const std::string good((std::istreambuf_iterator<char>(in)), {});
	const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t *>(good.data()), good.size());
	const auto fly = parse_flyrecord(bytes);
	BOOST_REQUIRE(fly);
	BOOST_TEST(fly->compression == "zstd");
	BOOST_TEST(fly->page_size == 4096u);
	BOOST_REQUIRE(fly->cpus.size() == 2u);
	const auto chunks = chunks_of(bytes, *fly, fly->cpus[0]);
	BOOST_REQUIRE(!chunks.empty());

	// Chunk headers that lie: libtracecmd, which opens the file first,
	// refuses some itself; chunks_of() refuses them all.
	const fs::path bad = fs::temp_directory_path() / ("kprof-bad7-" + std::to_string(getpid()) + ".dat");
	const size_t at = fly->cpus[0].offset + 4;
	auto damaged = [&](size_t where, uint32_t v, const std::string &what) {
		std::string b = good;
		std::memcpy(b.data() + where, &v, 4);
		const std::span<const uint8_t> span(reinterpret_cast<const uint8_t *>(b.data()), b.size());
		try {
			chunks_of(span, *fly, fly->cpus[0]);
			BOOST_ERROR("chunks_of() took it: " << what);
		} catch (const std::runtime_error &e) {
			BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
		}
		std::ofstream(bad, std::ios::binary | std::ios::trunc) << b;
		BOOST_CHECK_THROW(read_trace_file(bad.string(), {}, {}), std::runtime_error);
	};
	damaged(at, uint32_t(fly->cpus[0].size), "runs past");	// compressed size
	damaged(at + 4, chunks[0].size - 1, "not whole pages");	// uncompressed size
	fs::remove(bad);

	// CPU 1's data placed past the end of the file.
	std::string b = good;
	const std::span<const uint8_t> span(reinterpret_cast<const uint8_t *>(b.data()), b.size());
	const std::string needle(reinterpret_cast<const char *>(&fly->cpus[1].offset), 8);
	const size_t opt = b.rfind(needle);
	BOOST_REQUIRE(opt != std::string::npos);
	const uint64_t far = b.size();
	std::memcpy(b.data() + opt, &far, 8);
	BOOST_CHECK_THROW(parse_flyrecord(span), std::runtime_error);
	// Version 6: not read here; a version-7 header cut short: an error.
	b = good;
	b[10] = '6';
	BOOST_TEST(!parse_flyrecord(span).has_value());
	BOOST_CHECK_THROW(parse_flyrecord(bytes.subspan(0, 12)), std::runtime_error);
}
