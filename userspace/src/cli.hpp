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

// What every collecting command (latency, irq) takes.
struct CollectOptions {
	std::chrono::nanoseconds duration{0};	// 0: until Ctrl-C
	bool per_cpu = false;
	bool hist = false;
	bool json = false;
	bool csv = false;
	std::vector<int> cpus;			// empty: all
	std::string unit = "us";
	uint64_t divisor = 1000;
	unsigned buffer_kb = 0;			// 0: leave the instance's size
	std::string instance = kDefaultInstance;
	std::optional<std::string> svg;		// --svg FILE: the histograms as a picture
	std::optional<std::string> openmetrics;	// --openmetrics FILE: node_exporter's textfile format
};

struct LatencyOptions : CollectOptions {
	std::vector<std::string> events;	// empty: every kprof device event
	std::optional<std::string> device;
	bool in_kernel = false;			// kprof.ko's histograms, no events
};

struct IrqOptions : CollectOptions {
	std::vector<std::string> irqs;		// --irq N|NAME; empty: every IRQ
	std::optional<std::chrono::nanoseconds> threshold;	// -T: analyse entry_to_running above it
	bool keep_going = false;		// --on-threshold continue (default: stop)
	bool in_kernel = false;			// kprof.ko's histograms, no events
	std::optional<std::string> trace_file;	// -t FILE: the events around each hit
};

// kprofctl report -i FILE: the latency report of a trace-cmd data file.
// Of CollectOptions, only the report's presentation and -c apply.
struct ReportOptions : LatencyOptions {
	std::string input;
};

struct CountersOptions {
	bool json = false;
	bool reset = false;
	std::optional<std::string> device;
};

// kprofctl top: a live view of kprof.ko's in-kernel histograms.
struct TopOptions {
	std::chrono::nanoseconds duration{0};		// 0: until q or Ctrl-C
	std::chrono::nanoseconds interval{std::chrono::seconds(1)};
	std::vector<std::string> events;		// -e labels; empty: all
	std::optional<std::string> device;
	std::string unit = "us";
	uint64_t divisor = 1000;
};

struct VersionRequest {};

using Command = std::variant<VersionRequest, StatusOptions, ListOptions, EnableOptions, LatencyOptions,
			     CountersOptions, IrqOptions, ReportOptions, TopOptions>;

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

	// Every subcommand and option, for the man page (manpage.hpp).
	const CLI::App &app() const { return app_; }

private:
	CLI::App app_;
	bool version_ = false;
	StatusOptions status_;
	ListOptions list_;
	EnableOptions enable_, disable_;
	// -d and -c as typed, parsed after CLI11 is done.
	struct RawCollect {
		std::string duration, cpus;
	};
	void add_collect_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw);
	static void finish_collect(CollectOptions &o, const RawCollect &raw);

	LatencyOptions latency_;
	IrqOptions irq_;
	CountersOptions counters_;
	ReportOptions report_;
	RawCollect latency_raw_, irq_raw_, report_raw_;
	TopOptions top_;
	std::string top_duration_, top_interval_ = "1s";
	void add_top();
	void finish_top();
	std::string threshold_, on_threshold_ = "stop";
	void add_report_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw);
	CLI::App *status_cmd_, *list_cmd_, *enable_cmd_, *disable_cmd_, *latency_cmd_, *counters_cmd_, *irq_cmd_,
		*report_cmd_, *top_cmd_;
};

// Instance and device names: [A-Za-z0-9_.-]+, not "." or "..".
bool valid_name(const std::string &s);

}  // namespace kprof
