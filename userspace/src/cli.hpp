// SPDX-License-Identifier: GPL-2.0
// kprofctl's command line. Parsing is pure: no I/O, no system state, so the
// unit tests drive it directly. Each subcommand has an options struct with
// its defaults here and a run() in its own file.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace kprof {

// A usage error found after parsing (e.g. an event or CPU that does not
// exist on this machine): exit status 2, like a parse error.
struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

inline constexpr const char *kDefaultInstance = "kprof";

struct StatusOptions {
	bool json = false;
};

struct ListOptions {
	bool fields = false;
	bool all = false;
};

struct EnableOptions {
	bool enable = true;		// enable or disable
	std::vector<std::string> events;
	std::optional<std::string> filter;
	std::string instance = kDefaultInstance;
};

struct LatencyOptions {
	std::vector<std::string> events;	// empty: every kprof event
	std::chrono::nanoseconds duration{0};	// 0: until Ctrl-C
	bool per_cpu = false;
	bool hist = false;
	bool json = false;
	bool csv = false;
	std::vector<int> cpus;			// empty: all
	std::optional<std::string> device;
	std::string unit = "us";
	uint64_t divisor = 1000;
	unsigned buffer_kb = 0;			// 0: leave the instance's size
	std::string instance = kDefaultInstance;
};

struct CountersOptions {
	bool json = false;
	bool reset = false;
	std::optional<std::string> device;
};

struct VersionRequest {};

using Command = std::variant<VersionRequest, StatusOptions, ListOptions, EnableOptions, LatencyOptions,
			     CountersOptions>;

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
	ListOptions list_;
	EnableOptions enable_, disable_;
	LatencyOptions latency_;
	CountersOptions counters_;
	std::string duration_, cpus_;
	CLI::App *status_cmd_, *list_cmd_, *enable_cmd_, *disable_cmd_, *latency_cmd_, *counters_cmd_;
};

// Instance and device names: [A-Za-z0-9_.-]+, not "." or "..".
bool valid_name(const std::string &s);

}  // namespace kprof
