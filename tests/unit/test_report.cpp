// SPDX-License-Identifier: GPL-2.0
// The report's JSON shape, loss accounting and the aggregation behind it.
#define BOOST_TEST_MODULE kprof_report
#include <boost/test/unit_test.hpp>

#include "aggregate.hpp"
#include "counters.hpp"
#include "report.hpp"

using namespace kprof;

namespace {

Sample sample(EventKind k, uint32_t dev, int cpu, uint64_t v, uint32_t aux = 0)
{
	return Sample{k, dev, cpu, 0, v, aux, -1};
}

}  // namespace

BOOST_AUTO_TEST_CASE(aggregation_by_event_device_and_cpu)
{
	Aggregator agg({std::nullopt, {}, true});
	const std::map<std::string, std::vector<std::string>> spans = {{"nic0", {"packet"}}};
	for (int i = 1; i <= 10; i++)
		agg.add(sample(EventKind::Batch, 0, i % 2, 1000 * i), "nic0", spans);
	agg.add(sample(EventKind::Span, 0, 0, 500, 0), "nic0", spans);
	agg.add(sample(EventKind::Span, 1, 1, 700, 3), "nic1", spans);	// unnamed span id
	BOOST_TEST(agg.totals().size() == 3u);
	BOOST_TEST(agg.totals().at({"batch", "nic0"}).count() == 10u);
	BOOST_TEST(agg.totals().at({"span:packet", "nic0"}).max() == 500u);
	BOOST_TEST(agg.totals().at({"span:3", "nic1"}).count() == 1u);
	BOOST_TEST(agg.per_cpu().at({"batch", "nic0", 0}).count() == 5u);
	BOOST_TEST(agg.per_cpu().at({"batch", "nic0", 1}).min() == 1000u);
	BOOST_TEST(agg.seen().at({"kprof_batch", "nic0"}) == 10u);
}

BOOST_AUTO_TEST_CASE(filters_count_what_they_drop)
{
	Aggregator agg({std::string("nic1"), {1}, false});
	const std::map<std::string, std::vector<std::string>> none;
	agg.add(sample(EventKind::IrqHandler, 0, 1, 10), "nic0", none);	// other device
	agg.add(sample(EventKind::IrqHandler, 1, 0, 10), "nic1", none);	// other CPU
	agg.add(sample(EventKind::IrqHandler, 1, 1, 10), "nic1", none);
	BOOST_TEST(agg.filtered_out() == 2u);
	BOOST_TEST(agg.totals().size() == 1u);
	BOOST_TEST(agg.seen().size() == 2u);	// the cross-check sees all
	BOOST_TEST(agg.per_cpu().empty());
}

BOOST_AUTO_TEST_CASE(json_shape)
{
	Histogram h;
	for (uint64_t v : {1000, 2000, 3000, 40000})
		h.record(v);
	Report r;
	r.duration_s = 2.5;
	r.rows.push_back({"irq_thread_latency", "nic0", -1, &h});
	r.rows.push_back({"irq_thread_latency", "nic0", 1, &h});
	r.loss = {{0, 10, 0, 0, 0, 0}, {1, 12, 5, 1, 7, 0}};
	r.events_read = 4;
	r.counters = true;
	r.checks.push_back({"nic0", "kprof_irq_thread_latency", 4, 4});
	r.show_hist = true;
	const auto j = render_json(r);

	BOOST_TEST(j.at("duration_s").get<double>() == 2.5);
	BOOST_TEST(j.at("percentile_relative_error").get<double>() <= 0.01);
	const auto &s = j.at("stats");
	BOOST_TEST_REQUIRE(s.size() == 2u);
	BOOST_TEST(s[0].at("event") == "irq_thread_latency");
	BOOST_TEST(s[0].at("device") == "nic0");
	BOOST_TEST(s[0].at("cpu").is_null());
	BOOST_TEST(s[1].at("cpu") == 1);
	BOOST_TEST(s[0].at("count") == 4);
	BOOST_TEST(s[0].at("min_ns") == 1000);
	BOOST_TEST(s[0].at("max_ns") == 40000);
	BOOST_TEST(s[0].at("mean_ns").get<double>() == 11500.0);
	for (const char *p : {"p50", "p90", "p99", "p99.9"})
		BOOST_TEST(s[0].at("percentiles_ns").contains(p));
	BOOST_TEST(s[0].at("histogram").is_array());
	BOOST_TEST(!s[1].contains("histogram"));	// only on all-CPU rows

	const auto &loss = j.at("loss");
	BOOST_TEST(loss.at("events_read") == 4);
	BOOST_TEST(loss.at("missed_total") == 7);	// page headers (5) and overrun (7) see the same losses
	BOOST_TEST(loss.at("lost") == true);
	BOOST_TEST(loss.at("per_cpu").size() == 2u);
	BOOST_TEST(loss.at("per_cpu")[1].at("lossy_pages") == 1);
	for (const char *k : {"invalid", "other", "filtered", "unpaired"})
		BOOST_TEST(loss.contains(k));
	BOOST_TEST(j.at("cross_check")[0].at("counter") == 4);
}

BOOST_AUTO_TEST_CASE(loss_is_loud_in_text)
{
	Histogram h;
	h.record(5);
	Report r;
	r.rows.push_back({"batch", "nic0", -1, &h});
	r.loss = {{0, 1, 0, 0, 0, 0}};
	BOOST_TEST(!r.lost_anything());
	BOOST_TEST(render_text(r).find("WARNING") == std::string::npos);
	r.loss[0].lossy_pages = 1;	// a flagged loss without a count still counts
	BOOST_TEST(r.lost_anything());
	BOOST_TEST(render_text(r).find("WARNING: events were lost") != std::string::npos);
	r.loss[0].lossy_pages = 0;
	r.invalid = 1;
	BOOST_TEST(r.lost_anything());
}

BOOST_AUTO_TEST_CASE(csv_rows_and_units)
{
	Histogram h;
	h.record(1500);
	Report r;
	r.unit = "us";
	r.divisor = 1000;
	r.rows.push_back({"span:packet", "nic,0", -1, &h});
	const std::string csv = render_csv(r);
	BOOST_TEST(csv.find("event,device,cpu,count,min_us,mean_us,stddev_us,p50_us,p90_us,p99_us,p99.9_us,max_us\n") == 0u);
	BOOST_TEST(csv.find("span:packet,\"nic,0\",all,1,1.5,1.5,0,1.5,1.5,1.5,1.5,1.5\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(counters_file)
{
	const std::string text = "cpu irqs thread_runs spans\n0 3 2 1\n1 4 4 0\nirqs: 7\nthread_runs: 6\nspans: 1\n";
	const auto c = parse_counters(text);
	BOOST_TEST(c.at("irqs") == 7u);
	BOOST_TEST(c.at("thread_runs") == 6u);
	BOOST_TEST(c.size() == 3u);
	BOOST_CHECK_THROW(parse_counters("cpu irqs\nirqs: x\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_counters("cpu irqs\ngarbage\n"), std::runtime_error);
	const auto d = counters_delta({{"irqs", 5}, {"spans", 9}}, {{"irqs", 7}, {"spans", 2}, {"new", 3}});
	BOOST_TEST(d.at("irqs") == 2u);
	BOOST_TEST(d.at("spans") == 2u);	// reset in between: counted from 0
	BOOST_TEST(d.at("new") == 3u);
}
