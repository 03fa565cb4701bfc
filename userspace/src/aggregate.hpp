// SPDX-License-Identifier: GPL-2.0
// Turning decoded samples into per-(event, device) and per-CPU statistics.
// Pure: the caller feeds samples and gets histograms back.
#pragma once

#include "decoder.hpp"
#include "histogram.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kprof {

// "irq_thread_latency", "irq_handler", "batch", "span:<name>" (or
// "span:<id>" when the device did not name it).
std::string stat_label(EventKind k, uint32_t span_id, const std::vector<std::string> *span_names);

struct AggregateOptions {
	std::optional<std::string> device;	// only this device
	std::set<int> cpus;			// only events recorded on these; empty: all
	bool per_cpu = false;			// also keep per-CPU histograms
};

class Aggregator {
public:
	using Key = std::pair<std::string, std::string>;		// label, device
	using CpuKey = std::tuple<std::string, std::string, int>;	// label, device, cpu

	explicit Aggregator(AggregateOptions opts) : opts_(std::move(opts)) {}

	// @span_names: device -> names of its span ids (from debugfs), may be empty.
	// @device must be the same name for the same Sample::dev every time: the
	// per-(device, kind, span) slots are looked up once and cached by id.
	void add(const Sample &s, const std::string &device,
		 const std::map<std::string, std::vector<std::string>> &span_names);

	const std::map<Key, Histogram> &totals() const { return totals_; }
	const std::map<CpuKey, Histogram> &per_cpu() const { return per_cpu_; }
	// Events per (event name, device), before the device/CPU filters: for
	// the cross-check against the module's counters.
	const std::map<Key, uint64_t> &seen() const { return seen_; }
	uint64_t filtered_out() const { return filtered_; }

private:
	// What add() needs for one (device id, kind, span id), found once.
	struct Slot {
		uint64_t *seen;
		Histogram *total;	// nullptr: filtered out by --device
		std::string label;
		std::string device;
		std::vector<Histogram *> cpus;	// --per-cpu, by CPU number
	};
	Slot &slot(const Sample &s, const std::string &device,
		   const std::map<std::string, std::vector<std::string>> &span_names);

	AggregateOptions opts_;
	std::unordered_map<uint64_t, Slot> slots_;
	std::map<Key, Histogram> totals_;
	std::map<CpuKey, Histogram> per_cpu_;
	std::map<Key, uint64_t> seen_;
	uint64_t filtered_ = 0;
};

}  // namespace kprof
