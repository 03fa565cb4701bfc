// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: kprofctl's text parsers, each fed what a user or a
// kernel file could hand it. The first byte picks the parser. A parser may
// reject its input only with the exception its contract names:
// std::invalid_argument for command-line values (a usage error, exit 2),
// std::runtime_error for the files kprof.ko and tracefs write (exit 1).
// Any other exception, a crash or a sanitizer report is a finding.
#include "core/counters.hpp"
#include "core/inkernel.hpp"
#include "core/parse.hpp"
#include "core/report.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

using namespace kprof;

namespace {

template <typename Allowed, typename F>
void run(F &&parse)
{
	try {
		parse();
	} catch (const Allowed &) {
	}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
	KernelStats ks;
	switch (data[0] % 8) {
	case 0:
		run<std::invalid_argument>([&] { parse_duration(text); });
		break;
	case 1:
		run<std::invalid_argument>([&] { parse_cpu_list(text, 64); });
		break;
	case 2:
		run<std::invalid_argument>([&] { parse_unit(text); });
		break;
	case 3:
		run<std::runtime_error>([&] { parse_counters(text); });
		break;
	case 4:
		run<std::runtime_error>([&] { parse_girq_emitted(text); });
		break;
	case 5:
		run<std::runtime_error>([&] { parse_ring_stats(text); });
		break;
	case 6:
		run<std::runtime_error>([&] { load_kernel_hist(text, "q0", {}, true, ks); });
		break;
	case 7:
		run<std::runtime_error>([&] { load_girq_hist(text, {}, true, ks); });
		break;
	}
	return 0;
}
