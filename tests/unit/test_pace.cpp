// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_pace
#include <boost/test/unit_test.hpp>

#include "core/pace.hpp"

#include <algorithm>
#include <utility>
#include <vector>

using namespace std::chrono;
using kprof::pass_pause;

// The pause in milliseconds, for readable failures.
static double ms(nanoseconds d)
{
	return duration<double, std::milli>(d).count();
}

BOOST_AUTO_TEST_CASE(an_eighth_of_the_fill_time)
{
	// 64 KiB per CPU, 16 KiB read in 100 ms: full in 400 ms.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 65536)) == 50);
	// 2 MiB per CPU, 256 KiB in 200 ms: full in 1.6 s.
	BOOST_TEST(ms(pass_pause(262144, false, milliseconds(200), 2 << 20)) == 200);
	kprof::PassPace quarter;
	quarter.fill_share = 4;
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 65536, quarter)) == 100);
}

BOOST_AUTO_TEST_CASE(bounds)
{
	// Slow: 4 KiB a second into 2 MiB would be a minute.
	BOOST_TEST(ms(pass_pause(4096, false, seconds(1), 2 << 20)) == 250);
	// Fast: 16 KiB a CPU filled in 100 ms; an eighth of that is under the
	// minimum.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 16384)) == 12.5);
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(50), 16384)) == 10);
	// No overflow: an hour's pass, a huge buffer.
	BOOST_TEST(ms(pass_pause(1, false, hours(1), uint64_t(1) << 40)) == 250);
}

// The minimum never lets the busiest CPU fill more than half its buffer:
// a floor above the fill time would lose events on every pass.
BOOST_AUTO_TEST_CASE(the_minimum_yields_to_half_the_fill_time)
{
	// 16 KiB a CPU, filled in 9 ms (irq -T at 5,000 packets/s in the guest).
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(9), 16384)) == 4.5);
	// An 8 KiB buffer's worth 40 times over in 10 ms: full in 250 us.
	BOOST_TEST(ms(pass_pause(40 * 8192, false, milliseconds(10), 8192)) == 0.125);
	BOOST_TEST(ms(pass_pause(UINT64_MAX, false, nanoseconds(1), 1)) == 0);
	// At the edge: full in 20 ms, the minimum is half of it.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(20), 16384)) == 10);
}

BOOST_AUTO_TEST_CASE(no_rate_or_more_waiting)
{
	// A pass that stopped at its page limit left pages behind: go on.
	BOOST_TEST(ms(pass_pause(256, true, seconds(1), 512)) == 0);
	// Nothing read, no time, or no buffer size known: the minimum.
	BOOST_TEST(ms(pass_pause(0, false, seconds(1), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, nanoseconds(0), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, nanoseconds(-5), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, seconds(1), 0)) == 10);
}

namespace {

// Buffers of so many pages each, the last of each the writer's; read()
// logs which buffer each read was of.
struct Buffers {
	std::vector<size_t> left;
	std::vector<size_t> order;
	kprof::PageRead read(size_t i)
	{
		order.push_back(i);
		if (!left[i])
			return {};
		left[i]--;
		return {true, 4000, left[i] == 0};
	}
};

}  // namespace

BOOST_AUTO_TEST_CASE(drain_rounds_share_the_reads)
{
	Buffers b{{36, 20}, {}};
	const auto d = kprof::drain_rounds(2, 16, 256, [&](size_t i) { return b.read(i); });
	// 16 of CPU 0, 16 of CPU 1, 16 of CPU 0, the last 4 of CPU 1 and one
	// more read, the last 4 of CPU 0 and one more: a partial page may be
	// the rest of one read in part, so only a second one ends the CPU.
	std::vector<size_t> want;
	for (auto [cpu, n] : {std::pair{0, 16}, {1, 16}, {0, 16}, {1, 5}, {0, 5}})
		want.insert(want.end(), n, size_t(cpu));
	BOOST_TEST(b.order == want, boost::test_tools::per_element());
	BOOST_TEST(d[0].pages == 36u);
	BOOST_TEST(d[0].bytes == 36u * 4000);
	BOOST_TEST(d[1].pages == 20u);
	BOOST_TEST(!d[0].more);
	BOOST_TEST(!d[1].more);
}

BOOST_AUTO_TEST_CASE(drain_rounds_cap_and_empty_buffers)
{
	Buffers b{{1000, 0, 3}, {}};
	const auto d = kprof::drain_rounds(3, 16, 40, [&](size_t i) { return b.read(i); });
	BOOST_TEST(d[0].pages == 40u);	// capped: more may wait
	BOOST_TEST(d[0].more);
	BOOST_TEST(d[1].pages == 0u);	// empty: one read, then done
	BOOST_TEST(!d[1].more);
	BOOST_TEST(std::count(b.order.begin(), b.order.end(), 1u) == 1);
	BOOST_TEST(d[2].pages == 3u);
	BOOST_TEST(b.left[0] == 960u);
}

// The rest of a page read in part, then whole pages, then the writer's
// page and a second partial read of it: the whole pages are read in the
// same pass.
BOOST_AUTO_TEST_CASE(drain_rounds_read_past_the_rest_of_a_page)
{
	const std::vector<kprof::PageRead> pages = {
		{true, 900, true}, {true, 4000, false}, {true, 4000, false}, {true, 300, true}, {true, 40, true},
		{true, 4000, false}};
	size_t next = 0;
	const auto d = kprof::drain_rounds(1, 16, 256, [&](size_t) { return pages.at(next++); });
	BOOST_TEST(next == 5u);
	BOOST_TEST(d[0].pages == 5u);
	BOOST_TEST(d[0].bytes == 900u + 8000 + 300 + 40);
}

BOOST_AUTO_TEST_CASE(the_writers_page_is_under_three_quarters_full)
{
	BOOST_TEST(kprof::writers_page(0, 4096));
	BOOST_TEST(kprof::writers_page(3071, 4096));
	BOOST_TEST(!kprof::writers_page(3072, 4096));
	BOOST_TEST(!kprof::writers_page(4080, 4096));
	// Sub-buffers larger than a page (6.8+ buffer_subbuf_size_kb).
	BOOST_TEST(kprof::writers_page(8000, 16384));
	BOOST_TEST(!kprof::writers_page(16000, 16384));
}
