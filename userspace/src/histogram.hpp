// SPDX-License-Identifier: GPL-2.0
// A log-linear latency histogram in the style of HdrHistogram, plus exact
// count/min/max and Welford mean/variance.
//
// Values below 2 * kSubBuckets (256) have a bucket each and are exact.
// Above, every power of two [2^e, 2^(e+1)) is cut into kSubBuckets (128)
// equal buckets, so a bucket is at most 1/128 of the values in it wide.
// A percentile is reported as its bucket's midpoint (clamped to the exact
// min and max): the relative error is at most 1/256 (0.39 %), the bound
// kRelativeError states and the unit tests hold it to.
//
// record() is O(1) with no allocation; memory is constant (7,424 counters,
// 58 KiB); merge() adds histograms exactly (per-CPU into totals).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kprof {

class Histogram {
public:
	static constexpr unsigned kSubBucketBits = 7;
	static constexpr uint64_t kSubBuckets = 1ULL << kSubBucketBits;
	static constexpr size_t kBuckets = 2 * kSubBuckets + (63 - kSubBucketBits) * kSubBuckets;
	static constexpr double kRelativeError = 1.0 / (2 * kSubBuckets);

	Histogram();

	void record(uint64_t v);
	void merge(const Histogram &other);

	uint64_t count() const { return count_; }
	uint64_t min() const { return count_ ? min_ : 0; }
	uint64_t max() const { return max_; }
	double mean() const { return mean_; }
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

	static size_t index_of(uint64_t v);
	static uint64_t lowest_of(size_t index);
	static uint64_t width_of(size_t index);

private:
	std::vector<uint64_t> counts_;	// kBuckets, allocated once
	uint64_t count_ = 0;
	uint64_t min_ = 0;
	uint64_t max_ = 0;
	double mean_ = 0;
	double m2_ = 0;
};

}  // namespace kprof
