// SPDX-License-Identifier: GPL-2.0
// kprof.ko's in-kernel aggregation (kprof/aggregate, kprof/<dev>/hist),
// read back into the same histograms streaming fills. Pure: text in,
// histograms out.
#pragma once

#include "core/aggregate.hpp"
#include "core/events.hpp"
#include "core/funcs.hpp"
#include "core/histogram.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kprof {

// kprof/aggregate (in kprof's debugfs directory) and its states, as
// kprof.ko reads and writes them.
inline constexpr const char *kAggregateFile = "aggregate";
// kprof/enable: the hooks' counters and histograms without tracing (0/1).
inline constexpr const char *kEnableFile = "enable";
// The IRQ tracker's: kprof/girq_aggregate switches, kprof/girq_hist reads.
inline constexpr const char *kGirqAggregateFile = "girq_aggregate";
inline constexpr const char *kGirqHistFile = "girq_hist";
enum class AggState { Off = 0, On = 1, Frozen = 2 };
// "off", "on", "frozen"; "unknown" for anything else.
const char *agg_state_name(int state);

struct KernelStats {
	std::map<Aggregator::Key, Histogram> totals;
	std::map<Aggregator::CpuKey, Histogram> per_cpu;	// filled only if asked for
	uint64_t samples = 0;		// every sample read, filters or not
	uint64_t filtered = 0;		// ... of kinds -e did not ask for
	uint64_t overflow = 0;		// values >= 2^36 ns: binned with the max
	uint64_t untracked = 0;		// samples kprof.ko had no histogram for ("untracked" lines)
	AggState state = AggState::Off;	// when the file was read
};

// Add kprof/<@device>/hist's @text to @out: only the @kinds asked for
// (empty: all), per CPU too if @per_cpu. Throws std::runtime_error for a
// layout other than include/kprof/hist.h's (a kprof.ko of another version),
// a malformed line, or a histogram whose buckets do not add up to its count
// (read while aggregation was on).
void load_kernel_hist(const std::string &text, const std::string &device, const std::set<EventKind> &kinds,
		      bool per_cpu, KernelStats &out);

// Add kprof/girq_hist's @text to @out: the IRQ tracker's histograms, per
// IRQ action (the rows 'kprofctl irq' reports), only the IRQs @irqs asks
// for (empty: all), per CPU too if @per_cpu. Throws like load_kernel_hist.
void load_girq_hist(const std::string &text, const std::vector<std::string> &irqs, bool per_cpu, KernelStats &out);

// Add a kprof/func session's @text to @out (the histograms, per CPU too if
// @per_cpu; untracked calls) and each function's counts to @funcs. Throws
// like load_kernel_hist.
void load_func_hist(const std::string &text, bool per_cpu, KernelStats &out, std::vector<FuncCounts> &funcs);

// A device kind's label as kprof.ko writes it: "span:packet" -> Span,
// "batch" -> Batch. Throws std::runtime_error for any other.
EventKind kind_of_label(const std::string &label);

// "a\\040b" -> "a b": the octal escapes of the kernel's seq_escape().
std::string unescape_octal(const std::string &s);

}  // namespace kprof
