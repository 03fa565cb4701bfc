// SPDX-License-Identifier: GPL-2.0
// `kprofctl counters [--json] [--reset] [--device NAME]`
#include "cmd/commands.hpp"
#include "core/report.hpp"
#include "sys/sys.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

namespace kprof {

namespace {

void print_counters(const std::string &title, const std::map<std::string, uint64_t> &c)
{
	std::cout << title << '\n';
	for (const auto &[k, v] : c)
		std::cout << "  " << k << ": " << v << '\n';
}

int reset(const CountersOptions &opts, const std::string &dbg,
	  const std::map<std::string, std::map<std::string, uint64_t>> &all)
{
	if (opts.reset) {
		for (const auto &[dev, c] : all)
			sys::write_file(dbg + "/" + dev + "/reset", "1");
		std::cerr << "kprofctl: counters and histograms reset\n";
	}
	return 0;
}

}  // namespace

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
	// Hook calls kprof.ko ignored (NULL device, NMI, bad span id): under
	// the name of the debugfs file, which no device can take.
	const auto misuse = sys::read_misuse(*dbg);
	if (opts.json) {
		nlohmann::json j(all);
		if (misuse && !opts.device)
			j[sys::kMisuseFile] = *misuse;
		std::cout << dump_json(j) << '\n';
		return reset(opts, *dbg, all);
	}
	if (all.empty())
		std::cout << "no kprof devices registered\n";
	for (const auto &[dev, c] : all)
		print_counters(dev + ":", c);
	if (misuse && !opts.device)
		print_counters(std::string(sys::kMisuseFile) + " (hook calls kprof.ko ignored):", *misuse);
	return reset(opts, *dbg, all);
}

}  // namespace kprof
