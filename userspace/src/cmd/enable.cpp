// SPDX-License-Identifier: GPL-2.0
// `kprofctl enable|disable EVENT... [--filter EXPR] [--instance NAME]`:
// changes that persist in the instance after kprofctl exits.
#include "cmd/commands.hpp"
#include "sys/instance.hpp"
#include "sys/sys.hpp"

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
	// Every filter first, then every switch, each saved: a filter the
	// kernel rejects for the second event leaves nothing changed (the
	// destructor undoes the rest, and removes an instance it created).
	auto rel = [](const std::string &e) {
		return "events/" + e.substr(0, e.find(':')) + "/" + e.substr(e.find(':') + 1);
	};
	for (const auto &e : events) {
		if (!opts.enable || !opts.filter)
			continue;
		try {
			inst.set(rel(e) + "/filter", *opts.filter);
		} catch (const std::exception &) {
			throw UsageError("the kernel rejected filter '" + *opts.filter + "' for " + e + " (see " +
					 inst.dir() + "/" + rel(e) + "/filter); nothing was changed");
		}
	}
	for (const auto &e : events) {
		inst.set(rel(e) + "/enable", opts.enable ? "1" : "0");
		if (!opts.enable)
			inst.set(rel(e) + "/filter", "0");
	}
	inst.keep();
	for (const auto &e : events)
		std::cout << (opts.enable ? "enabled " : "disabled ") << e << " in instance " << opts.instance
			  << (opts.enable && opts.filter ? " with filter '" + *opts.filter + "'" : "") << '\n';
	return 0;
}

}  // namespace kprof
