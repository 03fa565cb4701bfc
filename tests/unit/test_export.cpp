// SPDX-License-Identifier: GPL-2.0
// The report as Prometheus metrics and as an SVG picture.
#define BOOST_TEST_MODULE kprof_export
#include <boost/test/unit_test.hpp>

#include "core/export.hpp"

#include <map>
#include <random>
#include <regex>
#include <sstream>

using namespace kprof;

namespace {

// metric{labels} value lines of a text exposition, by "metric{labels}".
std::map<std::string, std::string> samples(const std::string &text)
{
	std::map<std::string, std::string> out;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.empty() || line[0] == '#')
			continue;
		const auto sp = line.rfind(' ');
		out[line.substr(0, sp)] = line.substr(sp + 1);
	}
	return out;
}

// The le="..." bounds and counts of one histogram's _bucket lines, in order.
std::vector<std::pair<std::string, uint64_t>> buckets(const std::string &text, const std::string &labels)
{
	std::vector<std::pair<std::string, uint64_t>> out;
	const std::string head = "kprof_latency_seconds_bucket{" + labels + ",le=\"";
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);)
		if (line.rfind(head, 0) == 0) {
			const auto end = line.find('"', head.size());
			out.emplace_back(line.substr(head.size(), end - head.size()), std::stoull(line.substr(line.rfind(' '))));
		}
	return out;
}

Report one_row(const Histogram &h, const std::string &device = "nic0")
{
	Report r;
	r.rows.push_back({"batch", device, -1, &h, -1});
	r.events_read = h.count();
	return r;
}

size_t count_of(const std::string &text, const std::string &what)
{
	size_t n = 0;
	for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
		n++;
	return n;
}

}  // namespace

// The claim that makes the buckets exact: a bound + 1 is where one of the
// histogram's buckets begins, so no bucket straddles a bound.
BOOST_AUTO_TEST_CASE(bounds_fall_on_bucket_edges)
{
	const auto b = metric_bounds_ns();
	BOOST_TEST(b.size() == 30u);
	BOOST_TEST(b.front() == 127u);
	BOOST_TEST(b.back() == (uint64_t(1) << 36) - 1);
	for (uint64_t bound : b)
		BOOST_TEST(Histogram::lowest_of(Histogram::index_of(bound + 1)) == bound + 1);
}

