// SPDX-License-Identifier: GPL-2.0
// `kprofctl enable|disable EVENT... [--filter EXPR] [--instance NAME]`:
// changes that persist in the instance after kprofctl exits.
#include "commands.hpp"
#include "instance.hpp"
#include "sys.hpp"

#include <iostream>
#include <set>

namespace kprof {

int run_enable(const EnableOptions &opts)
{
	sys::require_root();
	const std::string tdir = sys::tracing_dir();
	std::set<std::string> events;
	for (const auto &p : opts.events)
		for (auto &e : match_events(tdir, p))
			events.insert(std::move(e));

	Instance inst(opts.instance, Instance::Mode::Persistent);
	if (!inst.recovered().empty())
		std::cerr << "kprofctl: " << inst.recovered() << '\n';
	for (const auto &e : events) {
		const std::string rel = "events/" + e.substr(0, e.find(':')) + "/" + e.substr(e.find(':') + 1);
		if (opts.enable) {
			if (opts.filter) {
				try {
					inst.set(rel + "/filter", *opts.filter, false);
				} catch (const std::exception &) {
					throw UsageError("the kernel rejected filter '" + *opts.filter + "' for " + e +
							 " (see " + inst.dir() + "/" + rel + "/filter)");
				}
			}
			inst.set(rel + "/enable", "1", false);
		} else {
			inst.set(rel + "/enable", "0", false);
			inst.set(rel + "/filter", "0", false);
		}
		std::cout << (opts.enable ? "enabled " : "disabled ") << e << " in instance " << opts.instance
			  << (opts.enable && opts.filter ? " with filter '" + *opts.filter + "'" : "") << '\n';
	}
	return 0;
}

}  // namespace kprof
