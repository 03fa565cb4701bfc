// SPDX-License-Identifier: GPL-2.0
// kprofctl's command line. Parsing is pure: no I/O, no system state, so the
// unit tests drive it directly. Each subcommand has an options struct with
// its defaults (options.hpp) and a run() in its own file.
#pragma once

#include "cli/options.hpp"

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace kprof {

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
		std::string duration, cpus, priority;
	};
	void add_collect_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw);
	static void add_window_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw);
	Command parsed();
	static void finish_collect(CollectOptions &o, const RawCollect &raw);

	LatencyOptions latency_;
	IrqOptions irq_;
	CountersOptions counters_;
	ReportOptions report_;
	FuncOptions func_;
	RawCollect latency_raw_, irq_raw_, report_raw_, func_raw_;
	void add_func();
	void finish_func();
	DiffOptions diff_;
	void add_diff();
	TopOptions top_;
	std::string top_duration_, top_interval_ = "1s";
	void add_top();
	void finish_top();
	std::string threshold_, on_threshold_ = "stop";
	void add_report_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw);
	CLI::App *status_cmd_, *list_cmd_, *enable_cmd_, *disable_cmd_, *latency_cmd_, *counters_cmd_, *irq_cmd_,
		*report_cmd_, *top_cmd_, *func_cmd_, *diff_cmd_;
};

}  // namespace kprof
