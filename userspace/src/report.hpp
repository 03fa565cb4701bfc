// SPDX-License-Identifier: GPL-2.0
// The latency report: what was measured and what was lost, as text, JSON
// or CSV. Pure: built from numbers, renders strings.
#pragma once

#include "histogram.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

struct ReportRow {
	std::string event;	// stat_label()
	std::string device;
	int cpu = -1;		// -1: all CPUs
	const Histogram *hist = nullptr;
};

struct CpuLoss {
	int cpu = 0;
	uint64_t pages = 0;		// pages read
	uint64_t missed = 0;		// events lost, from page headers
	uint64_t lossy_pages = 0;	// pages flagged lost-events without a count
	uint64_t overrun = 0;		// per_cpu/cpuN/stats overrun, during the run
	uint64_t dropped = 0;		// per_cpu/cpuN/stats dropped events, during the run
};

struct CrossCheck {
	std::string device;
	std::string event;
	uint64_t events = 0;	// events kprofctl read
	uint64_t counter = 0;	// the module's counter moved by this much
};

struct Report {
	double duration_s = 0;
	std::string unit = "us";
	uint64_t divisor = 1000;	// ns per unit
	bool show_hist = false;
	bool per_cpu = false;
	std::vector<ReportRow> rows;
	std::vector<CpuLoss> loss;
	uint64_t events_read = 0;
	uint64_t invalid = 0;		// records that did not decode
	uint64_t other = 0;		// records of other event systems
	uint64_t unpaired = 0;		// thread runs with no IRQ to pair (module counter)
	uint64_t filtered = 0;		// excluded by --device/--cpus
	bool counters = false;		// the cross-check is available
	std::vector<CrossCheck> checks;

	uint64_t total_missed() const;	// max(missed, overrun) + dropped, all CPUs
	bool lost_anything() const;	// any loss, invalid record or lossy page
};

std::string render_text(const Report &r);
nlohmann::json render_json(const Report &r);
std::string render_csv(const Report &r);

}  // namespace kprof
