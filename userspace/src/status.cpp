// SPDX-License-Identifier: GPL-2.0
// `kprofctl status`: is the module loaded, which version, where is tracefs.
#include "status.hpp"

#include "tracefs_c.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace kprof {

namespace {

std::string read_line(const std::string &path)
{
	std::ifstream in(path);
	std::string line;
	std::getline(in, line);
	return line;
}

}  // namespace

int run_status(const StatusOptions &opts)
{
	const std::string version = read_line("/sys/module/kprof/version");
	const bool loaded = !version.empty();
	// tracefs_tracing_dir() names a directory even where nothing is
	// mounted (it may only be the empty mount point): look for a real file.
	const char *tdir = tracefs_tracing_dir();
	std::string tracing = tdir ? tdir : "";
	if (!tracing.empty() && !std::filesystem::exists(tracing + "/trace"))
		tracing.clear();

	if (opts.json) {
		nlohmann::json j = {
			{"module_loaded", loaded},
			{"module_version", loaded ? nlohmann::json(version) : nlohmann::json(nullptr)},
			{"tracefs", tracing.empty() ? nlohmann::json(nullptr) : nlohmann::json(tracing)},
		};
		std::cout << j.dump(2) << '\n';
	} else {
		std::cout << "kprof.ko:  " << (loaded ? "loaded, version " + version : "not loaded") << '\n'
			  << "tracefs:   " << (tracing.empty() ? "not found" : tracing) << '\n';
	}
	return 0;
}

}  // namespace kprof
