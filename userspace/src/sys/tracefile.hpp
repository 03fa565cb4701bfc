// SPDX-License-Identifier: GPL-2.0
// Reading a trace-cmd data file (trace.dat): libtracecmd opens it (the
// event formats), and its pages go through the same decoder and
// aggregation as a live run; per CPU, the losses the file shows. No
// tracefs, no root.
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
	bool direct = false;		// the pages came from the file's bytes, not libtracecmd
	explicit TraceFile(AggregateOptions o) : agg(std::move(o)) {}
};

// Where the pages come from: the file's bytes where tracedat.hpp reads
// them (a version-7 file, uncompressed or zstd with libzstd), else
// libtracecmd; or libtracecmd always (the unit tests' reference).
enum class PagesFrom { File, Libtracecmd };

// Read @path, only the records of @cpus (empty: all), aggregated as @aopts
// asks. Throws std::runtime_error for a file libtracecmd cannot open or
// one without kprof events.
std::unique_ptr<TraceFile> read_trace_file(const std::string &path, const std::vector<int> &cpus,
					   const AggregateOptions &aopts, PagesFrom from = PagesFrom::File);

}  // namespace kprof
