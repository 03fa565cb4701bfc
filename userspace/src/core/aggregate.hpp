// SPDX-License-Identifier: GPL-2.0
// Turning decoded samples into per-(event, device) and per-CPU statistics.
// Pure: the caller feeds samples and gets histograms back.
#pragma once

#include "core/decoder.hpp"
#include "core/histogram.hpp"
#include "core/report.hpp"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kprof {

// "irq_thread_latency", "irq_handler", "batch", "span:<name>" (or
// "span:<id>" when the device did not name it).
std::string stat_label(EventKind k, uint32_t span_id, const std::vector<std::string> *span_names);

struct AggregateOptions {
	std::optional<std::string> device;	// only this device
	std::set<EventKind> kinds;		// only these events (-e); empty: all
	bool per_cpu = false;			// also keep per-CPU histograms
	std::vector<std::string> irqs;		// tracker events: only these IRQs, by number or name
};

// A row's source as reports name it: the device "pktproc-q0", or for the
// tracker's rows (@irq >= 0) the IRQ and its action, "24 kprof_pktproc".
std::string source_name(const std::string &device, int irq);

// Whether a tracker event of IRQ @irq, action @name, passes --irq @irqs.
bool irq_wanted(const std::vector<std::string> &irqs, int irq, const std::string &name);

// --irq's values against the IRQ actions the kernel has now (IRQ number ->
// action names): the names no action has (a typo: refused before
// collecting), and the numbers without an action yet (a driver may
// request it later: allowed, with a note).
struct IrqSelection {
	std::vector<std::string> unknown_names;
	std::vector<std::string> idle_numbers;
};
IrqSelection check_irq_selection(const std::vector<std::string> &irqs,
				 const std::map<int, std::vector<std::string>> &actions);

// What the tracker's events say about one IRQ action: its wake requests
// and what became of them. Only exact when nothing was lost.
struct IrqTally {
	uint64_t handlers = 0;	// hard handler runs
	uint64_t requests = 0;	// ... that returned IRQ_WAKE_THREAD
	uint64_t woken = 0;	// requests that woke the sleeping thread
	uint64_t runs = 0;	// thread runs that served requests (measured)
	uint64_t coalesced = 0;	// requests those runs also served
	uint64_t busy = 0;	// runs whose first request found the thread in a run
	// Requests no measured run served: pending when the collection ended,
	// dropped by kprof.ko (girq_counters), or not measured (no kprobes).
	uint64_t unserved() const { return requests > runs + coalesced ? requests - runs - coalesced : 0; }
};

// What the seq fields of one (event, device) show. The window (lo, hi] is
// the span of kprof/<dev>/emitted readings taken while the events were
// enabled: every event emitted in it must have been read.
struct SeqTrack {
	uint64_t count = 0;			// events read
	uint64_t first = UINT64_MAX, last = 0;	// lowest and highest seq read
	uint64_t lo = 0, hi = UINT64_MAX;	// the window
	uint64_t in_window = 0;			// events read with lo < seq <= hi
	// Events missing between the first and the last read.
	uint64_t gaps() const { return count ? last - first + 1 - count : 0; }
};

class Aggregator {
public:
	// label, device (tracker: the IRQ action's name), IRQ (-1 for devices)
	using Key = std::tuple<std::string, std::string, int>;
	using CpuKey = std::tuple<std::string, std::string, int, int>;	// Key, cpu
	using IrqKey = std::pair<int, std::string>;			// IRQ, action name

	explicit Aggregator(AggregateOptions opts) : opts_(std::move(opts)) {}

	// @span_names: device -> names of its span ids (from debugfs), may be empty.
	// @device must be the same name for the same Sample::dev every time: the
	// per-(device, kind, span) slots are looked up once and cached by id.
	void add(const Sample &s, const std::string &device,
		 const std::map<std::string, std::vector<std::string>> &span_names);

	const std::map<Key, Histogram> &totals() const { return totals_; }
	const std::map<CpuKey, Histogram> &per_cpu() const { return per_cpu_; }
	// Per (event name, device), every event read, filters or not. Tracker
	// events count per CPU, so their "device" is "cpu<N>".
	const std::map<std::pair<std::string, std::string>, SeqTrack> &seqs() const { return seqs_; }
	const std::map<IrqKey, IrqTally> &irqs() const { return irqs_; }
	uint64_t filtered_out() const { return filtered_; }

	// The emitted counts, device -> event -> seq, read when the window
	// opened and when it closed. Open before the first add(), close before
	// any event emitted after the closing reading can be added.
	using Emitted = std::map<std::string, std::map<std::string, uint64_t>>;
	void window_open(const Emitted &e0) { e0_ = e0; }
	void window_close(const Emitted &e1);

private:
	// What add() needs for one (device id, kind, span id), found once.
	struct Slot {
		SeqTrack *seq;
		Histogram *total;	// nullptr: filtered out by --device, -e or --irq
		IrqTally *tally;	// tracker events that pass --irq
		std::string label;
		std::string device;
		int irq;
		std::vector<Histogram *> cpus;	// --per-cpu, by CPU number
	};
	Slot &slot(const Sample &s, const std::string &device,
		   const std::map<std::string, std::vector<std::string>> &span_names);

	// A slot's identity: (device id, kind) and (span id or IRQ, CPU for
	// the tracker), each pair in a word of its own.
	struct SlotKey {
		uint64_t dev_kind = 0;
		uint64_t sub_cpu = 0;
		bool operator==(const SlotKey &) const = default;
		size_t hash() const { return size_t((dev_kind * 0x9E3779B97F4A7C15ULL) ^ (sub_cpu * 0xC2B2AE3D27D4EB4FULL)); }
	};
	struct SlotKeyHash {
		size_t operator()(const SlotKey &k) const { return k.hash(); }
	};
	AggregateOptions opts_;
	std::unordered_map<SlotKey, Slot, SlotKeyHash> slots_;
	struct CacheEntry {
		SlotKey key;
		Slot *slot = nullptr;
	};
	static constexpr unsigned kCacheBits = 6;
	std::array<CacheEntry, 1 << kCacheBits> cache_{};
	std::map<Key, Histogram> totals_;
	std::map<CpuKey, Histogram> per_cpu_;
	std::map<std::pair<std::string, std::string>, SeqTrack> seqs_;
	std::map<IrqKey, IrqTally> irqs_;
	Emitted e0_;
	std::optional<Emitted> e1_;	// once the window has closed
	uint64_t filtered_ = 0;
};

// The cross-check rows for @events (tracepoint names) of every device (or
// @device): with both emitted readings, the events read in each seq window
// against the window's size; without them, the events read against the
// span of seq values read (so only gaps show).
std::vector<CrossCheck> cross_checks(const Aggregator &agg, const std::set<std::string> &events,
				     const std::optional<std::string> &device, const Aggregator::Emitted *e0,
				     const Aggregator::Emitted *e1);

}  // namespace kprof
