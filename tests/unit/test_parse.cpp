// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_parse
#include <boost/test/unit_test.hpp>

#include "core/parse.hpp"

using namespace std::chrono;

BOOST_AUTO_TEST_CASE(durations)
{
	BOOST_TEST(kprof::parse_duration("3s").count() == 3000000000LL);
	BOOST_TEST(kprof::parse_duration("3").count() == 3000000000LL);
	BOOST_TEST(kprof::parse_duration("250ms").count() == 250000000LL);
	BOOST_TEST(kprof::parse_duration("2m").count() == 120000000000LL);
	BOOST_TEST(kprof::parse_duration("1h").count() == 3600000000000LL);
	BOOST_TEST(kprof::parse_duration("200us").count() == 200000LL);
	BOOST_TEST(kprof::parse_duration("1500ns").count() == 1500LL);
	for (const char *bad : {"", "0", "0s", "s", "ms", "-1s", "1.5s", "3x", "3 s", "1d", "99999999999999h"})
		BOOST_CHECK_THROW(kprof::parse_duration(bad), std::invalid_argument);
}

// A bare number counts in the unit the option says (rtla: -d in s, -T in us).
BOOST_AUTO_TEST_CASE(durations_bare_unit)
{
	BOOST_TEST(kprof::parse_duration("200", microseconds(1)).count() == 200000LL);
	BOOST_TEST(kprof::parse_duration("200ms", microseconds(1)).count() == 200000000LL);
	BOOST_TEST(kprof::parse_duration("3", seconds(1)).count() == 3000000000LL);
	BOOST_CHECK_THROW(kprof::parse_duration("0", microseconds(1)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(cpu_lists)
{
	BOOST_TEST((kprof::parse_cpu_list("0") == std::vector<int>{0}));
	BOOST_TEST((kprof::parse_cpu_list("3,0-1,1") == std::vector<int>{0, 1, 3}));
	BOOST_TEST((kprof::parse_cpu_list("0-3", 4) == std::vector<int>{0, 1, 2, 3}));
	for (const char *bad : {"", ",", "0,", "a", "1-", "-1", "3-1", "0-4096", "1,,2"})
		BOOST_CHECK_THROW(kprof::parse_cpu_list(bad), std::invalid_argument);
	BOOST_CHECK_THROW(kprof::parse_cpu_list("2", 2), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(units)
{
	BOOST_TEST(kprof::parse_unit("ns") == 1u);
	BOOST_TEST(kprof::parse_unit("us") == 1000u);
	BOOST_TEST(kprof::parse_unit("ms") == 1000000u);
	BOOST_CHECK_THROW(kprof::parse_unit("s"), std::invalid_argument);
}

// rtla's -P forms, and the ranges each policy takes.
BOOST_AUTO_TEST_CASE(priorities)
{
	using P = kprof::Priority::Policy;
	BOOST_TEST((kprof::parse_priority("f:50") == kprof::Priority{P::Fifo, 50}));
	BOOST_TEST((kprof::parse_priority("fifo:1") == kprof::Priority{P::Fifo, 1}));
	BOOST_TEST((kprof::parse_priority("r:99") == kprof::Priority{P::Rr, 99}));
	BOOST_TEST((kprof::parse_priority("rr:10") == kprof::Priority{P::Rr, 10}));
	BOOST_TEST((kprof::parse_priority("o:-20") == kprof::Priority{P::Other, -20}));
	BOOST_TEST((kprof::parse_priority("other:19") == kprof::Priority{P::Other, 19}));
	for (const char *bad : {"", "f", "f:", "f:0", "f:100", "r:-1", "o:20", "o:-21", "d:1:2", "fifo:5x", "x:5", ":5",
				"f:50:1"})
		BOOST_CHECK_THROW(kprof::parse_priority(bad), std::invalid_argument);
	try {
		kprof::parse_priority("o:20");
	} catch (const std::invalid_argument &e) {
		BOOST_TEST(std::string(e.what()).find("nice value from -20 to 19") != std::string::npos, e.what());
	}
}
