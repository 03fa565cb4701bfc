// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the raw-page decoder. The first byte picks a kernel's
// formats from the captured fixtures (tests/unit/fixtures), the rest is a
// sub-buffer page as trace_pipe_raw hands it, of any length. The decoder
// must take any bytes: a page it cannot trust is reported as bad, never
// read past, and other events' records go to the context decoder (irq -T)
// the same way.
#include "context.hpp"
#include "decoder.hpp"
#include "tep.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

using namespace kprof;
namespace fs = std::filesystem;

namespace {

std::vector<TepPtr> &teps()
{
	static std::vector<TepPtr> t = [] {
		std::vector<TepPtr> v;
		std::vector<fs::path> dirs;
		for (const auto &e : fs::directory_iterator(KPROF_FIXTURES))
			if (fs::exists(e.path() / "header_page"))
				dirs.push_back(e.path());
		std::sort(dirs.begin(), dirs.end());
		for (const auto &d : dirs) {
			std::vector<fs::path> formats;
			for (const auto &e : fs::directory_iterator(d / "formats"))
				formats.push_back(e.path());
			for (const auto &ev : context_events())
				formats.push_back(d / "events" / ev / "format");
			v.push_back(tep_from_files(d / "header_page", formats, 8, 4096, TEP_LITTLE_ENDIAN));
		}
		return v;
	}();
	return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || teps().empty())
		return 0;
	tep_handle *tep = teps()[data[0] % teps().size()].get();
	Decoder d(tep);
	ContextDecoder ctx(tep);
	d.on_other([&](const OtherRecord &r) { ctx.decode(r); });
	std::vector<Sample> out;
	d.decode_page(data + 1, size - 1, data[0] & 0x80 ? 1 : 0, out);
	return 0;
}
