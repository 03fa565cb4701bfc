// SPDX-License-Identifier: GPL-2.0
// The decoder on the page layouts of other kernels: a capture's pages
// (64-bit little endian) rewritten as a 32-bit or a big-endian kernel writes
// them decode to exactly the samples, losses and context events of the
// originals, which test_decoder holds to the kernel's own text. The layout
// comes from the header page alone, never from the host kprofctl runs on
// (a 32-bit kprofctl on a 64-bit kernel read every page wrong).
#define BOOST_TEST_MODULE kprof_layout
#include <boost/test/unit_test.hpp>

#include "core/context.hpp"
#include "core/decoder.hpp"
#include "relayout.hpp"
#include "core/tep.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace kprof;
using kprof::test::PageLayout;

namespace {

constexpr size_t kPage = 4096;

std::vector<fs::path> captures()
{
	std::vector<fs::path> dirs;
	for (const auto &e : fs::directory_iterator(KPROF_FIXTURES))
		dirs.push_back(e.path());
	std::sort(dirs.begin(), dirs.end());
	return dirs;
}

std::string slurp(const fs::path &p)
{
	std::ifstream in(p, std::ios::binary);
	std::ostringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

// A tep handle for capture @dir's events, as a kernel of layout @to.
TepPtr tep_for(const fs::path &dir, PageLayout to)
{
	const auto formats = capture_formats(dir, context_events());
	const fs::path header = fs::temp_directory_path() / ("kprof-header-" + std::to_string(getpid()));
	std::ofstream(header) << test::header_page_for(slurp(dir / "header_page"), to);
	auto tep = tep_from_files(header, formats, int(kPage), to.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	fs::remove(header);
	return tep;
}

// Everything a decoder made of a raw file's pages, one line per sample,
// page result and context event.
std::vector<std::string> decode_all(tep_handle *tep, const fs::path &raw, int cpu, tep_handle *source,
				    const PageLayout *to)
{
	Decoder d(tep);
	ContextDecoder ctx(tep);
	std::vector<std::string> lines;
	d.on_other([&](const OtherRecord &r) {
		const auto e = ctx.decode(r);
		lines.push_back(e ? "ctx " + format_context(*e) : "other " + std::to_string(r.id));
	});
	const std::string bytes = slurp(raw);
	std::vector<Sample> out;
	for (size_t at = 0; at + kPage <= bytes.size(); at += kPage) {
		const auto *page = reinterpret_cast<const uint8_t *>(bytes.data() + at);
		const auto moved = to ? test::relayout(source, page, kPage, *to) : std::vector<uint8_t>(page, page + kPage);
		out.clear();
		const PageResult r = d.decode_page(moved.data(), moved.size(), cpu, out);
		std::ostringstream ss;
		ss << "page events=" << r.events << " other=" << r.other << " invalid=" << r.invalid
		   << " missed=" << r.missed << " bytes=" << r.bytes << " bad=" << r.bad_page;
		lines.push_back(ss.str());
		for (const Sample &s : out) {
			std::ostringstream l;
			l << event_name(s.kind) << ' ' << d.device_name(s.dev) << " cpu=" << s.cpu << " ts=" << s.ts
			  << " v=" << s.value_ns << " aux=" << s.aux << " hard=" << s.hard_cpu << " seq=" << s.seq
			  << " irq=" << s.irq << " flag=" << s.flag;
			lines.push_back(l.str());
		}
	}
	return lines;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_layout_decodes_like_the_capture)
{
	for (const auto &dir : captures()) {
		auto source = tep_for(dir, test::kLayouts[0]);
		for (const PageLayout &to : test::kLayouts) {
			auto tep = tep_for(dir, to);
			BOOST_TEST_CONTEXT(dir.filename().string() << ", " << to.name())
			{
				// The kernel's long is the header page's, whatever this host's is.
				BOOST_TEST(tep_get_long_size(tep.get()) == int(to.commit));
				size_t samples = 0, lossy = 0;
				for (const char *which : {"normal", "overrun", "tracker"})
					for (int cpu = 0; cpu < 2; cpu++) {
						const fs::path raw = dir / (std::string(which) + ".cpu" + std::to_string(cpu) + ".raw");
						const auto want = decode_all(source.get(), raw, cpu, nullptr, nullptr);
						const auto got = decode_all(tep.get(), raw, cpu, source.get(), &to);
						BOOST_TEST_INFO(raw.filename().string());
						BOOST_TEST_REQUIRE(got.size() == want.size());
						for (size_t i = 0; i < got.size(); i++)
							BOOST_TEST_REQUIRE(got[i] == want[i]);
						samples += want.size();
						lossy += std::count_if(want.begin(), want.end(), [](const std::string &l) {
							return l.starts_with("page ") && l.find(" missed=0 ") == std::string::npos;
						});
					}
				// The comparison covered samples, context events and losses.
				BOOST_TEST(samples > 5000u);
				BOOST_TEST(lossy > 0u);
			}
		}
	}
}

// A layout whose records do not follow the commit field is refused, not
// read wrong.
BOOST_AUTO_TEST_CASE(an_unknown_page_layout_is_refused)
{
	const fs::path dir = captures().front();
	const fs::path header = fs::temp_directory_path() / ("kprof-header-" + std::to_string(getpid()));
	std::string text = slurp(dir / "header_page");
	test::replace_once(text, "char data;\toffset:16;", "char data;\toffset:24;");
	std::ofstream(header) << text;
	BOOST_CHECK_THROW(tep_from_files(header, {dir / "formats" / "kprof_batch"}, int(kPage), TEP_LITTLE_ENDIAN),
			  std::runtime_error);
	fs::remove(header);
}

// Page headers and record words in each byte order and long size.
BOOST_AUTO_TEST_CASE(page_headers_in_every_layout)
{
	for (const PageLayout &to : test::kLayouts) {
		BOOST_TEST_CONTEXT(to.name())
		{
			std::vector<uint8_t> page(64, 0);
			const size_t data = 8 + to.commit;
			// 8 bytes of records, events lost before the page, 5 of them stored.
			test::put(page.data() + 8, 8 | 3u << 30, to.commit, to.big);
			test::put(page.data() + data + 8, 5, to.commit, to.big);
			const ByteOrder order(to.big);
			const auto h = parse_page_header(page.data(), page.size(), to.commit, order);
			BOOST_TEST_REQUIRE(h.has_value());
			BOOST_TEST(h->length == 8u);
			BOOST_TEST(h->data_offset == data);
			BOOST_TEST(h->missed == 5);
			// One record of one word of data, type_len 1, delta 3.
			const uint32_t word = to.big ? 1u << 27 | 3 : 3u << 5 | 1;
			test::put(page.data() + data, word, 4, to.big);
			BOOST_TEST(records_walkable(page.data() + data, page.size() - data, 8, order));
			BOOST_TEST(order.type_len(uint32_t(order.load(page.data() + data, 4))) == 1u);
			// 2-, 4- and 8-byte fields.
			test::put(page.data(), 0x0102030405060708ULL, 8, to.big);
			BOOST_TEST(order.load(page.data(), 8) == 0x0102030405060708ULL);
			BOOST_TEST(order.load(page.data() + (to.big ? 4 : 0), 4) == 0x05060708u);
			BOOST_TEST(order.load(page.data() + (to.big ? 6 : 0), 2) == 0x0708u);
		}
	}
}
