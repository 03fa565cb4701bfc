// SPDX-License-Identifier: GPL-2.0
// kprofctl: a thin main. Parsing lives in cli.cpp, each subcommand in its own file.
#include "cli.hpp"
#include "status.hpp"

#include <exception>
#include <iostream>

#ifndef KPROF_VERSION
#error "KPROF_VERSION must come from the build"
#endif

int main(int argc, char **argv)
{
	kprof::Cli cli;
	kprof::Command cmd;
	try {
		cmd = cli.parse(std::vector<std::string>(argv + 1, argv + argc));
	} catch (const CLI::ParseError &e) {
		return cli.exit(e, std::cout, std::cerr);
	}

	try {
		if (std::holds_alternative<kprof::VersionRequest>(cmd)) {
			std::cout << "kprofctl " KPROF_VERSION "\n";
			return 0;
		}
		return kprof::run_status(std::get<kprof::StatusOptions>(cmd));
	} catch (const std::exception &e) {
		std::cerr << "kprofctl: error: " << e.what() << '\n';
		return 1;
	}
}
