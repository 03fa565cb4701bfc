// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_histogram
#include <boost/test/unit_test.hpp>

#include "core/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using kprof::Histogram;

namespace {

// A percentile as the fraction num/den, so that the reference needs no
// floating point at all.
struct Pct {
	uint64_t num, den;
	double percent() const { return 100.0 * double(num) / double(den); }
};
const Pct kPcts[] = {{1, 100}, {10, 100}, {50, 100}, {90, 100}, {99, 100}, {999, 1000}, {9999, 10000}, {1, 1}};

// The definition, written independently of Histogram: sort, then the value
// of rank ceil(num / den * n), in integers.
uint64_t exact_percentile(std::vector<uint64_t> v, Pct p)
{
	std::sort(v.begin(), v.end());
	const uint64_t rank = std::max<uint64_t>(1, (p.num * v.size() + p.den - 1) / p.den);
	return v[rank - 1];
}

void check_against_sort(const std::vector<uint64_t> &values, const Histogram &h, const char *what)
{
	BOOST_TEST_CONTEXT(what)
	{
		BOOST_TEST(h.count() == values.size());
		BOOST_TEST(h.min() == *std::min_element(values.begin(), values.end()));
		BOOST_TEST(h.max() == *std::max_element(values.begin(), values.end()));
		double mean = 0;
		for (auto v : values)
			mean += double(v);
		mean /= double(values.size());
		double var = 0;
		for (auto v : values)
			var += (double(v) - mean) * (double(v) - mean);
		BOOST_TEST(h.mean() == mean, boost::test_tools::tolerance(1e-9));
		BOOST_TEST(h.stddev() == std::sqrt(var / double(values.size())), boost::test_tools::tolerance(1e-6));
		for (const Pct p : kPcts) {
			const uint64_t want = exact_percentile(values, p);
			const uint64_t got = h.percentile(p.percent());
			const double err = std::fabs(double(got) - double(want));
			BOOST_TEST_INFO("p" << p.percent() << " want " << want << " got " << got);
			BOOST_TEST(err <= double(want) * Histogram::kRelativeError);
		}
	}
}

Histogram fill(const std::vector<uint64_t> &values)
{
	Histogram h;
	for (auto v : values)
		h.record(v);
	return h;
}

}  // namespace

BOOST_AUTO_TEST_CASE(bucket_geometry)
{
	// Every value lands in a bucket that contains it, buckets tile the
	// range without gaps, and none is wider than 1/512 of its values.
	for (size_t i = 0; i + 1 < Histogram::kBuckets; i++) {
		BOOST_TEST_REQUIRE(Histogram::lowest_of(i) + Histogram::width_of(i) == Histogram::lowest_of(i + 1));
		BOOST_TEST_REQUIRE(Histogram::index_of(Histogram::lowest_of(i)) == i);
		BOOST_TEST_REQUIRE(Histogram::width_of(i) * Histogram::kSubBuckets <= std::max<uint64_t>(Histogram::lowest_of(i), Histogram::kSubBuckets));
	}
	BOOST_TEST(Histogram::index_of(UINT64_MAX) == Histogram::kBuckets - 1);
	BOOST_TEST(Histogram::kRelativeError <= 0.001);
}

BOOST_AUTO_TEST_CASE(small_values_are_exact)
{
	Histogram h;
	for (uint64_t v = 0; v < 256; v++)
		h.record(v);
	BOOST_TEST(h.percentile(50) == 127u);
	BOOST_TEST(h.percentile(100) == 255u);
	BOOST_TEST(h.min() == 0u);
}

BOOST_AUTO_TEST_CASE(random_uniform)
{
	std::mt19937_64 rng(42);
	std::uniform_int_distribution<uint64_t> d(1000, 5000000);
	std::vector<uint64_t> v(200000);
	for (auto &x : v)
		x = d(rng);
	check_against_sort(v, fill(v), "uniform");
}

BOOST_AUTO_TEST_CASE(constant)
{
	std::vector<uint64_t> v(1000, 123456789);
	auto h = fill(v);
	check_against_sort(v, h, "constant");
	BOOST_TEST(h.percentile(99.9) == 123456789u);	// clamped to min == max
	BOOST_TEST(h.stddev() == 0.0);
}

