// SPDX-License-Identifier: GPL-2.0
// A log-linear latency histogram in the style of HdrHistogram, plus exact
// count/min/max and the mean and variance from shifted sums. The bucket layout is kprof.ko's
// (include/kprof/hist.h), so that in-kernel histograms load bucket by
// bucket.
//
// Values below 2 * kSubBuckets (1024) have a bucket each and are exact.
// Above, every power of two [2^e, 2^(e+1)) is cut into kSubBuckets (512)
// equal buckets, so a bucket is at most 1/512 of the values in it wide.
// A percentile is reported as its bucket's midpoint (clamped to the exact
// min and max): the relative error is at most 1/1024 (0.098 %), the bound
// kRelativeError states and the unit tests hold it to.
//
// record() is O(1); the buckets of a power of two (4 KiB) are allocated
// the first time a value lands in it, so memory is bounded (at most 224
// KiB) and, for latencies spanning a few powers of two, a few dozen KiB.
// merge() adds histograms exactly (per-CPU into totals).
#pragma once

#include <kprof/hist.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace kprof {

class Histogram {
public:
	static constexpr unsigned kSubBucketBits = KPROF_HIST_SUB_BITS;
	static constexpr uint64_t kSubBuckets = KPROF_HIST_SUB;
	static constexpr size_t kBuckets = KPROF_HIST_ALL_BUCKETS;
	static constexpr double kRelativeError = 1.0 / (2 * kSubBuckets);

	// Inline: the decoder's per-record path ends here.
	void record(uint64_t v)
	{
		slot(index_of(v))++;
		if (!count_) {
			min_ = max_ = v;
			shift_ = double(v);
		} else if (v < min_) {
			min_ = v;
		} else if (v > max_) {
			max_ = v;
		}
		count_++;
		const double d = double(v) - shift_;
		s1_ += d;
		s2_ += d * d;
	}
	void merge(const Histogram &other);

	// A histogram kept elsewhere (kprof.ko's aggregation): @n values in
	// bucket @index each, with the exact count, sum, min and max.
	// Buckets first, then finish(); the variance is then taken from the
	// bucket midpoints around the exact mean: no value is further than
	// kRelativeError * max() from its midpoint, so neither is stddev()
	// from the true one.
	void add_bucket(size_t index, uint64_t n);
	void finish(uint64_t count, uint64_t sum, uint64_t min, uint64_t max);

	uint64_t count() const { return count_; }
	uint64_t min() const { return count_ ? min_ : 0; }
	uint64_t max() const { return max_; }
	double mean() const { return count_ ? shift_ + s1_ / double(count_) : 0; }
	// Population standard deviation (divides by the count).
	double stddev() const;

	// The value at percentile p (0 < p <= 100, taken to 1 ppm): the smallest
	// recorded value v such that at least p % of the values are <= v (rank
	// ceil(p / 100 * count), in integer arithmetic), within kRelativeError.
	// 0 for an empty histogram.
	uint64_t percentile(double p) const;

	struct Bin {
		uint64_t lo;	// inclusive
		uint64_t hi;	// exclusive
		uint64_t count;
	};
	// Non-empty buckets, coalesced into at most max_bins bins of whole
	// buckets, in value order (for text bars and JSON).
	std::vector<Bin> bins(size_t max_bins) const;

	// The count in bucket @index.
	uint64_t bucket(size_t index) const;
	// The bucket of the @rank-th smallest value (1 <= rank <= count()).
	size_t index_at_rank(uint64_t rank) const;
	// (index, count) of every non-empty bucket, in value order.
	std::vector<std::pair<size_t, uint64_t>> buckets() const;

	// What a histogram that only grows (kprof.ko's, read while it
	// aggregates) gained from @before to @now: the buckets' difference.
	// The min and max are exact when they moved; otherwise they are the
	// edges of the lowest and highest bucket gained, within @now's range.
	// Throws std::invalid_argument if @now lacks something @before had.
	static Histogram gained(const Histogram &now, const Histogram &before);

	static size_t index_of(uint64_t v) { return kprof_hist_index(v); }
	static uint64_t lowest_of(size_t index);
	static uint64_t width_of(size_t index);
	// The value a bucket stands for: its midpoint.
	static uint64_t mid_of(size_t index) { return lowest_of(index) + (width_of(index) - 1) / 2; }

private:
	static constexpr size_t kGroups = kBuckets / kSubBuckets;
	uint64_t &slot(size_t index)
	{
		auto &g = groups_[index / kSubBuckets];
		if (g.empty()) [[unlikely]]
			g.assign(kSubBuckets, 0);
		return g[index % kSubBuckets];
	}

	// kGroups groups of kSubBuckets buckets, each empty until used.
	std::vector<std::vector<uint64_t>> groups_ = std::vector<std::vector<uint64_t>>(kGroups);
	uint64_t count_ = 0;
	uint64_t min_ = 0;
	uint64_t max_ = 0;
	// The mean and variance as shifted sums: s1_ and s2_ add up v - shift_
	// and its square, shift_ being the first value recorded (so that the
	// sums stay small and nothing cancels). No division per value.
	double shift_ = 0;
	double s1_ = 0;
	double s2_ = 0;
};

}  // namespace kprof
