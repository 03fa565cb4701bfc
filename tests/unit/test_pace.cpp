// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_pace
#include <boost/test/unit_test.hpp>

#include "core/pace.hpp"

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
	// Fast: an 8 KiB buffer's worth 40 times over in 10 ms.
	BOOST_TEST(ms(pass_pause(40 * 8192, false, milliseconds(10), 8192)) == 10);
	// No overflow: an hour's pass, a huge buffer.
	BOOST_TEST(ms(pass_pause(1, false, hours(1), uint64_t(1) << 40)) == 250);
	BOOST_TEST(ms(pass_pause(UINT64_MAX, false, nanoseconds(1), 1)) == 10);
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