// Each cumulative bucket counts exactly the values <= its bound, the
// values being on both sides of every bound and on them.
BOOST_AUTO_TEST_CASE(buckets_count_exactly_the_values_at_or_below_each_bound)
{
	std::mt19937_64 rng(7);
	std::vector<uint64_t> values;
	for (uint64_t bound : metric_bounds_ns())
		for (uint64_t v : {bound, bound + 1, bound - 1})
			values.push_back(v);
	for (int i = 0; i < 5000; i++)
		values.push_back(rng() % (uint64_t(1) << (rng() % 38)));
	Histogram h;
	for (uint64_t v : values)
		h.record(v);
	const std::string text = render_prometheus(metrics_of(one_row(h)));
	const auto s = samples(text);
	const std::string l = "event=\"batch\",device=\"nic0\"";
	const auto bounds = metric_bounds_ns();
	const auto got = buckets(text, l);
	BOOST_TEST_REQUIRE(got.size() == bounds.size() + 1);
	for (size_t i = 0; i < bounds.size(); i++) {
		const auto n = std::count_if(values.begin(), values.end(), [&](uint64_t v) { return v <= bounds[i]; });
		BOOST_TEST(std::stod(got[i].first) * 1e9 == double(bounds[i]), boost::test_tools::tolerance(1e-12));
		BOOST_TEST(got[i].second == uint64_t(n), got[i].first);
	}
	BOOST_TEST(got.back().first == "+Inf");
	BOOST_TEST(got[0].first == "1.27e-07");	// the shortest form, not 1.2700000000000001e-07
	BOOST_TEST(s.at("kprof_latency_seconds_bucket{" + l + ",le=\"+Inf\"}") == std::to_string(values.size()));
	BOOST_TEST(s.at("kprof_latency_seconds_count{" + l + "}") == std::to_string(values.size()));
	double sum = 0;
	for (uint64_t v : values)
		sum += double(v);
	BOOST_TEST(std::stod(s.at("kprof_latency_seconds_sum{" + l + "}")) == sum / 1e9,
		   boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(metrics_carry_the_loss_and_escape_labels)
{
	Histogram h;
	h.record(1500);
	Report r = one_row(h, "a\"b\\c\nd");
	Histogram irqh;
	irqh.record(20000);
	r.rows.push_back({"entry_to_running", "24 kprof_pktproc", -1, &irqh, 24});
	Histogram cpu0;
	r.rows.push_back({"batch", "a\"b\\c\nd", 0, &cpu0, -1});	// per-CPU: not exported
	r.events_read = 2;
	r.loss.push_back(CpuLoss{});
	r.loss.back().header_missed = 17;
	r.invalid = 3;
	const std::string text = render_prometheus(metrics_of(r));
	const auto s = samples(text);
	BOOST_TEST(s.at("kprof_latency_seconds_count{event=\"batch\",device=\"a\\\"b\\\\c\\nd\"}") == "1");
	BOOST_TEST(s.at("kprof_latency_seconds_count{event=\"entry_to_running\",device=\"24 kprof_pktproc\","
			"irq=\"24\"}") == "1");
	BOOST_TEST(count_of(text, "_count{") == 2u);
	BOOST_TEST(s.at("kprof_events_read_total") == "2");
	BOOST_TEST(s.at("kprof_events_lost_total") == "17");
	BOOST_TEST(s.at("kprof_invalid_records_total") == "3");
	BOOST_TEST(count_of(text, "# TYPE kprof_latency_seconds histogram\n") == 1u);
	BOOST_TEST(count_of(text, "# TYPE kprof_events_lost_total counter\n") == 1u);
}

// The file is its own state: a run adds its counts to what the last run
// wrote, so every series only grows and the difference between two files
// is the second run's traffic, exactly (what rate() and increase() need).
BOOST_AUTO_TEST_CASE(metrics_add_up_across_runs)
{
	Histogram h1, h2, other;
	const std::vector<uint64_t> second_run = {200, 200, 9000000};
	for (uint64_t v : {100, 5000, 70000})
		h1.record(v);
	for (uint64_t v : second_run)
		h2.record(v);
	other.record(42);
	Report r1 = one_row(h1);
	r1.duration_s = 60;
	r1.invalid = 1;
	Report r2 = one_row(h2);
	r2.rows.push_back({"span:packet", "nic1", -1, &other, -1});
	r2.duration_s = 59.5;
	r2.loss.push_back(CpuLoss{});
	r2.loss.back().header_missed = 4;
	Metrics m;
	add_metrics(m, metrics_of(r1));
	const std::string first = render_prometheus(m);
	Metrics again = parse_prometheus(first);
	add_metrics(again, metrics_of(r2));
	const std::string second = render_prometheus(again);
	const auto a = samples(first), b = samples(second);
	const std::string l = "event=\"batch\",device=\"nic0\"";
	BOOST_TEST(a.at("kprof_latency_seconds_count{" + l + "}") == "3");
	BOOST_TEST(b.at("kprof_latency_seconds_count{" + l + "}") == "6");
	BOOST_TEST(b.at("kprof_latency_seconds_count{event=\"span:packet\",device=\"nic1\"}") == "1");
	// Every series of the first file grows by the second run's count.
	for (const auto &[series, v] : a) {
		BOOST_TEST_INFO(series);
		BOOST_TEST_REQUIRE(b.count(series) == 1u);
		BOOST_TEST(std::stod(b.at(series)) >= std::stod(v));
	}
	const auto bounds = metric_bounds_ns();
	const auto ba = buckets(first, l), bb = buckets(second, l);
	BOOST_TEST_REQUIRE(bb.size() == bounds.size() + 1);
	for (size_t i = 0; i < bounds.size(); i++) {
		const auto want = std::count_if(second_run.begin(), second_run.end(),
						[&](uint64_t v) { return v <= bounds[i]; });
		BOOST_TEST(bb[i].second - ba[i].second == uint64_t(want), bb[i].first);
	}
	BOOST_TEST(std::stod(b.at("kprof_latency_seconds_sum{" + l + "}")) == (75100 + 9000400) / 1e9,
		   boost::test_tools::tolerance(1e-9));
	BOOST_TEST(b.at("kprof_events_lost_total") == "4");
	BOOST_TEST(b.at("kprof_invalid_records_total") == "1");
	BOOST_TEST(b.at("kprof_runs_total") == "2");
	BOOST_TEST(std::stod(b.at("kprof_collection_seconds_total")) == 119.5);
	// Read back, the second file is what was added up.
	BOOST_TEST(render_prometheus(parse_prometheus(second)) == second);
	BOOST_TEST(count_of(second, "# TYPE kprof_latency_seconds histogram\n") == 1u);
	BOOST_TEST(count_of(second, "gauge") == 0u);
}

// A file kprofctl did not write, or wrote with other bucket bounds, is not
// continued.
BOOST_AUTO_TEST_CASE(a_foreign_metrics_file_is_refused)
{
	BOOST_CHECK_THROW(parse_prometheus("node_load1 0.5\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_prometheus("kprof_latency_seconds_bucket{event=\"a\",device=\"b\",le=\"0.5\"} 1\n"),
			  std::runtime_error);
	BOOST_CHECK_THROW(parse_prometheus("kprof_events_read_total -1\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_prometheus("kprof_events_read_total\n"), std::runtime_error);
	BOOST_TEST(parse_prometheus("# HELP x\n\n").runs == 0u);
}

BOOST_AUTO_TEST_CASE(svg_draws_one_chart_per_total_row)
{
	Histogram a, b, cpu;
	for (uint64_t v = 1000; v < 200000; v += 37)
		a.record(v);
	b.record(5);
	Report r;
	r.rows = {{"batch", "nic<0>", -1, &a, -1}, {"batch", "nic<0>", 1, &cpu, -1}, {"span:rx", "n&1", -1, &b, -1}};
	r.events_read = a.count() + b.count();
	const std::string svg = render_svg(r);
	BOOST_TEST(svg.rfind("<?xml", 0) == 0u);
	BOOST_TEST(count_of(svg, "<g class=\"chart\"") == 2u);
	BOOST_TEST(count_of(svg, "nic&lt;0&gt;") == 1u);
	BOOST_TEST(count_of(svg, "n&amp;1") == 1u);
	BOOST_TEST(svg.find("<0>") == std::string::npos);
	BOOST_TEST(count_of(svg, "Nothing lost: ") == 2u);
	BOOST_TEST(count_of(svg, "<rect class=\"bar\"") >= 10u);
}

// The markers sit where the values are, in order, on the log axis, and
// their labels give the values.
BOOST_AUTO_TEST_CASE(svg_markers_are_ordered_and_labelled)
{
	Histogram h;
	for (uint64_t v = 1; v <= 1000; v++)
		h.record(v * 1000);	// 1 µs .. 1 ms
	Report r = one_row(h);
	const std::string svg = render_svg(r);
	const std::regex marker("<line class=\"marker\" x1=\"([0-9.]+)\"[^>]*/><text class=\"marker\"[^>]*>([^<]*)<");
	std::vector<double> xs;
	std::vector<std::string> names;
	for (auto it = std::sregex_iterator(svg.begin(), svg.end(), marker); it != std::sregex_iterator(); ++it) {
		xs.push_back(std::stod((*it)[1]));
		names.push_back((*it)[2]);
	}
	BOOST_TEST_REQUIRE(names.size() == 4u);
	BOOST_TEST(names[0] == "p50 500 µs");
	BOOST_TEST(names[1] == "p99 990 µs");
	BOOST_TEST(names[3] == "max 1 ms");
	BOOST_TEST(std::is_sorted(xs.begin(), xs.end()));
	BOOST_TEST(xs.front() > 70.0);
	BOOST_TEST(xs.back() <= 730.0);
}

BOOST_AUTO_TEST_CASE(svg_caption_reports_the_loss)
{
	Histogram h;
	h.record(42);
	Report r = one_row(h);
	r.loss.push_back(CpuLoss{});
	r.loss.back().ring.overrun = 1234;
	const std::string svg = render_svg(r);
	BOOST_TEST(count_of(svg, "LOST: 1234 events, 0 invalid records") == 1u);
	BOOST_TEST(count_of(svg, "Nothing lost") == 0u);
	Report empty;
	BOOST_TEST(count_of(render_svg(empty), "no events were reported") == 1u);
}
