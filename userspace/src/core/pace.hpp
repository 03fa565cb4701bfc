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
#include <optional>
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

// The reading loop's pause after each pass, from the rate its passes
// see. A pass that read nothing while the last one read something is one
// between pages, not idleness: a reader that takes only whole pages
// (splice()) finds none on some passes at a steady rate. It leaves the
// rate and the pause as they were, and the next pass's bytes are counted
// from the last pass that read any. Past @p.max twice over it is idle: the
// data after an idle stretch came after the wake, not over the whole gap.
class Pacer {
public:
	using Clock = std::chrono::steady_clock;
	explicit Pacer(uint64_t buffer_bytes, const PassPace &p = {}) : buffer_bytes_(buffer_bytes), p_(p) {}
	// A pass at @now read @busiest bytes from its busiest CPU, and stopped
	// at its page limit on some CPU (@capped).
	void pass(uint64_t busiest, bool capped, Clock::time_point now);
	std::chrono::nanoseconds pause() const { return pause_; }
	Clock::time_point last_pass() const { return last_pass_; }

private:
	uint64_t buffer_bytes_;
	PassPace p_;
	std::chrono::nanoseconds pause_ = p_.min;
	Clock::time_point last_pass_{};
	std::optional<Clock::time_point> rated_from_;	// the last pass that read something
};

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

// How one CPU's buffer is taken where it cannot be mapped: whole pages by
// splice() as the writers leave them (the kernel swaps each out of the
// ring, as for trace-cmd record), and the writer's own page copied by
// read() only once the CPU has given no whole page for @quiet: a quiet
// CPU's records would otherwise wait until its page fills, irq -T's hit
// among them. read() copies the writer's page an event at a time, each
// step waiting on the writer if it is crossing the page's end: that wait
// is what warned on 6.1 under load ("writer not moving forward").
//
// A page read() copied in part stays the kernel's reader page, and
// splice() takes no page read in part: it gives nothing until read() has
// taken the rest. So a CPU that was read is, at its next pass, read once
// (the rest of that page, whole if the writer has left it), then spliced:
// a page means the writer got ahead, and splicing goes on; none, and it is
// read up to the writer again, as read() alone would.
class SplicePlan {
public:
	using Clock = std::chrono::steady_clock;
	enum class Op { Splice, Read, Stop };

	explicit SplicePlan(Clock::duration quiet) : quiet_(quiet) {}
	// A pass over the CPUs begins at @now.
	void begin(Clock::time_point now);
	// What to do next in this pass (Stop: this CPU is done for it).
	Op next() const;
	// @op took a page (@got) at @now, or nothing.
	void done(Op op, bool got, Clock::time_point now);
	// Whether the kernel's reader page may be one read() took in part.
	bool partial() const { return partial_; }

private:
	enum class Step {
		Splice,			// whole pages, while they come
		ReadRest,		// once: the rest of the page read in part
		SpliceAfterRead,	// a whole page behind it?
		ReadOn,			// no: up to the writer
		Done,
	};
	Clock::duration quiet_;
	Step step_ = Step::Splice;
	bool partial_ = false;
	std::optional<Clock::time_point> last_page_;	// when this CPU last gave a page (or the first pass)
};

}  // namespace kprof
