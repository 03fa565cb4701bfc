// SPDX-License-Identifier: GPL-2.0
// kprof's debugfs counters file (kprof/<dev>/counters), parsed. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kprof {

// The "name: value" total lines; the per-CPU table is skipped. Throws
// std::runtime_error on a line that is neither.
std::map<std::string, uint64_t> parse_counters(const std::string &text);

// b - a per name (names missing in a count as 0).
std::map<std::string, uint64_t> counters_delta(const std::map<std::string, uint64_t> &a,
					       const std::map<std::string, uint64_t> &b);

}  // namespace kprof
