// SPDX-License-Identifier: GPL-2.0
// Decoding raw ring-buffer pages into kprof samples. Pure: it takes the
// bytes of a sub-buffer page and a tep handle holding the event formats,
// and returns numbers. Fields are looked up once per event type, when the
// Decoder is built; the per-event path is offset arithmetic.
#pragma once

#include "core/events.hpp"
#include "core/tep.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

// The event names, "kprof_irq_thread_latency" ..., by kind.
inline const char *event_name(EventKind k)
{
	return spec(k).event;
}

// The byte order of a kernel's records (the trace's), and its unsigned
// fields of 1, 2, 4 or 8 bytes (else 0) read on this host. A live trace is
// in the host's order; a trace.dat says which order it was recorded in.
class ByteOrder {
public:
	static constexpr bool kHostBig = std::endian::native == std::endian::big;
	explicit ByteOrder(bool big = kHostBig) : big_(big) {}
	bool big() const { return big_; }
	[[gnu::always_inline]] uint64_t load(const uint8_t *p, int size) const
	{
		switch (size) {
		case 1:
			return *p;
		case 2:
			return load_as<uint16_t>(p);
		case 4:
			return load_as<uint32_t>(p);
		case 8:
			return load_as<uint64_t>(p);
		}
		return 0;
	}
	// A ring-buffer record's header word: its type_len is the C bit
	// field's first 5 bits, the low ones on a little-endian kernel and the
	// high ones on a big-endian one.
	uint32_t type_len(uint32_t word) const { return big_ ? word >> 27 : word & 0x1f; }
	// The same word's time delta: the other 27 bits.
	uint32_t time_delta(uint32_t word) const { return big_ ? word & ((1u << 27) - 1) : word >> 5; }

private:
	template <class T> [[gnu::always_inline]] T load_as(const uint8_t *p) const
	{
		T v;
		std::memcpy(&v, p, sizeof(v));
		if (big_ == kHostBig)
			return v;
		if constexpr (sizeof(T) == 2)
			return __builtin_bswap16(v);
		else if constexpr (sizeof(T) == 4)
			return __builtin_bswap32(v);
		else
			return __builtin_bswap64(v);
	}
	bool big_;
};

// The byte order of the kernel that @tep's formats and records came from.
inline ByteOrder byte_order_of(tep_handle *tep)
{
	return ByteOrder(tep_is_file_bigendian(tep));
}

struct Sample {
	EventKind kind;
	uint32_t dev;		// Decoder::device_name(dev): device, or IRQ action name
	int32_t cpu;		// buffer (CPU) the event was recorded in
	uint64_t ts;		// ring-buffer timestamp
	uint64_t value_ns;	// delta_ns or duration_ns
	uint32_t aux;		// coalesced | packets | span id | handler's return; 0 for irq_handler
	int32_t hard_cpu;	// irq_thread_latency only, else -1
	uint64_t seq;		// the device's (tracker: the CPU's) count of this kind's events
	int32_t irq = -1;	// tracker events: the IRQ number
	bool flag = false;	// EventSpec::flag (kprof_girq_thread: busy)
};

struct PageResult {
	uint64_t events = 0;	// kprof events decoded
	uint64_t other = 0;	// events of other systems in the page
	uint64_t invalid = 0;	// records that do not fit their format or the page
	// Events the ring buffer dropped before this page, from the page
	// header: -1 if it flagged a loss without a count, else the count.
	int64_t missed = 0;
	uint64_t bytes = 0;	// the length of the page's records (its header's)
	// The time stamps of its first and last record; first > last: none.
	uint64_t first_ts = UINT64_MAX, last_ts = 0;
	bool bad_page = false;	// the header or a record's length does not fit the page: nothing read
};

// A sub-buffer page's header: a u64 timestamp, then "commit", a long (4 or
// 8 bytes) holding the data length and, in bits 31 and 30, the flags for
// "events were lost before this page" and "their count is stored right
// after the data".
struct PageHeader {
	uint64_t length = 0;	// bytes of records after the header
	int64_t missed = 0;	// as PageResult::missed
	size_t data_offset = 0;
};
// Parse and check the header of a @size-byte page whose commit field is
// @commit_size bytes, in byte order @order; nullopt if the header or its
// length does not fit.
std::optional<PageHeader> parse_page_header(const void *page, size_t size, size_t commit_size, ByteOrder order);
// The ring buffer's record types (type_len): 0 has its length in the next
// word, 1..28 are that many words of data, the rest are special.
namespace rb {
constexpr uint32_t kPadding = 29, kTimeExtend = 30, kTimeStamp = 31;
constexpr int kTimeShift = 27;			// a header's time delta: 27 bits
constexpr uint64_t kStampMsb = 0xf8ULL << 56;	// what an absolute stamp leaves out
}  // namespace rb

// Whether the @length bytes of records at @data (@avail bytes readable
// there) can be walked: every step moves forward and stays inside the
// buffer. A padding or type-0 length that does not move forward would loop
// forever, one past the page would read outside it; kbuffer (libtraceevent
// 1.7) follows them unchecked, and for_each_record() relies on this check.
bool records_walkable(const uint8_t *data, size_t avail, uint64_t length, ByteOrder order);

// One data record as the page holds it: the event's bytes, their length as
// kbuffer_event_size() gives it (type 0: rounded up to words, possibly
// negative in a damaged page) and the time stamp.
struct RawRecord {
	const uint8_t *data;
	int32_t size;
	uint64_t ts;
};

