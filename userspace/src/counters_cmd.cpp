// SPDX-License-Identifier: GPL-2.0
// `kprofctl counters [--json] [--reset] [--device NAME]`
#include "commands.hpp"
#include "sys.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

namespace kprof {

int run_counters(const CountersOptions &opts)
{
	sys::require_root();
	sys::require_module();
	const auto dbg = sys::kprof_debugfs();
	if (!dbg)
		throw std::runtime_error("kprof's debugfs directory is missing: mount -t debugfs none /sys/kernel/debug");
	auto all = sys::read_counters(*dbg);
	if (opts.device) {
		if (!all.count(*opts.device))
			throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");
		all = {{*opts.device, all[*opts.device]}};
	}
	if (opts.json) {
		std::cout << nlohmann::json(all).dump(2) << '\n';
	} else if (all.empty()) {
		std::cout << "no kprof devices registered\n";
	} else {
		for (const auto &[dev, c] : all) {
			std::cout << dev << ":\n";
			for (const auto &[k, v] : c)
				std::cout << "  " << k << ": " << v << '\n';
		}
	}
	if (opts.reset) {
		for (const auto &[dev, c] : all)
			sys::write_file(*dbg + "/" + dev + "/reset", "1");
		std::cerr << "kprofctl: counters and histograms reset\n";
	}
	return 0;
}

}  // namespace kprof