BOOST_AUTO_TEST_CASE(bimodal)
{
	std::mt19937_64 rng(7);
	std::normal_distribution<double> fast(20000, 2000), slow(3000000, 100000);
	std::vector<uint64_t> v;
	for (int i = 0; i < 100000; i++)
		v.push_back(uint64_t(std::max(1.0, i % 10 ? fast(rng) : slow(rng))));
	check_against_sort(v, fill(v), "bimodal");
}

BOOST_AUTO_TEST_CASE(heavy_tailed)
{
	std::mt19937_64 rng(3);
	std::lognormal_distribution<double> d(10, 2.5);
	std::vector<uint64_t> v;
	for (int i = 0; i < 100000; i++)
		v.push_back(uint64_t(std::min(1e18, d(rng))));
	check_against_sort(v, fill(v), "lognormal");
}

BOOST_AUTO_TEST_CASE(merge_equals_single)
{
	std::mt19937_64 rng(11);
	std::lognormal_distribution<double> d(12, 1.5);
	std::vector<uint64_t> all;
	Histogram parts[4], merged;
	for (int i = 0; i < 80000; i++) {
		uint64_t x = uint64_t(d(rng));
		all.push_back(x);
		parts[i % 3 == 0 ? 0 : (i % 7 == 0 ? 1 : 2)].record(x);
	}
	for (auto &p : parts)	// parts[3] stays empty: merging it is a no-op
		merged.merge(p);
	check_against_sort(all, merged, "merged");
	auto single = fill(all);
	BOOST_TEST(merged.mean() == single.mean(), boost::test_tools::tolerance(1e-9));
	BOOST_TEST(merged.stddev() == single.stddev(), boost::test_tools::tolerance(1e-9));
	for (double p : {50.0, 99.0})
		BOOST_TEST(merged.percentile(p) == single.percentile(p));
}

