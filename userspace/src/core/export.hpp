// SPDX-License-Identifier: GPL-2.0
// A report in the formats other tools read: Prometheus' text format for
// node_exporter's textfile collector, and an SVG picture of each latency
// distribution. Pure, like report.hpp: numbers in, strings out.
#pragma once

#include "core/report.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kprof {

// The histogram's upper bounds, in ns: value <= le. Each is 2^k - 1 for
// k = 7 .. 36 (128 ns to 68.7 s), the largest integer below a power of two,
// so that every bucket of the log-linear histogram falls wholly below or
// above it and the cumulative counts are exact, not interpolated.
std::vector<uint64_t> metric_bounds_ns();

// Prometheus metrics that Prometheus can use across runs: each run's
// counts are added to those of the file the previous run wrote (the file is
// its own state), so that every series is a counter or a histogram that
// only grows, and rate(), increase() and histogram_quantile() over the
// scrapes of consecutive files give the traffic between them. The format
// is Prometheus text 0.0.4, which node_exporter's textfile collector reads:
//   kprof_latency_seconds{event,device[,irq]}   histogram per total row
//   kprof_events_read_total, kprof_events_lost_total,
//   kprof_invalid_records_total                  counters
//   kprof_collection_seconds_total, kprof_runs_total
//                                                 how much time the runs covered
//   kprof_pressure_stall_seconds_total{resource,kind}, kprof_interrupts_total,
//   kprof_context_switches_total, kprof_major_faults_total,
//   kprof_direct_reclaim_stalls_total, kprof_compaction_stalls_total
//                                                 the system during the runs
// Label values are escaped as the format requires.
struct Metrics {
	struct Latency {
		std::vector<uint64_t> below;	// values <= each of metric_bounds_ns()
		uint64_t count = 0;
		double sum_s = 0;
	};
	std::map<std::string, Latency> latency;	// by label set, as written in the file
	uint64_t events_read = 0, events_lost = 0, invalid = 0, runs = 0;
	double collection_s = 0;
	std::map<std::string, double> system;	// by series: "name" or "name{labels}"
};
// One run's metrics.
Metrics metrics_of(const Report &r);
// The metrics of a file render_prometheus() wrote; std::runtime_error on a
// line it would not have written (another program's file, other bounds).
Metrics parse_prometheus(const std::string &text);
// @into + @run, series by series.
void add_metrics(Metrics &into, const Metrics &run);
std::string render_prometheus(const Metrics &m);

// One chart per total row (every CPU), stacked: the latency histogram on a
// log time axis, p50/p99/p99.9/max marked, and the loss summary as the
// caption. A standalone SVG 1.1 document.
std::string render_svg(const Report &r);

struct Diff;
// kprofctl diff's picture: per row compared, both runs' histograms on one
// log time axis (each in per mille of its run's samples), with their
// p50/p99/p99.9/max marked.
std::string render_diff_svg(const Diff &d);

}  // namespace kprof
