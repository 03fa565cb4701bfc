// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE ring
#include <boost/test/unit_test.hpp>

#include "core/ring.hpp"

#include <vector>

using kprof::Ring;

namespace {

// Blocks of four slots: the tests cross several.
using SmallRing = Ring<int, 4>;

std::vector<int> contents(const SmallRing &r)
{
	std::vector<int> v;
	for (int x : r)
		v.push_back(x);
	return v;
}

std::vector<int> range(int from, int to)
{
	std::vector<int> v;
	for (int i = from; i < to; i++)
		v.push_back(i);
	return v;
}

}  // namespace

// First in, first out across blocks; the blocks the front left behind
// take the next elements.
BOOST_AUTO_TEST_CASE(fifo_across_blocks)
{
	SmallRing r;
	BOOST_TEST(r.empty());
	for (int i = 0; i < 10; i++)
		r.push_back(i);
	const size_t held = r.capacity();
	BOOST_TEST(held == 16u);	// batches of 1, 1 and 2 blocks
	for (int i = 0; i < 8; i++)
		r.pop_front();
	for (int i = 10; i < 20; i++)
		r.push_back(i);
	BOOST_TEST(r.capacity() == held);	// the two blocks the front left, reused
	BOOST_TEST(r.size() == 12u);
	BOOST_TEST(r.front() == 8);
	BOOST_TEST(r.back() == 19);
	BOOST_TEST(r[5] == 13);
	BOOST_TEST(contents(r) == range(8, 20), boost::test_tools::per_element());
}

// Growing keeps the order.
BOOST_AUTO_TEST_CASE(grows_in_order_by_blocks)
{
	SmallRing r;
	for (int i = 0; i < 16; i++)
		r.push_back(i);
	for (int i = 0; i < 5; i++)
		r.pop_front();
	for (int i = 16; i < 100; i++)
		r.push_back(i);
	BOOST_TEST(r.size() == 95u);
	BOOST_TEST(contents(r) == range(5, 100), boost::test_tools::per_element());
	while (!r.empty())
		r.pop_front();
	r.push_back(7);
	BOOST_TEST(contents(r) == std::vector<int>{7}, boost::test_tools::per_element());
}

// A steady stream, once it has its blocks, allocates nothing more.
BOOST_AUTO_TEST_CASE(steady_stream_reuses_blocks)
{
	SmallRing r;
	for (int i = 0; i < 16; i++)
		r.push_back(i);
	for (int i = 16; i < 24; i++) {	// into the steady state: a block beyond the 16
		r.pop_front();
		r.push_back(i);
	}
	const size_t held = r.capacity();
	for (int i = 24; i < 1024; i++) {
		r.pop_front();
		r.push_back(i);
	}
	BOOST_TEST(r.capacity() == held);
	BOOST_TEST(contents(r) == range(1008, 1024), boost::test_tools::per_element());
}

// Growth allocates in batches that double (so a few allocations hold a
// large context) up to a bound (so the memory held past the elements
// stays bounded).
BOOST_AUTO_TEST_CASE(batches_double_up_to_a_bound)
{
	SmallRing r;
	std::vector<size_t> caps;
	for (int i = 0; i < 4 * 4 * 200; i++) {
		r.push_back(i);
		if (caps.empty() || caps.back() != r.capacity())
			caps.push_back(r.capacity());
	}
	// 1, 1, 2, 4, ... blocks of 4 slots: 4, 8, 16, 32, ...
	BOOST_TEST_REQUIRE(caps.size() >= 8u);
	for (size_t i = 1; i < 7; i++)
		BOOST_TEST(caps[i] == 2 * caps[i - 1]);
	for (size_t i = 1; i < caps.size(); i++)
		BOOST_TEST(caps[i] - caps[i - 1] <= SmallRing::kMaxBatch * 4);
	BOOST_TEST(r.capacity() - r.size() < SmallRing::kMaxBatch * 4);
	BOOST_TEST(r.back() == 4 * 4 * 200 - 1);
}
