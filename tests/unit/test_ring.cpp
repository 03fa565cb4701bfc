// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE ring
#include <boost/test/unit_test.hpp>

#include "core/ring.hpp"

#include <vector>

using kprof::Ring;

namespace {

std::vector<int> contents(const Ring<int> &r)
{
	std::vector<int> v;
	for (int x : r)
		v.push_back(x);
	return v;
}

}  // namespace

// First in, first out, whatever the slots' wrap.
BOOST_AUTO_TEST_CASE(fifo_across_the_wrap)
{
	Ring<int> r;
	BOOST_TEST(r.empty());
	for (int i = 0; i < 10; i++)
		r.push_back(i);
	for (int i = 0; i < 8; i++)
		r.pop_front();
	for (int i = 10; i < 20; i++)	// wraps in the 16 slots
		r.push_back(i);
	BOOST_TEST(r.capacity() == 16u);
	BOOST_TEST(r.size() == 12u);
	BOOST_TEST(r.front() == 8);
	BOOST_TEST(r.back() == 19);
	BOOST_TEST(r[5] == 13);
	std::vector<int> want;
	for (int i = 8; i < 20; i++)
		want.push_back(i);
	BOOST_TEST(contents(r) == want, boost::test_tools::per_element());
}

// Growing while wrapped keeps the order.
BOOST_AUTO_TEST_CASE(grows_in_order)
{
	Ring<int> r;
	for (int i = 0; i < 16; i++)
		r.push_back(i);
	for (int i = 0; i < 5; i++)
		r.pop_front();
	for (int i = 16; i < 100; i++)
		r.push_back(i);
	BOOST_TEST(r.capacity() == 128u);
	std::vector<int> want;
	for (int i = 5; i < 100; i++)
		want.push_back(i);
	BOOST_TEST(contents(r) == want, boost::test_tools::per_element());
}

// A steady stream reuses the slots: no growth, and each push assigns into
// a slot (a string keeps its buffer) instead of making a new element.
namespace {
struct Counted {
	static inline int made = 0;	// constructions, copies included
	int v = 0;
	Counted() { made++; }
	Counted(int x) : v(x) { made++; }
	Counted(const Counted &o) : v(o.v) { made++; }
	Counted &operator=(const Counted &) = default;
};
}  // namespace

BOOST_AUTO_TEST_CASE(steady_stream_reuses_slots)
{
	Ring<Counted> r;
	for (int i = 0; i < 16; i++)
		r.push_back(Counted(i));
	const int made = Counted::made;
	const Counted next(0);
	for (int i = 0; i < 1000; i++) {
		r.pop_front();
		r.push_back(next);
	}
	BOOST_TEST(r.capacity() == 16u);
	BOOST_TEST(r.size() == 16u);
	BOOST_TEST(Counted::made == made + 1);	// next itself
}
