// SPDX-License-Identifier: GPL-2.0
// Pure parsers for command-line values. Each throws std::invalid_argument
// with a message fit for the user.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

// "3s", "500ms", "200us", "2m", "1h", or a bare number of @bare units
// (seconds unless said: rtla's -d; its -T counts bare numbers in us). Must be > 0.
std::chrono::nanoseconds parse_duration(const std::string &s,
					std::chrono::nanoseconds bare = std::chrono::seconds(1));

// "0-3,6,8-9": sorted, unique CPU numbers, each < ncpus (if ncpus > 0).
std::vector<int> parse_cpu_list(const std::string &s, int ncpus = 0);

// A time unit for reports: "ns", "us" or "ms" -> divisor from ns.
uint64_t parse_unit(const std::string &s);

// A scheduling policy and its priority, for kprofctl's own reader (-P).
struct Priority {
	enum class Policy { Fifo, Rr, Other } policy = Policy::Other;
	int value = 0;		// real-time priority 1..99, or a nice -20..19 for Other
	bool operator==(const Priority &) const = default;
};

// rtla's -P: "f:N" or "fifo:N" (SCHED_FIFO, 1..99), "r:N" or "rr:N"
// (SCHED_RR), "o:N" or "other:N" (SCHED_OTHER at nice N, -20..19).
Priority parse_priority(const std::string &s);

}  // namespace kprof
