// SPDX-License-Identifier: GPL-2.0
// How long the streaming reader lets the per-CPU ring buffers fill
// between two passes. kprofctl sets the instance's buffer_percent to 0,
// so poll() wakes on the first event; the pacing comes from here instead
// of from the kernel's watermark (see collect.cpp for why).
#pragma once

#include <chrono>
#include <cstdint>

namespace kprof {

struct PassPace {
	// Bounds of the pause after a wake on data: no passes of one event
	// each at low rates, and a bound on what a sudden burst must fit in.
	std::chrono::nanoseconds min = std::chrono::milliseconds(10);
	std::chrono::nanoseconds max = std::chrono::milliseconds(250);
	// The pause lets the busiest CPU fill 1/fill_share of its buffer at
	// the rate of the last pass: room for a burst fill_share times faster.
	unsigned fill_share = 8;
};

// The pause before the next pass, given the bytes of records the last pass
// read from its busiest CPU over @since (the time since the pass before),
// whether that pass stopped at its page limit (@capped: more is waiting,
// so no pause), and the bytes of the smallest per-CPU buffer. Without a
// rate (nothing read, no time) it is @p.min.
std::chrono::nanoseconds pass_pause(uint64_t busiest_bytes, bool capped, std::chrono::nanoseconds since,
				    uint64_t buffer_bytes, const PassPace &p = {});

}  // namespace kprof
