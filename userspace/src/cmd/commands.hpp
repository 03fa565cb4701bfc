// SPDX-License-Identifier: GPL-2.0
// One run() per subcommand, each in its own file. They return the exit
// status and throw std::runtime_error (exit 1) or UsageError (exit 2).
#pragma once

#include "cli/options.hpp"

#include <csignal>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// Signals received (main.cpp): 1 stops collecting, reports and cleans up;
// 2 abandons the report and cleans up at once.
extern volatile std::sig_atomic_t g_stop;

int run_status(const StatusOptions &opts);
int run_list(const ListOptions &opts);
int run_enable(const EnableOptions &opts);
int run_latency(const LatencyOptions &opts);
int run_counters(const CountersOptions &opts);
int run_irq(const IrqOptions &opts);
int run_report(const ReportOptions &opts);
int run_top(const TopOptions &opts);
int run_func(const FuncOptions &opts);
int run_diff(const DiffOptions &opts);

class FuncProbes;
// Probe @functions, or every function of @module whose name matches the
// glob @match (func.cpp); returns how many. A named function that cannot
// be probed is an error; of a module's, the refused ones are listed on
// stderr and the others probed.
size_t add_functions(FuncProbes &probes, const std::vector<std::string> &functions,
		     const std::optional<std::string> &module, const std::string &match);

// "kprof:kprof_batch"-style names of the events in @tracing_dir matching
// @pattern: SYSTEM:EVENT or EVENT, globs allowed. Throws UsageError if none.
std::vector<std::string> match_events(const std::string &tracing_dir, const std::string &pattern,
				      const std::string &only_system = "");

}  // namespace kprof
