// SPDX-License-Identifier: GPL-2.0
// `kprofctl status`: the module, its devices, which instances trace kprof
// events, their buffer sizes, and whether debugfs collection is on.
#include "cmd/commands.hpp"
#include "core/inkernel.hpp"
#include "sys/sys.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace kprof {

namespace {

std::string trimmed(std::optional<std::string> s)
{
	if (!s)
		return "";
	s->erase(s->find_last_not_of(" \n") + 1);
	return *s;
}

}  // namespace

int run_status(const StatusOptions &opts)
{
	sys::require_root();
	const std::string tdir = sys::tracing_dir();
	const auto version = sys::module_version();
	const auto dbg = sys::kprof_debugfs();
	nlohmann::json j;
	j["module"] = version ? nlohmann::json{{"loaded", true}, {"version", *version}}
			      : nlohmann::json{{"loaded", false}};
	j["tracefs"] = tdir;
	j["collection_enabled"] = dbg ? nlohmann::json(trimmed(sys::read_file(*dbg + "/" + kEnableFile)) == "1")
				      : nlohmann::json(nullptr);
	const auto agg_state = [&](const char *file) {
		const auto agg = dbg ? sys::read_file(*dbg + "/" + file) : std::nullopt;
		return agg ? nlohmann::json(agg_state_name(std::stoi(*agg))) : nlohmann::json(nullptr);
	};
	j["aggregation"] = agg_state(kAggregateFile);
	j["irq_aggregation"] = agg_state(kGirqAggregateFile);
	nlohmann::json devs = nlohmann::json::array();
	if (dbg)
		for (const auto &d : sys::devices(*dbg))
			devs.push_back(d);
	j["devices"] = devs;

	// Every instance, the top level first, with its kprof events.
	std::vector<std::pair<std::string, std::string>> insts = {{"(top)", tdir}};
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(tdir + "/instances", ec))
		insts.emplace_back(e.path().filename(), e.path());
	nlohmann::json ij = nlohmann::json::array();
	for (const auto &[name, dir] : insts) {
		nlohmann::json enabled = nlohmann::json::array();
		for (const auto &e : fs::directory_iterator(dir + "/events/kprof", ec))
			if (e.is_directory() && trimmed(sys::read_file(e.path() / "enable")) == "1")
				enabled.push_back(e.path().filename());
		ij.push_back({{"name", name},
			      {"buffer_size_kb", trimmed(sys::read_file(dir + "/buffer_size_kb"))},
			      {"tracing_on", trimmed(sys::read_file(dir + "/tracing_on")) == "1"},
			      {"kprof_events_enabled", enabled}});
	}
	j["instances"] = ij;

	if (opts.json) {
		std::cout << dump_json(j) << '\n';
		return 0;
	}
	std::cout << "kprof.ko:    " << (version ? "loaded, version " + *version : "not loaded") << '\n'
		  << "tracefs:     " << tdir << '\n'
		  << "collection:  "
		  << (j["collection_enabled"].is_null() ? "unknown (no debugfs)"
			  : j["collection_enabled"].get<bool>() ? "on (kprof/enable = 1)" : "off")
		  << '\n'
		  << "aggregation: "
		  << (j["aggregation"].is_null() ? "unknown (no debugfs or no kprof/aggregate)"
						 : j["aggregation"].get<std::string>() + " (latency --in-kernel)")
		  << '\n'
		  << "irq aggregation: "
		  << (j["irq_aggregation"].is_null() ? "unknown (no debugfs or no kprof/girq_aggregate)"
						     : j["irq_aggregation"].get<std::string>() + " (irq --in-kernel)")
		  << '\n'
		  << "devices:     ";
	if (devs.empty())
		std::cout << "none";
	for (const auto &d : devs)
		std::cout << d.get<std::string>() << ' ';
	std::cout << "\ninstances:\n";
	for (const auto &i : ij) {
		std::cout << "  " << i["name"].get<std::string>() << ": buffer " << i["buffer_size_kb"].get<std::string>()
			  << " KiB/CPU, tracing " << (i["tracing_on"].get<bool>() ? "on" : "off") << ", kprof events: ";
		if (i["kprof_events_enabled"].empty())
			std::cout << "none";
		for (const auto &e : i["kprof_events_enabled"])
			std::cout << e.get<std::string>() << ' ';
		std::cout << '\n';
	}
	return 0;
}

}  // namespace kprof
