// SPDX-License-Identifier: GPL-2.0
#include "histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace kprof {

Histogram::Histogram() : counts_(kBuckets, 0) {}

size_t Histogram::index_of(uint64_t v)
{
	if (v < 2 * kSubBuckets)
		return v;
	const unsigned e = std::bit_width(v) - 1;	// >= kSubBucketBits + 1
	const unsigned shift = e - kSubBucketBits;
	const uint64_t sub = (v >> shift) - kSubBuckets;
	return 2 * kSubBuckets + (e - kSubBucketBits - 1) * kSubBuckets + sub;
}

uint64_t Histogram::lowest_of(size_t index)
{
	if (index < 2 * kSubBuckets)
		return index;
	const size_t rel = index - 2 * kSubBuckets;
	const unsigned shift = rel / kSubBuckets + 1;
	return (kSubBuckets + rel % kSubBuckets) << shift;
}

uint64_t Histogram::width_of(size_t index)
{
	if (index < 2 * kSubBuckets)
		return 1;
	return 1ULL << ((index - 2 * kSubBuckets) / kSubBuckets + 1);
}

void Histogram::record(uint64_t v)
{
	counts_[index_of(v)]++;
	if (!count_ || v < min_)
		min_ = v;
	if (v > max_)
		max_ = v;
	count_++;
	// Welford's online update.
	const double d = double(v) - mean_;
	mean_ += d / double(count_);
	m2_ += d * (double(v) - mean_);
}

void Histogram::merge(const Histogram &o)
{
	if (!o.count_)
		return;
	for (size_t i = 0; i < kBuckets; i++)
		counts_[i] += o.counts_[i];
	if (!count_) {
		count_ = o.count_;
		min_ = o.min_;
		max_ = o.max_;
		mean_ = o.mean_;
		m2_ = o.m2_;
		return;
	}
	// Chan et al.'s parallel combination of two Welford states.
	const double n1 = double(count_), n2 = double(o.count_), n = n1 + n2;
	const double d = o.mean_ - mean_;
	mean_ += d * n2 / n;
	m2_ += o.m2_ + d * d * n1 * n2 / n;
	count_ += o.count_;
	min_ = std::min(min_, o.min_);
	max_ = std::max(max_, o.max_);
}

double Histogram::stddev() const
{
	return count_ ? std::sqrt(m2_ / double(count_)) : 0.0;
}

uint64_t Histogram::percentile(double p) const
{
	if (!(p > 0 && p <= 100))
		throw std::invalid_argument("percentile must be in (0, 100]");
	if (!count_)
		return 0;
	// rank = ceil(p / 100 * count) in integers: p in parts per million
	// (the percentiles kprofctl reports are exact there), so that p99.9
	// of 1000 values is the 999th, not the 1000th (floating point gives
	// 999.0000000000001 there).
	constexpr uint64_t kMillion = 1000000;
	const auto ppm = uint64_t(std::llround(p * 1e4));
	const uint64_t q = count_ / kMillion, r = count_ % kMillion;	// no overflow
	const auto rank = std::max<uint64_t>(1, ppm * q + (ppm * r + kMillion - 1) / kMillion);
	uint64_t seen = 0;
	for (size_t i = 0; i < kBuckets; i++) {
		seen += counts_[i];
		if (seen >= rank) {
			const uint64_t mid = lowest_of(i) + (width_of(i) - 1) / 2;
			return std::clamp(mid, min_, max_);
		}
	}
	return max_;
}

std::vector<Histogram::Bin> Histogram::bins(size_t max_bins) const
{
	std::vector<Bin> out;
	if (!count_ || !max_bins)
		return out;
	const size_t first = index_of(min_), last = index_of(max_);
	const size_t span = last - first + 1;
	const size_t per = (span + max_bins - 1) / max_bins;
	for (size_t i = first; i <= last; i += per) {
		const size_t end = std::min(last + 1, i + per);
		Bin b{lowest_of(i), lowest_of(end - 1) + width_of(end - 1), 0};
		for (size_t j = i; j < end; j++)
			b.count += counts_[j];
		out.push_back(b);
	}
	return out;
}

}  // namespace kprof
