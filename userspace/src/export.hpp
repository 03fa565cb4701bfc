// SPDX-License-Identifier: GPL-2.0
// A report in the formats other tools read: Prometheus' text format for
// node_exporter's textfile collector, and an SVG picture of each latency
// distribution. Pure, like report.hpp: numbers in, strings out.
#pragma once

#include "report.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

// The histogram's upper bounds, in ns: value <= le. Each is 2^k - 1 for
// k = 7 .. 36 (128 ns to 68.7 s), the largest integer below a power of two,
// so that every bucket of the log-linear histogram falls wholly below or
// above it and the cumulative counts are exact, not interpolated.
std::vector<uint64_t> metric_bounds_ns();

// node_exporter's textfile format (Prometheus text exposition 0.0.4):
//   kprof_latency_seconds{event,device[,irq]}  histogram per total row
//   kprof_events_read_total, kprof_events_lost_total,
//   kprof_invalid_records_total                  counters of the run
//   kprof_collection_duration_seconds            gauge
// Label values are escaped as the format requires.
std::string render_openmetrics(const Report &r);

// One chart per total row (every CPU), stacked: the latency histogram on a
// log time axis, p50/p99/p99.9/max marked, and the loss summary as the
// caption. A standalone SVG 1.1 document.
std::string render_svg(const Report &r);

}  // namespace kprof
