// SPDX-License-Identifier: GPL-2.0
// kprof's debugfs counters file (kprof/<dev>/counters), parsed. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

// A decimal number, all of @s, in a file the kernel wrote; otherwise
// std::runtime_error quoting @line.
uint64_t kernel_u64(std::string_view s, const std::string &line);

// The "name: value" total lines; the per-CPU table is skipped. Throws
// std::runtime_error on a line that is neither.
std::map<std::string, uint64_t> parse_counters(const std::string &text);

// kprof/girq_emitted: "cpu<N> <event> <seq>" lines, as cpu<N> -> event ->
// seq. Throws std::runtime_error on any other line.
std::map<std::string, std::map<std::string, uint64_t>> parse_girq_emitted(const std::string &text);

// b - a per name (names missing in a count as 0).
std::map<std::string, uint64_t> counters_delta(const std::map<std::string, uint64_t> &a,
					       const std::map<std::string, uint64_t> &b);

// Per device, the counters of kprof/<dev>/counters.
using DeviceCounters = std::map<std::string, std::map<std::string, uint64_t>>;

// How far @name moved from @c0 to @c1, summed over the devices (or only
// @device).
uint64_t counter_moved(const DeviceCounters &c0, const DeviceCounters &c1, const std::string &name,
		       const std::optional<std::string> &device);

// What kprof/girq_counters says the IRQ tracker cannot measure on this
// kernel (its run probes or its nested probe missing), as a note for the
// report; empty when it measures everything.
std::string tracker_probe_note(const std::map<std::string, uint64_t> &girq_counters);

}  // namespace kprof
