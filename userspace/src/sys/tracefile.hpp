// SPDX-License-Identifier: GPL-2.0
// Reading a trace-cmd data file (trace.dat) through libtracecmd: every
// record of the kprof events goes through the same decoder and aggregation
// as a live run; per CPU, the losses the file shows. No tracefs, no root.
#pragma once

#include "core/aggregate.hpp"
#include "core/decoder.hpp"
#include "core/report.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kprof {

struct TraceFile {
	Aggregator agg;
	std::map<int, CpuLoss> cpus;	// records, and losses from page headers
	uint64_t first_ts = UINT64_MAX, last_ts = 0;
	uint64_t events = 0, invalid = 0, other = 0;
	explicit TraceFile(AggregateOptions o) : agg(std::move(o)) {}
};

// Read @path, only the records of @cpus (empty: all), aggregated as @aopts
// asks. Throws std::runtime_error for a file libtracecmd cannot open or
// one without kprof events.
std::unique_ptr<TraceFile> read_trace_file(const std::string &path, const std::vector<int> &cpus,
					   const AggregateOptions &aopts);

}  // namespace kprof
