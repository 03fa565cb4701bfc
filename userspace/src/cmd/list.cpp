// SPDX-License-Identifier: GPL-2.0
// `kprofctl list [--fields] [--all]`, and event-name matching for the
// commands that take EVENT arguments.
#include "cmd/commands.hpp"
#include "sys/sys.hpp"
#include "core/tep.hpp"
#include "sys/tracefs_c.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace kprof {

namespace {

std::vector<std::pair<std::string, std::string>> all_events(const std::string &tdir, const std::string &only)
{
	std::vector<std::pair<std::string, std::string>> out;
	std::error_code ec;
	for (const auto &sys : fs::directory_iterator(tdir + "/events", ec)) {
		if (!sys.is_directory())
			continue;
		const std::string s = sys.path().filename();
		if (!only.empty() && s != only)
			continue;
		for (const auto &ev : fs::directory_iterator(sys.path(), ec))
			if (ev.is_directory())
				out.emplace_back(s, ev.path().filename());
	}
	std::sort(out.begin(), out.end());
	return out;
}

}  // namespace

std::vector<std::string> match_events(const std::string &tdir, const std::string &pattern,
				      const std::string &only_system)
{
	std::string sys_pat = "*", ev_pat = pattern;
	if (const auto colon = pattern.find(':'); colon != std::string::npos) {
		sys_pat = pattern.substr(0, colon);
		ev_pat = pattern.substr(colon + 1);
	}
	if (ev_pat.empty() || sys_pat.empty())
		throw UsageError("bad event '" + pattern + "': want SYSTEM:EVENT or EVENT");
	std::vector<std::string> out;
	for (const auto &[s, e] : all_events(tdir, only_system)) {
		if (fnmatch(sys_pat.c_str(), s.c_str(), 0) != 0)
			continue;
		// kprof events also answer to their short names (batch, span...).
		const bool short_match = s == "kprof" && fnmatch(("kprof_" + ev_pat).c_str(), e.c_str(), 0) == 0;
		if (fnmatch(ev_pat.c_str(), e.c_str(), 0) == 0 || short_match)
			out.push_back(s + ":" + e);
	}
	if (out.empty())
		throw UsageError("unknown event '" + pattern + "'" +
				 (only_system.empty() ? "" : " in system " + only_system) +
				 "; 'kprofctl list" + (only_system.empty() ? " --all" : "") + "' shows them");
	return out;
}

int run_list(const ListOptions &opts)
{
	sys::require_root();
	const std::string tdir = sys::tracing_dir();
	if (!opts.all)
		sys::require_module();
	TepPtr tep;
	if (opts.fields) {
		if (opts.all) {
			tep.reset(tracefs_local_events(tdir.c_str()));
			if (!tep)
				throw std::runtime_error("cannot read the event formats under " + tdir);
		} else {
			tep = tep_from_tracefs(tdir);
		}
	}
	const auto events = all_events(tdir, opts.all ? "" : "kprof");
	for (const auto &[s, e] : events) {
		std::cout << s << ':' << e << '\n';
		if (!tep)
			continue;
		tep_event *ev = tep_find_event_by_name(tep.get(), s.c_str(), e.c_str());
		if (!ev)
			continue;
		for (tep_format_field *f = ev->format.fields; f; f = f->next)
			std::cout << "    " << f->type << ' ' << f->name << "  (offset " << f->offset << ", size "
				  << f->size << ")\n";
	}
	return 0;
}

}  // namespace kprof
