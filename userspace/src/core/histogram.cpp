// SPDX-License-Identifier: GPL-2.0
#include "core/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kprof {

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

uint64_t Histogram::bucket(size_t index) const
{
	const auto &g = groups_.at(index / kSubBuckets);
	return g.empty() ? 0 : g[index % kSubBuckets];
}

void Histogram::add_bucket(size_t index, uint64_t n)
{
	if (index >= kBuckets)
		throw std::out_of_range("histogram bucket " + std::to_string(index) + " does not exist");
	if (n)
		slot(index) += n;
}

void Histogram::finish(uint64_t count, uint64_t sum, uint64_t min, uint64_t max)
{
	count_ = count;
	min_ = min;
	max_ = max;
	shift_ = count ? double(sum) / double(count) : 0;	// the exact mean
	s1_ = 0;
	s2_ = 0;
	for (size_t g = 0; g < kGroups; g++)
		for (size_t i = 0; i < groups_[g].size(); i++)
			if (groups_[g][i]) {
				const double d = double(std::clamp(mid_of(g * kSubBuckets + i), min, max)) - shift_;
				s2_ += double(groups_[g][i]) * d * d;
			}
}

Histogram Histogram::gained(const Histogram &now, const Histogram &before)
{
	if (before.count_ > now.count_)
		throw std::invalid_argument("a histogram that only grows lost samples");
	Histogram d;
	size_t lo = kBuckets, hi = 0;
	for (const auto &[index, n] : now.buckets()) {
		const uint64_t was = before.bucket(index);
		if (was > n)
			throw std::invalid_argument("a histogram that only grows lost samples in a bucket");
		if (n == was)
			continue;
		d.add_bucket(index, n - was);
		lo = std::min(lo, index);
		hi = std::max(hi, index);
	}
	const uint64_t count = now.count_ - before.count_;
	if (!count)
		return d;
	const double sum = now.mean() * double(now.count_) - before.mean() * double(before.count_);
	const uint64_t min = before.count_ && now.min() < before.min() ? now.min()
			     : std::max(now.min(), lowest_of(lo));
	const uint64_t max = before.count_ && now.max() > before.max() ? now.max()
			     : std::min(now.max(), lowest_of(hi) + width_of(hi) - 1);
	d.finish(count, uint64_t(std::max(0.0, sum) + 0.5), std::min(min, max), max);
	return d;
}

void Histogram::merge(const Histogram &o)
{
	if (!o.count_)
		return;
	for (size_t g = 0; g < kGroups; g++)
		for (size_t i = 0; i < o.groups_[g].size(); i++)
			if (o.groups_[g][i])
				slot(g * kSubBuckets + i) += o.groups_[g][i];
	if (!count_) {
		count_ = o.count_;
		min_ = o.min_;
		max_ = o.max_;
		shift_ = o.shift_;
		s1_ = o.s1_;
		s2_ = o.s2_;
		return;
	}
	// o's sums moved to this shift: v - shift = (v - o.shift) + delta.
	const double delta = o.shift_ - shift_, n = double(o.count_);
	s2_ += o.s2_ + 2 * delta * o.s1_ + n * delta * delta;
	s1_ += o.s1_ + n * delta;
	count_ += o.count_;
	min_ = std::min(min_, o.min_);
	max_ = std::max(max_, o.max_);
}

double Histogram::stddev() const
{
	if (!count_)
		return 0.0;
	const double n = double(count_);
	return std::sqrt(std::max(0.0, s2_ / n - (s1_ / n) * (s1_ / n)));
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
	return std::clamp(mid_of(index_at_rank(rank)), min_, max_);
}

size_t Histogram::index_at_rank(uint64_t rank) const
{
	uint64_t seen = 0;
	for (size_t g = 0; g < kGroups; g++)
		for (size_t i = 0; i < groups_[g].size(); i++) {
			seen += groups_[g][i];
			if (seen >= rank)
				return g * kSubBuckets + i;
		}
	return index_of(max_);
}

std::vector<std::pair<size_t, uint64_t>> Histogram::buckets() const
{
	std::vector<std::pair<size_t, uint64_t>> out;
	for (size_t g = 0; g < kGroups; g++)
		for (size_t i = 0; i < groups_[g].size(); i++)
			if (groups_[g][i])
				out.emplace_back(g * kSubBuckets + i, groups_[g][i]);
	return out;
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
			b.count += bucket(j);
		out.push_back(b);
	}
	return out;
}

}  // namespace kprof
