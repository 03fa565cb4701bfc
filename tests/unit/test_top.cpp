// SPDX-License-Identifier: GPL-2.0
// kprofctl top's windows, totals, read-gap accounting and screen.
#define BOOST_TEST_MODULE kprof_top
#include <boost/test/unit_test.hpp>

#include "core/topview.hpp"

#include <sstream>

using namespace kprof;

namespace {

Histogram hist(std::initializer_list<uint64_t> values)
{
	Histogram h;
	for (uint64_t v : values)
		h.record(v);
	return h;
}

Histogram n_values(uint64_t n, uint64_t v)
{
	Histogram h;
	for (uint64_t i = 0; i < n; i++)
		h.record(v);
	return h;
}

const TopState::Key kBatch{"batch", "nic0", -1};

TopState::Counts batch_count(uint64_t n)
{
	return {{"nic0", {{"batch", n}}}};
}

std::vector<std::string> lines_of(const std::string &s)
{
	std::vector<std::string> out;
	std::istringstream in(s);
	for (std::string l; std::getline(in, l);)
		out.push_back(l);
	return out;
}

}  // namespace

// kprof/<dev>/latency as kprof.ko writes it (lat_show_one()).
BOOST_AUTO_TEST_CASE(latency_counts_parse)
{
	const std::string text = "irq_thread_latency count=0 min_ns=0 mean_ns=0 max_ns=0\n"
				 "batch count=1234 min_ns=900 mean_ns=1500 max_ns=90000\n"
				 "  [512, 1024) 4\n"
				 "  [1024, 2048) 1230\n"
				 "span:rx count=7 min_ns=1 mean_ns=2 max_ns=3\n";
	const auto c = parse_latency_counts(text);
	BOOST_TEST(c.size() == 3u);
	BOOST_TEST(c.at("batch") == 1234u);
	BOOST_TEST(c.at("span:rx") == 7u);
	BOOST_TEST(c.at("irq_thread_latency") == 0u);
	BOOST_CHECK_THROW(parse_latency_counts("batch cnt=4\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_latency_counts("batch count=4x min_ns=0\n"), std::runtime_error);
}

// The last window, the totals over the windows, the rate, and the samples
// the read gaps missed: kprof.ko's always-on count minus the totals.
BOOST_AUTO_TEST_CASE(windows_totals_and_gaps)
{
	TopState st;
	st.start(batch_count(100));
	st.window({{kBatch, n_values(10, 2000)}}, 2.0, batch_count(112));
	BOOST_TEST_REQUIRE(st.rows().count(kBatch) == 1u);
	const auto &row = st.rows().at(kBatch);
	BOOST_TEST(row.last.count() == 10u);
	BOOST_TEST(row.total.count() == 10u);
	BOOST_TEST(row.rate == 5.0);
	BOOST_TEST(row.uncovered == 2u);
	BOOST_TEST(st.elapsed() == 2.0);

	st.window({{kBatch, hist({1000, 3000, 5000, 7000, 9000})}}, 1.0, batch_count(120));
	BOOST_TEST(st.rows().at(kBatch).last.count() == 5u);
	BOOST_TEST(st.rows().at(kBatch).last.max() == 9000u);
	BOOST_TEST(st.rows().at(kBatch).total.count() == 15u);
	BOOST_TEST(st.rows().at(kBatch).total.min() == 1000u);
	BOOST_TEST(st.rows().at(kBatch).uncovered == 5u);
	BOOST_TEST(st.elapsed() == 3.0);
	BOOST_TEST(st.windows() == 2u);
}

// 'r': the totals start again after the window in which it was pressed;
// the gap accounting starts from that window's counts.
BOOST_AUTO_TEST_CASE(reset_starts_the_totals_after_the_window)
{
	TopState st;
	st.start(batch_count(0));
	st.window({{kBatch, n_values(10, 100)}}, 1.0, batch_count(10));
	st.reset();
	st.window({{kBatch, n_values(7, 100)}}, 1.0, batch_count(18));
	BOOST_TEST(st.rows().at(kBatch).last.count() == 7u);
	BOOST_TEST(st.rows().at(kBatch).total.count() == 0u);
	BOOST_TEST(st.rows().at(kBatch).uncovered == 0u);
	BOOST_TEST(st.elapsed() == 0.0);
	st.window({{kBatch, n_values(3, 100)}}, 1.0, batch_count(22));
	BOOST_TEST(st.rows().at(kBatch).total.count() == 3u);
	BOOST_TEST(st.rows().at(kBatch).uncovered == 1u);
	BOOST_TEST(st.elapsed() == 1.0);
}

// A window without samples of an event: its last window is empty, its
// totals stay; an event only the gaps saw still gets a row.
BOOST_AUTO_TEST_CASE(quiet_windows_and_events_only_the_gaps_saw)
{
	TopState st;
	st.start({{"nic0", {{"batch", 0}, {"span:rx", 0}}}});
	st.window({{kBatch, n_values(4, 100)}}, 1.0, {{"nic0", {{"batch", 4}, {"span:rx", 0}}}});
	st.window({}, 1.0, {{"nic0", {{"batch", 4}, {"span:rx", 2}}}});
	BOOST_TEST(st.rows().at(kBatch).last.count() == 0u);
	BOOST_TEST(st.rows().at(kBatch).rate == 0.0);
	BOOST_TEST(st.rows().at(kBatch).total.count() == 4u);
	const TopState::Key span{"span:rx", "nic0", -1};
	BOOST_TEST_REQUIRE(st.rows().count(span) == 1u);
	BOOST_TEST(st.rows().at(span).uncovered == 2u);
	BOOST_TEST(st.rows().at(span).total.count() == 0u);
}

BOOST_AUTO_TEST_CASE(screen_shows_each_row_in_the_unit)
{
	TopState st;
	st.start(batch_count(0));
	st.window({{kBatch, hist({1000, 2000, 250000})}}, 1.0, batch_count(4));
	const auto lines = lines_of(render_top(st, TopSource::Devices, "us", 1000, 0, 0));
	BOOST_TEST_REQUIRE(lines.size() == 6u);
	BOOST_TEST(lines[0].find("[q] quit  [r] reset") != std::string::npos);
	BOOST_TEST(lines[1].find("not in the totals: 1") != std::string::npos);
	BOOST_TEST(lines[3].find("RATE/s") != std::string::npos);
	std::istringstream row(lines[5]);
	std::string device, event, rate, p50, p99, max, count, tp50, tp99, tmax, missed;
	row >> device >> event >> rate >> p50 >> p99 >> max >> count >> tp50 >> tp99 >> tmax >> missed;
	BOOST_TEST(device == "nic0");
	BOOST_TEST(event == "batch");
	BOOST_TEST(rate == "3");
	BOOST_TEST(p50 == "2.00");
	BOOST_TEST(max == "250.0");	// 250 us, exact: the max is
	BOOST_TEST(count == "3");
	BOOST_TEST(tmax == "250.0");
	BOOST_TEST(missed == "1");
	const auto ms = lines_of(render_top(st, TopSource::Devices, "ms", 1000000, 0, 0));
	BOOST_TEST(ms[5].find(" 0.25 ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(screen_fits_the_terminal)
{
	TopState st;
	st.start({});
	std::map<TopState::Key, Histogram> many;
	for (int i = 0; i < 30; i++)
		many[{"batch", "nic" + std::to_string(i), -1}] = n_values(1, 100);
	st.window(many, 1.0, {});
	const auto lines = lines_of(render_top(st, TopSource::Devices, "us", 1000, 60, 12));
	BOOST_TEST(lines.size() == 12u);
	for (const auto &l : lines)
		BOOST_TEST(l.size() <= 60u);
	BOOST_TEST(lines.back().find("more rows") != std::string::npos);
	BOOST_TEST(lines_of(render_top(st, TopSource::Devices, "us", 1000, 0, 0)).size() == 35u);
	TopState empty;
	BOOST_TEST(render_top(empty, TopSource::Devices, "us", 1000, 0, 0).find("no samples yet") != std::string::npos);
}

// top --irq and --func read histograms that only grow, while they
// aggregate: each window is what they gained since the last reading, the
// totals are every window since the start, and the heading says what
// kprof.ko could not aggregate.
BOOST_AUTO_TEST_CASE(readings_of_a_growing_source)
{
	const TopState::Key hard{"handler", "kprof_pktproc", 24}, run{"entry_to_running", "kprof_pktproc", 24};
	TopState st;
	st.start({});
	st.reading({{hard, hist({1000, 2000})}}, 1.0, 0);
	st.reading({{hard, hist({1000, 2000, 3000, 4000, 5000})}, {run, hist({70000})}}, 0.5, 7);
	const auto &h = st.rows().at(hard);
	BOOST_TEST(h.last.count() == 3u);	// 3000, 4000, 5000
	BOOST_TEST(h.last.max() == 5000u);
	BOOST_TEST(h.rate == 6.0);
	BOOST_TEST(h.total.count() == 5u);
	BOOST_TEST(st.rows().at(run).total.count() == 1u);
	BOOST_TEST(st.lost() == 7u);
	const std::string irq = render_top(st, TopSource::Irqs, "us", 1000, 0, 0);
	BOOST_TEST(irq.find("kprof.ko's IRQ tracker") != std::string::npos, irq);
	BOOST_TEST(irq.find("(girq_agg_slots, the budget): 7") != std::string::npos, irq);
	BOOST_TEST(irq.find("24 kprof_pktproc entry_to_running") != std::string::npos, irq);
	const std::string fn = render_top(TopState(), TopSource::Functions, "us", 1000, 0, 0);
	BOOST_TEST(fn.find("FUNCTION") != std::string::npos, fn);
	BOOST_TEST(fn.find("calls the probes could not time since the start: 0") != std::string::npos, fn);
	// A name longer than 16 widens its column: the other columns stay aligned.
	TopState fns;
	fns.start({});
	fns.reading({{{"func", "pktproc_start.part.0", -1}, hist({1000})}, {{"func", "f", -1}, hist({1000})}}, 1.0, 0);
	const auto fl = lines_of(render_top(fns, TopSource::Functions, "us", 1000, 0, 0));
	BOOST_TEST_REQUIRE(fl.size() == 7u);
	BOOST_TEST(fl[3].find(" EVENT") == fl[5].find(" func"), fl[3] + "\n" + fl[5]);
	BOOST_TEST(fl[5].find(" func") == fl[6].find(" func"), fl[5] + "\n" + fl[6]);
	BOOST_TEST(fl[5].find(" func") == std::string("pktproc_start.part.0").size(), fl[5]);
	// A source that went back (a reloaded module) is not a window.
	BOOST_CHECK_THROW(st.reading({{hard, hist({1000})}}, 1.0, 0), std::invalid_argument);
}
