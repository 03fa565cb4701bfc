// SPDX-License-Identifier: GPL-2.0
// How long the streaming reader lets the per-CPU ring buffers fill
// between two passes. kprofctl sets the instance's buffer_percent to 0,
// so poll() wakes on the first event; the pacing comes from here instead
// of from the kernel's watermark (see collect.cpp for why).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace kprof {

struct PassPace {
	// Bounds of the pause after a wake on data: no passes of one event
	// each at low rates, and a bound on what a sudden burst must fit in.
	std::chrono::nanoseconds min = std::chrono::milliseconds(10);
	std::chrono::nanoseconds max = std::chrono::milliseconds(250);
	// The pause lets the busiest CPU fill 1/fill_share of its buffer at
	// the rate of the last pass: room for a burst fill_share times faster.
	unsigned fill_share = 8;
	// ... and never more than 1/most_share, whatever min says: a small
	// buffer at a high rate fills in less than min (16 KiB in about 9 ms
	// for irq -T at 5,000 packets/s in the guest), and a floor above its
	// fill time loses events on every pass.
	unsigned most_share = 2;
};

// The pause before the next pass, given the bytes of records the last pass
// read from its busiest CPU over @since (the time since the pass before),
// whether that pass stopped at its page limit (@capped: more is waiting,
// so no pause), and the bytes of the smallest per-CPU buffer. Without a
// rate (nothing read, no time) it is @p.min.
std::chrono::nanoseconds pass_pause(uint64_t busiest_bytes, bool capped, std::chrono::nanoseconds since,
				    uint64_t buffer_bytes, const PassPace &p = {});

// One read from a CPU's buffer: whether it gave a page, the bytes of
// records in it, and whether it was partial (last: writers_page()).
struct PageRead {
	bool got = false;
	uint64_t bytes = 0;
	bool last = false;
};

// What a pass read from one CPU, and whether it stopped at the page cap
// with more perhaps waiting.
struct SourceDrain {
	size_t pages = 0;
	uint64_t bytes = 0;
	bool more = false;
};

// One pass over @sources buffers: @read(i) takes the next page of buffer
// i. The buffers are read in rounds of @round pages each, so that one busy
// CPU does not wait behind another, until each is empty, has given two
// partial pages in a row, or has given @cap pages. One partial page is not
// enough: the rest of a page read in part before (the writer has since
// moved on) is partial too, with whole pages behind it; a second one is
// the writer's page.
std::vector<SourceDrain> drain_rounds(size_t sources, size_t round, size_t cap,
				      const std::function<PageRead(size_t)> &read);

// Whether a page of @bytes of records, of a @page_size-byte sub-buffer,
// is the writer's page: a reader is handed a page the writers have left
// whole, so one under 3/4 full was (almost surely) still being written.
// Reading on would chase the writer an event at a time.
inline bool writers_page(uint64_t bytes, size_t page_size)
{
	return bytes * 4 < uint64_t(page_size) * 3;
}

}  // namespace kprof
