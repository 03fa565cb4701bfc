// SPDX-License-Identifier: GPL-2.0
// kprofctl's command line. Parsing is pure: no I/O, no system state, so the
// unit tests drive it directly.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace kprof {

// `kprofctl status`
struct StatusOptions {
	bool json = false;
};

// `kprofctl --version`
struct VersionRequest {};

using Command = std::variant<VersionRequest, StatusOptions>;

class Cli {
public:
	Cli();
	Cli(const Cli &) = delete;
	Cli &operator=(const Cli &) = delete;

	// args excludes the program name. Throws CLI::ParseError for --help,
	// a missing subcommand and every usage error.
	Command parse(const std::vector<std::string> &args);

	// Print what a ParseError means (help text or the error) and return
	// the exit code: 0 for an explicit --help, 2 for usage errors.
	int exit(const CLI::ParseError &e, std::ostream &out, std::ostream &err);

private:
	CLI::App app_;
	bool version_ = false;
	StatusOptions status_;
	CLI::App *status_cmd_ = nullptr;
};

}  // namespace kprof
