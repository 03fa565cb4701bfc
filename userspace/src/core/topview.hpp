// SPDX-License-Identifier: GPL-2.0
// kprofctl top's state and screen, pure: windows of kprof.ko's in-kernel
// histograms go in, the table comes out as text. The I/O (debugfs, the
// terminal, keys) is top.cpp's.
#pragma once

#include "core/aggregate.hpp"
#include "core/histogram.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace kprof {

// kprof/<dev>/latency's sample count per label ("batch", "span:rx"): the
// always-on totals kprof.ko keeps whether or not it aggregates. Throws
// std::runtime_error on a malformed heading line.
std::map<std::string, uint64_t> parse_latency_counts(const std::string &text);

// What kprofctl top shows: kprof devices' hooks (kprof/aggregate, read in
// frozen windows), the IRQ tracker (kprof/girq_aggregate) or function
// probes (kprof/func), both read while they aggregate.
enum class TopSource { Devices, Irqs, Functions };

class TopState {
public:
	using Key = Aggregator::Key;	// label, device, -1

	using Counts = std::map<std::string, std::map<std::string, uint64_t>>;	// device -> label -> n

	// The always-on counts just before the first window opened.
	void start(const Counts &counts)
	{
		base_ = counts;
		started_ = true;
	}
	// A window of the aggregation ended: its histograms (merged over the
	// CPUs), @seconds long, and kprof.ko's always-on sample counts per
	// device and label read right after it was frozen.
	void window(const std::map<Key, Histogram> &hists, double seconds, const Counts &counts);
	// A source read while it aggregates: its histograms since the start
	// (each only grows; the window is what it gained since the last
	// reading), and @lost, the samples kprof.ko could not aggregate
	// since the start.
	void reading(const std::map<Key, Histogram> &since_start, double seconds, uint64_t lost);
	// Start the totals again from the next window (the 'r' key).
	void reset() { reset_ = true; }

	struct Row {
		Histogram last;			// the last window
		Histogram total;		// every window since the start (or reset)
		double rate = 0;		// samples per second in the last window
		uint64_t uncovered = 0;		// samples since the start that no window holds
	};
	const std::map<Key, Row> &rows() const { return rows_; }
	double elapsed() const { return elapsed_; }	// seconds the totals cover
	double last_window() const { return last_; }
	unsigned windows() const { return windows_; }
	uint64_t lost() const { return lost_; }

private:
	std::map<Key, Row> rows_;
	// The always-on counts when the totals started, per device and label.
	Counts base_;
	bool started_ = false, reset_ = false;
	double elapsed_ = 0, last_ = 0;
	unsigned windows_ = 0;
	std::map<Key, Histogram> last_reading_;	// reading()'s since the start
	uint64_t lost_ = 0;
};

// The screen: a heading, then one line per device (IRQ action, function)
// and event, cut to @width columns and @height lines (0: no limit).
// @unit_ns: ns per unit.
std::string render_top(const TopState &s, TopSource src, const std::string &unit, uint64_t unit_ns, int width,
		       int height);

}  // namespace kprof
