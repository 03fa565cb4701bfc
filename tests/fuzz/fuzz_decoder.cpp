// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the raw-page decoder. The first byte's low 6 bits pick a
// kernel's formats from the captured fixtures (tests/unit/fixtures) and a
// page layout (64- or 32-bit, little or big endian: index = fixture * 4 +
// layout), its 0x40 bit says to rewrite the page from the capture's layout
// into that one first (relayout.hpp), its 0x80 bit picks the CPU; the rest
// is a sub-buffer page as trace_pipe_raw hands it, of any length. The decoder
// must take any bytes: a page it cannot trust is reported as bad, never
// read past, and other events' records go to the context decoder (irq -T)
// the same way.
#include "core/context.hpp"
#include "core/decoder.hpp"
#include "core/tep.hpp"
#include "../unit/relayout.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

using namespace kprof;
namespace fs = std::filesystem;

namespace {

// A tep handle for fixture @d's formats in layout @to.
TepPtr tep_for(const fs::path &d, const test::PageLayout &to)
{
	const auto formats = capture_formats(d, context_events());
	std::ifstream in(d / "header_page");
	std::ostringstream text;
	text << in.rdbuf();
	const fs::path header = fs::temp_directory_path() / ("kprof-fuzz-header-" + std::to_string(getpid()));
	std::ofstream(header) << test::header_page_for(text.str(), to);
	auto tep = tep_from_files(header, formats, 4096, to.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	fs::remove(header);
	return tep;
}

// Per fixture, one tep per layout of test::kLayouts (the first is the
// capture's own).
std::vector<TepPtr> &teps()
{
	static std::vector<TepPtr> t = [] {
		std::vector<TepPtr> v;
		std::vector<fs::path> dirs;
		for (const auto &e : fs::directory_iterator(KPROF_FIXTURES))
			if (fs::exists(e.path() / "header_page"))
				dirs.push_back(e.path());
		std::sort(dirs.begin(), dirs.end());
		for (const auto &d : dirs)
			for (const auto &to : test::kLayouts)
				v.push_back(tep_for(d, to));
		return v;
	}();
	return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || teps().empty())
		return 0;
	constexpr size_t kNumLayouts = std::size(test::kLayouts);
	const size_t pick = (data[0] & 0x3f) % teps().size();
	tep_handle *tep = teps()[pick].get();
	Decoder d(tep);
	ContextDecoder ctx(tep);
	d.on_other([&](const OtherRecord &r) { ctx.decode(r); });
	std::vector<Sample> out;
	std::vector<uint8_t> page(data + 1, data + size);
	if (data[0] & 0x40)
		page = test::relayout(teps()[pick - pick % kNumLayouts].get(), page.data(), page.size(),
				      test::kLayouts[pick % kNumLayouts]);
	d.decode_page(page.data(), page.size(), data[0] & 0x80 ? 1 : 0, out);
	return 0;
}
