// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_pagequeue
#include <boost/test/unit_test.hpp>

#include "core/pagequeue.hpp"

#include <atomic>
#include <thread>

using kprof::PageQueue;

namespace {

PageQueue::Item page(uint32_t source, uint8_t fill, size_t size = 4096)
{
	return {source, 0, std::vector<uint8_t>(size, fill)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(pages_come_out_in_order_then_nothing_once_closed)
{
	PageQueue q(1 << 20);
	for (uint8_t i = 0; i < 5; i++)
		q.push(page(i % 2, i));
	q.push({1, 7, {}});	// a marker between pages keeps its place
	q.push(page(0, 9));
	q.close();
	std::vector<int> fills;
	while (auto it = q.pop())
		fills.push_back(it->mark ? -int(it->mark) : it->bytes.at(0));
	BOOST_TEST(fills == (std::vector<int>{0, 1, 2, 3, 4, -7, 9}), boost::test_tools::per_element());
	BOOST_TEST(!q.pop());
}

BOOST_AUTO_TEST_CASE(the_consumer_is_woken_for_a_batch_or_by_publish)
{
	PageQueue q(1 << 20);
	for (size_t i = 0; i + 1 < PageQueue::kWakeEvery; i++)
		q.push(page(0, 1));
	BOOST_TEST(!q.try_pop());	// 31 pages: not yet visible
	q.push(page(0, 1));
	for (size_t i = 0; i < PageQueue::kWakeEvery; i++)
		BOOST_TEST(q.try_pop().has_value());
	BOOST_TEST(!q.try_pop());
	q.push(page(0, 2));
	BOOST_TEST(!q.try_pop());
	q.publish();	// the end of a pass
	const auto it = q.try_pop();
	BOOST_TEST_REQUIRE(it.has_value());
	BOOST_TEST(it->bytes.at(0) == 2);
}

// The reader waits at the limit (counted) until the decoder has taken a
// page; nothing is dropped, and the queue never holds more than its limit.
BOOST_AUTO_TEST_CASE(the_producer_waits_at_the_limit_and_nothing_is_lost)
{
	PageQueue q(4 * 4096);
	constexpr int kPages = 1000;
	std::atomic<int> seen{0};
	std::thread consumer([&] {
		int next = 0;
		while (auto it = q.pop()) {
			if (it->bytes.at(0) == uint8_t(next))
				next++;
			q.recycle(std::move(it->bytes));
			if (next % 100 == 0)
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
		seen = next;
	});
	for (int i = 0; i < kPages; i++) {
		auto b = q.buffer(4096);
		std::fill(b.begin(), b.end(), uint8_t(i));
		q.push({0, 0, std::move(b)});
	}
	q.close();
	consumer.join();
	BOOST_TEST(seen.load() == kPages);
	const auto f = q.figures();
	BOOST_TEST(f.limit_bytes == 4u * 4096);
	BOOST_TEST(f.high_water_bytes == 4u * 4096);
	BOOST_TEST(f.waits > 0u);
}

BOOST_AUTO_TEST_CASE(an_aborted_queue_neither_waits_nor_keeps)
{
	PageQueue q(4096);
	q.push(page(0, 1));
	std::thread consumer([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
		q.abort();
	});
	q.push(page(0, 2));	// over the limit: waits until the abort
	consumer.join();
	BOOST_TEST(q.aborted());
	BOOST_TEST(!q.pop());
	q.push(page(0, 3));
	BOOST_TEST(q.figures().waits == 1u);
}

BOOST_AUTO_TEST_CASE(a_page_larger_than_the_limit_still_passes)
{
	PageQueue q(100);
	q.push(page(0, 5, 4096));	// empty queue: taken, not waited on
	q.close();
	const auto it = q.pop();
	BOOST_TEST_REQUIRE(it.has_value());
	BOOST_TEST(it->bytes.size() == 4096u);
	BOOST_TEST(q.figures().waits == 0u);
}