BOOST_AUTO_TEST_CASE(empty_and_bad_input)
{
	Histogram h;
	BOOST_TEST(h.percentile(50) == 0u);
	BOOST_TEST(h.count() == 0u);
	BOOST_TEST(h.bins(10).empty());
	BOOST_CHECK_THROW(h.percentile(0), std::invalid_argument);
	BOOST_CHECK_THROW(h.percentile(101), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(bins_cover_all_counts)
{
	std::mt19937_64 rng(5);
	std::uniform_int_distribution<uint64_t> d(100, 100000);
	Histogram h;
	for (int i = 0; i < 5000; i++)
		h.record(d(rng));
	auto bins = h.bins(20);
	BOOST_TEST(bins.size() <= 20u);
	uint64_t total = 0;
	for (size_t i = 0; i < bins.size(); i++) {
		total += bins[i].count;
		if (i)
			BOOST_TEST(bins[i].lo == bins[i - 1].hi);
	}
	BOOST_TEST(total == h.count());
	BOOST_TEST(bins.front().lo <= h.min());
	BOOST_TEST(bins.back().hi > h.max());
}

// p99.9 of 1000 values is the 999th: a floating-point rank (999.0000000000001
// rounded up) reports the 1000th, the max. Values below 256 are exact.
BOOST_AUTO_TEST_CASE(percentile_rank_is_integer)
{
	for (uint64_t n : {1000ULL, 2000ULL, 10000ULL, 1000000ULL}) {
		Histogram h;
		for (uint64_t i = 0; i + 1 < n; i++)
			h.record(10);
		h.record(200);
		BOOST_TEST_INFO("n=" << n);
		BOOST_TEST(h.percentile(99.9) == 10u);
		BOOST_TEST(h.percentile(99.99) == (n >= 10000 ? 10u : 200u));
		BOOST_TEST(h.percentile(100) == 200u);
	}
	// p50 of 2 values is the first; p90 of 10 the 9th.
	Histogram two;
	two.record(1);
	two.record(2);
	BOOST_TEST(two.percentile(50) == 1u);
	Histogram ten;
	for (uint64_t v = 1; v <= 10; v++)
		ten.record(v);
	BOOST_TEST(ten.percentile(90) == 9u);
	BOOST_TEST(ten.percentile(91) == 10u);
}

// kprof.ko and kprofctl index with include/kprof/hist.h: every value lands
// in the bucket that holds it, and the kernel's last bucket (everything
// from 2^36 ns on) is kprofctl's bucket of 2^36.
BOOST_AUTO_TEST_CASE(kernel_layout_is_a_prefix)
{
	std::mt19937_64 rng(9);
	for (int i = 0; i < 100000; i++) {
		const uint64_t v = rng() >> (rng() % 64);
		const size_t b = kprof_hist_index(v);
		BOOST_TEST_REQUIRE(Histogram::lowest_of(b) <= v);
		BOOST_TEST_REQUIRE(v - Histogram::lowest_of(b) < Histogram::width_of(b));
	}
	BOOST_TEST(KPROF_HIST_KERNEL_BUCKETS - 1 == Histogram::index_of(1ULL << KPROF_HIST_KERNEL_BITS));
	BOOST_TEST(KPROF_HIST_KERNEL_BUCKETS - 2 == Histogram::index_of((1ULL << KPROF_HIST_KERNEL_BITS) - 1));
	BOOST_TEST(Histogram::kBuckets == Histogram::index_of(UINT64_MAX) + 1);
}

// A histogram loaded bucket by bucket (in-kernel aggregation) reports what
// the same values recorded one by one report: count, min, max, mean and
// every percentile exactly; stddev within kRelativeError * max.
BOOST_AUTO_TEST_CASE(loaded_from_buckets)
{
	std::mt19937_64 rng(13);
	std::lognormal_distribution<double> d(11, 1.2);
	std::vector<uint64_t> v;
	Histogram rec;
	uint64_t sum = 0;
	for (int i = 0; i < 50000; i++) {
		v.push_back(uint64_t(d(rng)));
		rec.record(v.back());
		sum += v.back();
	}
	Histogram loaded;
	for (size_t i = 0; i < Histogram::kBuckets; i++)
		loaded.add_bucket(i, rec.bucket(i));
	loaded.finish(rec.count(), sum, rec.min(), rec.max());
	BOOST_TEST(loaded.count() == rec.count());
	BOOST_TEST(loaded.min() == rec.min());
	BOOST_TEST(loaded.max() == rec.max());
	BOOST_TEST(loaded.mean() == rec.mean(), boost::test_tools::tolerance(1e-9));
	BOOST_TEST(std::fabs(loaded.stddev() - rec.stddev()) <= double(rec.max()) * Histogram::kRelativeError);
	for (const Pct p : kPcts)
		BOOST_TEST(loaded.percentile(p.percent()) == rec.percentile(p.percent()));
	check_against_sort(v, rec, "recorded");
	BOOST_CHECK_THROW(loaded.add_bucket(Histogram::kBuckets, 1), std::out_of_range);
}

// A window of a histogram that only grows (kprofctl top --irq, --func):
// the buckets, count and percentiles of what came in between, exactly as
// a histogram of those values alone; the max exact when it moved.
BOOST_AUTO_TEST_CASE(gained_between_two_readings)
{
	kprof::Histogram before, now, window;
	for (uint64_t v = 1000; v < 50000; v += 7) {
		before.record(v);
		now.record(v);
	}
	for (uint64_t v = 3000; v < 900000; v += 13) {
		now.record(v);
		window.record(v);
	}
	const auto g = kprof::Histogram::gained(now, before);
	BOOST_TEST(g.count() == window.count());
	BOOST_TEST(g.buckets() == window.buckets());
	for (double p : {50.0, 90.0, 99.0, 99.9})
		BOOST_TEST(g.percentile(p) == window.percentile(p));
	BOOST_TEST(g.max() == window.max());
	BOOST_TEST(g.min() <= window.min());
	BOOST_TEST(g.min() >= window.min() - kprof::Histogram::width_of(kprof::Histogram::index_of(window.min())));
	BOOST_TEST(g.mean() == window.mean(), boost::test_tools::tolerance(1e-6));
	// Nothing new: an empty window.
	BOOST_TEST(kprof::Histogram::gained(now, now).count() == 0u);
	// From nothing: the whole histogram.
	BOOST_TEST(kprof::Histogram::gained(now, kprof::Histogram()).max() == now.max());
	BOOST_TEST(kprof::Histogram::gained(now, kprof::Histogram()).min() == now.min());
	// A histogram that shrank is not one that only grows.
	BOOST_CHECK_THROW(kprof::Histogram::gained(before, now), std::invalid_argument);
}
