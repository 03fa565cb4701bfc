// SPDX-License-Identifier: GPL-2.0
// The bounded queue between kprofctl's two collecting threads: the reading
// thread takes pages off the per-CPU ring buffers and pushes them here, the
// decoding thread pops, decodes and aggregates them. A burst the decoder
// cannot follow costs memory up to the limit; at the limit the reader waits
// (and the wait is counted), so the queue itself never drops a page: an
// event lost while it waits is the ring buffer's overrun, counted there.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace kprof {

// How the reading thread takes pages off the kernel's buffers: from their
// mapping (kernels from 6.10), whole by splice() with the writer's page
// read() on quiet CPUs, or all by read() (KPROFCTL_READER=read).
enum class ReaderWay : uint8_t { Mmap, Splice, Read };

// Its name in reports and in KPROFCTL_READER: "mmap", "splice", "read".
const char *reader_name(ReaderWay w);
// The way @name names, if any.
std::optional<ReaderWay> reader_way(std::string_view name);

// What the queue went through, for the report's loss section.
struct QueueFigures {
	uint64_t limit_bytes = 0;
	uint64_t high_water_bytes = 0;	// the most it held at once
	uint64_t waits = 0;		// pushes that waited at the limit
	ReaderWay reader = ReaderWay::Read;
	// With splice(): pages taken whole, and pages read() copied.
	uint64_t spliced = 0, copied = 0;
};

class PageQueue {
public:
	// A page read from @source, or, with @mark != 0, a marker the decoding
	// side gives a meaning to (the end of a pass), in order with the pages.
	struct Item {
		uint32_t source = 0;
		uint32_t mark = 0;
		std::vector<uint8_t> bytes;
		// The bytes of records at the page's start handed out before.
		uint32_t skip = 0;
	};
	// The consumer is woken once this many items are waiting, not per item.
	static constexpr size_t kWakeEvery = 32;

	explicit PageQueue(uint64_t limit_bytes) { figures_.limit_bytes = limit_bytes; }
	PageQueue(const PageQueue &) = delete;
	PageQueue &operator=(const PageQueue &) = delete;

	// Producer side.
	// A buffer of @size bytes, recycled from a popped page where one is spare.
	std::vector<uint8_t> buffer(size_t size);
	// Queue @it; while the queue holds items and @it would take it past the
	// limit, publish and wait. Returns at once after abort().
	void push(Item &&it);
	// Make every queued item visible to the consumer and wake it.
	void publish();
	// No more items: pop() returns what is left, then nothing.
	void close();

	// Consumer side.
	// The next visible item, waiting for one; nullopt once closed and
	// empty, or after abort().
	std::optional<Item> pop();
	// The same without waiting: nullopt if no item is visible.
	std::optional<Item> try_pop();
	// Hand a popped item's buffer back for buffer().
	void recycle(std::vector<uint8_t> &&b);
	// The consumer gave up: push() no longer waits or keeps anything.
	void abort();

	bool aborted() const;
	QueueFigures figures() const;

private:
	std::optional<Item> take_locked();
	void publish_locked();

	mutable std::mutex mu_;
	std::condition_variable items_cv_, room_cv_;
	std::deque<Item> items_;
	size_t visible_ = 0;		// items at the front the consumer may take
	uint64_t bytes_ = 0;		// the bytes of items_
	bool closed_ = false;
	// Set under mu_ (the waits test it there), read without it by
	// aborted(), once per page on the reading thread.
	std::atomic<bool> aborted_{false};
	std::vector<std::vector<uint8_t>> spare_;
	QueueFigures figures_;
};

}  // namespace kprof