// Hand each data record of the @length bytes at @data to @fn, its time
// stamp built from the page's @page_ts as kbuffer builds it (deltas,
// extends, absolute stamps, padding's delta too). The records must be
// walkable (records_walkable()); a data record past @length is handed over
// as it is, for the caller to refuse. @fn returns false to stop.
template <class Fn>
inline void for_each_record(const uint8_t *data, uint64_t length, uint64_t page_ts, ByteOrder order, Fn &&fn)
{
	uint64_t ts = page_ts;
	uint64_t off = 0;
	while (off < length) {
		const auto word = uint32_t(order.load(data + off, 4));
		const uint32_t type_len = order.type_len(word);
		const uint32_t delta = order.time_delta(word);
		if (type_len != 0 && type_len < rb::kPadding) {
			ts += delta;
			if (!fn(RawRecord{data + off + 4, int32_t(4 * type_len), ts}))
				return;
			off += 4 + 4 * uint64_t(type_len);
			continue;
		}
		const auto next = uint32_t(order.load(data + off + 4, 4));
		switch (type_len) {
		case rb::kPadding:
			ts += delta;
			off = uint64_t(int64_t(off) + 4 + int32_t(next));
			break;
		case rb::kTimeStamp:
			ts = ((uint64_t(next) << rb::kTimeShift) + delta) | (ts & rb::kStampMsb);
			off += 8;
			break;
		case rb::kTimeExtend:
			ts += (uint64_t(next) << rb::kTimeShift) + delta;
			off += 8;
			break;
		default: {
			const auto size = int32_t((next - 4 + 3) & ~3u);
			ts += delta;
			if (!fn(RawRecord{data + off + 8, size, ts}))
				return;
			off = uint64_t(int64_t(off) + 8 + size);
		}
		}
	}
}

// A record of an event that is not kprof's, as it lies in the page.
struct OtherRecord {
	int id;			// the event's id (tep)
	const uint8_t *data;
	int size;
	uint64_t ts;
	int cpu;
};

class Decoder {
public:
	// Looks up every kprof event known to @tep and their fields. Throws
	// std::runtime_error if @tep has no kprof event at all or a kprof event
	// lacks a field this decoder needs (a module of another version).
	explicit Decoder(tep_handle *tep);

	// Decode one sub-buffer page of @size bytes from @cpu's buffer,
	// appending to @out. With @skip, the records in the first @skip bytes
	// after the header were decoded before (the page was handed out again
	// with more behind them): they are walked for their time stamps only,
	// and the header's loss was counted then.
	PageResult decode_page(const void *page, size_t size, int cpu, std::vector<Sample> &out, uint64_t skip = 0);
	// Copy a sub-buffer page the kernel may still be adding to (a mapped
	// reader page, @size bytes) into @out: the records its header counts
	// when this starts, and that header. The bytes of records copied.
	uint64_t copy_live_page(const uint8_t *live, size_t size, uint8_t *out) const;
	// Decode one record (the event's data, @size bytes, as a page or a
	// trace-cmd file holds it), appending to @out and counting in @r.
	void decode_record(const uint8_t *data, int size, uint64_t ts, int cpu, PageResult &r,
			   std::vector<Sample> &out);

	// What the header of a @size-byte page says was lost before it (as
	// PageResult::missed); nullopt if the header does not fit.
	std::optional<int64_t> page_missed(const void *page, size_t size) const;
	// The bytes of records its header says a @size-byte page holds; 0 if
	// the header does not fit. Safe beside decode_page() on another thread.
	uint64_t page_length(const void *page, size_t size) const;

	const std::string &device_name(uint32_t id) const { return devices_[id]; }
	size_t device_count() const { return devices_.size(); }
	// The kinds whose events the tep handle knows.
	bool knows(EventKind k) const;
	// Hand every record of another event system to @fn (the threshold
	// analysis' context), valid during the call only.
	void on_other(std::function<void(const OtherRecord &)> fn) { other_ = std::move(fn); }

private:
	struct Layout {
		bool known = false;
		EventKind kind{};
		int dev_off = -1;	// __data_loc word
		int val_off = -1, val_size = 0;
		int aux_off = -1, aux_size = 0;
		int cpu_off = -1, cpu_size = 0;
		int irq_off = -1, irq_size = 0;
		int flag_off = -1, flag_size = 0;
		int seq_off = -1;
		int min_size = 0;
		// The __string's bytes (its NUL too) of this event's last
		// record and their device: most records repeat them.
		std::string last_raw;
		uint32_t last_dev = 0;
	};
	uint32_t device_of(Layout &l, const uint8_t *raw, uint32_t len);
	int type_of(const uint8_t *p, int esize) const;
	uint32_t intern(std::string_view name);
	static constexpr size_t kScanDevices = 16;

	tep_handle *tep_;
	ByteOrder order_;
	size_t commit_size_;	// the header page's commit field: the kernel's long
	int type_off_ = 0, type_size_ = 0;	// common_type; size 0: ask tep
	std::vector<Layout> by_id_;	// indexed by event id
	bool kinds_[kNumKinds] = {};
	std::vector<std::string> devices_;
	std::map<std::string, uint32_t, std::less<>> device_ids_;
	std::function<void(const OtherRecord &)> other_;
};

}  // namespace kprof
