// SPDX-License-Identifier: GPL-2.0
// What kprofctl's subcommands take: an options struct each, with its
// defaults. The parser that fills them is cli.hpp; this header stays free
// of CLI11, whose header costs every file that includes it 12 s to compile.
#pragma once

#include "core/parse.hpp"

#include <chrono>
#include <cstdint>
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
	std::optional<std::string> prometheus;	// --prometheus FILE: counters that add up across runs
	std::optional<std::string> output;	// -o FILE: the report there, not on stdout
	std::optional<std::string> save;	// --save FILE: the JSON report there too (kprofctl diff)
	std::vector<std::string> command;	// -- PROGRAM ARGS: the window lasts while it runs
	std::optional<unsigned> dma_latency_us;	// --dma-latency: held in /dev/cpu_dma_latency meanwhile
	std::optional<Priority> priority;	// -P: kprofctl's own scheduling while collecting
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
	unsigned context_budget_kb = 256 * 1024;	// -T's context, all CPUs together
};

// kprofctl func: calls and time of kernel or module functions, through
// kprof.ko's function probes. Of CollectOptions, -c, -b and --instance do
// not apply (no ring buffer).
struct FuncOptions : CollectOptions {
	std::vector<std::string> functions;	// FUNCTION...; or
	std::optional<std::string> module;	// -m: every function of this module
	std::string match = "*";		// --match: ... whose names match this glob
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

// kprofctl top: a live view of kprof.ko's in-kernel histograms: of the
// devices' hooks, or (--irq) of the IRQ tracker, or (--func, -m) of
// function probes.
struct TopOptions {
	bool irq = false;
	std::vector<std::string> functions;		// --func; or
	std::optional<std::string> module;		// -m: a module's functions
	std::string match = "*";			// --match: ... whose names match
	std::chrono::nanoseconds duration{0};		// 0: until q or Ctrl-C
	std::chrono::nanoseconds interval{std::chrono::seconds(1)};
	std::vector<std::string> events;		// -e labels; empty: all
	std::optional<std::string> device;
	std::string unit = "us";
	uint64_t divisor = 1000;
};

// kprofctl diff BEFORE AFTER: two JSON reports compared (core/diff.hpp).
struct DiffOptions {
	std::string before, after;
	bool json = false;
	bool per_cpu = false;
	std::optional<std::string> svg;
	std::vector<std::string> fail_if;	// METRIC+N% or METRIC+DURATION
	double alpha = 0.05;
	std::string unit = "us";
	uint64_t divisor = 1000;
};

struct VersionRequest {};

using Command = std::variant<VersionRequest, StatusOptions, ListOptions, EnableOptions, LatencyOptions,
			     CountersOptions, IrqOptions, ReportOptions, TopOptions, FuncOptions, DiffOptions>;

// Instance and device names: [A-Za-z0-9_.-]+, not "." or "..".
bool valid_name(const std::string &s);

}  // namespace kprof
