// SPDX-License-Identifier: GPL-2.0
// kprofctl diff: reports read back from their JSON, the tests' levels and
// power on histograms (by simulation), the rules, the renderings.
#define BOOST_TEST_MODULE kprof_diff
#include <boost/test/unit_test.hpp>

#include "core/diff.hpp"
#include "core/export.hpp"
#include "core/report.hpp"

#include <cmath>
#include <random>

using namespace kprof;

namespace {

// @n exponential latencies of mean @mean_ns, plus a floor of @floor_ns.
Histogram sample(std::mt19937_64 &rng, size_t n, double mean_ns, double floor_ns = 20000)
{
	std::exponential_distribution<double> e(1 / mean_ns);
	Histogram h;
	for (size_t i = 0; i < n; i++)
		h.record(uint64_t(floor_ns + e(rng)));
	return h;
}

Histogram of(std::initializer_list<uint64_t> values)
{
	Histogram h;
	for (auto v : values)
		h.record(v);
	return h;
}

// A kprofctl func run of rows, as its JSON would give it back.
Run run_of(const std::vector<std::pair<std::string, const Histogram *>> &rows, double duration_s = 10)
{
	Report r;
	r.duration_s = duration_s;
	r.in_kernel = true;
	r.cpus = 2;
	for (const auto &[name, h] : rows) {
		r.rows.push_back({"func", name, -1, h, -1});
		FuncCounts f;
		f.name = name;
		f.calls = f.timed = h->count();
		f.sum_ns = h->mean() * double(h->count());
		r.funcs.push_back(f);
	}
	return load_run(render_json(r), "x.json");
}

const Change &change(const RowDiff &row, const std::string &metric)
{
	for (const auto &c : row.changes)
		if (c.metric == metric)
			return c;
	throw std::logic_error("no " + metric);
}

}  // namespace

BOOST_AUTO_TEST_CASE(json_round_trip_keeps_every_bucket)
{
	std::mt19937_64 rng(1);
	const Histogram h = sample(rng, 5000, 30000);
	const Run run = run_of({{"pktproc_poll", &h}}, 2.5);
	BOOST_TEST(run.duration_s == 2.5);
	BOOST_TEST(run.mode == "in-kernel");
	BOOST_REQUIRE_EQUAL(run.rows.size(), 1u);
	const Histogram &back = run.rows[0].hist;
	BOOST_TEST(back.count() == h.count());
	BOOST_TEST(back.min() == h.min());
	BOOST_TEST(back.max() == h.max());
	BOOST_TEST(std::fabs(back.mean() - h.mean()) < 0.5);
	BOOST_TEST(back.buckets() == h.buckets());
	for (double p : {50.0, 90.0, 99.0, 99.9})
		BOOST_TEST(back.percentile(p) == h.percentile(p));
	BOOST_TEST(run.rows[0].name == "pktproc_poll");
	BOOST_TEST(run.rows[0].cpu == -1);
}

BOOST_AUTO_TEST_CASE(load_refuses_what_kprofctl_did_not_write)
{
	const Histogram h = of({1000, 2000, 3000});
	Report r;
	r.rows.push_back({"batch", "nic0", -1, &h, -1});
	const auto good = render_json(r);
	auto refused = [](const nlohmann::json &j, const std::string &why) {
		try {
			load_run(j, "bad.json");
		} catch (const std::invalid_argument &e) {
			const std::string what = e.what();
			BOOST_TEST_INFO(what);
			BOOST_TEST(what.find("bad.json") == 0u);
			BOOST_TEST(what.find(why) != std::string::npos);
			return;
		}
		BOOST_ERROR("accepted: " << why);
	};
	refused(nlohmann::json::array(), "not a kprofctl report");
	auto j = good;
	j.erase("bucket_layout");
	refused(j, "older than 'diff'");
	j = good;
	j["bucket_layout"]["sub_bucket_bits"] = 8;
	refused(j, "another bucket layout");
	j = good;
	j["stats"][0]["count"] = 4;
	refused(j, "its buckets hold 3 samples, its count says 4");
	j = good;
	j["stats"][0]["buckets"][0][0] = Histogram::kBuckets;
	refused(j, "does not exist");
	j = good;
	j["stats"][0].erase("buckets");
	refused(j, "without its histogram's buckets");
	j = good;
	j["stats"][0]["mean_ns"] = "fast";
	refused(j, "not a report kprofctl wrote");
	BOOST_CHECK_NO_THROW(load_run(good, "good.json"));
}

// Against a count of pairs: U / (na * nb) is P(after > before) + P(tie) / 2.
BOOST_AUTO_TEST_CASE(mann_whitney_by_hand)
{
	const auto mw = mann_whitney(of({1, 2, 3}), of({4, 5, 6}));
	BOOST_TEST(mw.superiority == 1.0);
	// U = 9, mean 4.5, variance 9 / 12 * 7 = 5.25, continuity 0.5.
	BOOST_TEST(std::fabs(mw.z - 4.0 / std::sqrt(5.25)) < 1e-9);
	BOOST_TEST(std::fabs(mw.p - std::erfc(4.0 / std::sqrt(5.25) / std::sqrt(2.0))) < 1e-12);
	const auto tied = mann_whitney(of({1, 1, 2, 3}), of({1, 2, 2, 4}));
	// Pairs (after, before): > 8, = 4 of 16 -> (8 + 2) / 16; U = 10.
	BOOST_TEST(std::fabs(tied.superiority - 10.0 / 16) < 1e-12);
	// Ties: groups 1 (3), 2 (3), 3 (1), 4 (1): sum t^3 - t = 48; N = 8.
	const double var = 16.0 / 12 * (9 - 48.0 / 56);
	BOOST_TEST(std::fabs(tied.z - (10 - 8 - 0.5) / std::sqrt(var)) < 1e-9);
	BOOST_TEST(mann_whitney(of({5, 5}), of({5, 5, 5})).p == 1.0);
	BOOST_TEST(mann_whitney(of({}), of({5})).p == 1.0);
}

// The level holds on binned samples: two runs of the same distribution
// are told apart at p < 0.05 in about 5 % of trials, no more.
BOOST_AUTO_TEST_CASE(mann_whitney_level_and_power)
{
	std::mt19937_64 rng(7);
	int rejected = 0;
	const int trials = 1000;
	for (int i = 0; i < trials; i++)
		rejected += mann_whitney(sample(rng, 300, 2000, 500), sample(rng, 300, 2000, 500)).p < 0.05;
	BOOST_TEST_MESSAGE("null rejections: " << rejected << " of " << trials);
	BOOST_TEST(rejected >= 30);
	BOOST_TEST(rejected <= 70);
	// 10 % slower, 2000 samples each: found.
	const auto mw = mann_whitney(sample(rng, 2000, 30000), sample(rng, 2000, 33000, 22000));
	BOOST_TEST(mw.p < 1e-6);
	BOOST_TEST(mw.superiority > 0.5);
}

BOOST_AUTO_TEST_CASE(normal_quantiles)
{
	BOOST_TEST(std::fabs(normal_quantile(0.05) - 1.959964) < 1e-5);
	BOOST_TEST(std::fabs(normal_quantile(0.01) - 2.575829) < 1e-5);
	BOOST_TEST(std::fabs(normal_quantile(1e-6) - 4.891638) < 1e-5);
}

// A percentile's rank interval covers the true percentile at least as
// often as its level says (binning only widens it).
BOOST_AUTO_TEST_CASE(percentile_interval_covers)
{
	std::mt19937_64 rng(3);
	const double mean = 10000, floor = 20000;
	const double true_p99 = floor + mean * std::log(100.0);
	int covered = 0;
	const int trials = 400;
	for (int i = 0; i < trials; i++) {
		const auto in = percentile_interval(sample(rng, 3000, mean, floor), 99, normal_quantile(0.05));
		BOOST_REQUIRE(in);
		covered += in->lo <= true_p99 && true_p99 <= in->hi;
	}
	BOOST_TEST_MESSAGE("p99 covered " << covered << " of " << trials);
	BOOST_TEST(covered >= int(0.93 * trials));
	// p99.9 of 500 values: the rank interval leaves the sample.
	BOOST_TEST(!percentile_interval(sample(rng, 500, mean), 99.9, 1.96));
	// One value repeated: the interval is that value.
	const auto one = percentile_interval(of({700, 700, 700, 700, 700, 700, 700, 700, 700, 700}), 50, 1.96);
	BOOST_REQUIRE(one);
	BOOST_TEST(one->lo == 700);
	BOOST_TEST(one->hi == 700);
}

BOOST_AUTO_TEST_CASE(rules)
{
	const Rule r = parse_rule("p99+10%");
	BOOST_TEST(r.metric == "p99");
	BOOST_TEST(r.relative);
	BOOST_TEST(r.amount == 10);
	const Rule a = parse_rule("mean+20us");
	BOOST_TEST(!a.relative);
	BOOST_TEST(a.amount == 20000);
	BOOST_TEST(parse_rule("p99.9+2.5%").amount == 2.5);
	for (const char *bad : {"p99", "p99+", "p99+10", "p99+x%", "p99+-5%", "max+10%", "p98+10%", "+10%",
				"p99+10%%", "p99+10xs"})
		BOOST_CHECK_THROW(parse_rule(bad), std::invalid_argument);
	Change c{"p99", 100, 115, Interval{1.05, 1.25}, {}};
	BOOST_TEST(r.hit(c));
	BOOST_TEST(!parse_rule("p99+20%").hit(c));	// +15 %: below the threshold
	BOOST_TEST(!parse_rule("p50+10%").hit(c));	// another metric
	BOOST_TEST(parse_rule("p99+10ns").hit(c));
	c.ratio = Interval{0.98, 1.3};			// not significant
	BOOST_TEST(!r.hit(c));
	c.ratio.reset();				// not tested
	BOOST_TEST(!r.hit(c));
}

BOOST_AUTO_TEST_CASE(compare_finds_a_regression_and_nothing_else)
{
	std::mt19937_64 rng(11);
	const Histogram fast = sample(rng, 4000, 30000), slow = sample(rng, 4000, 60000, 40000);
	const Histogram same1 = sample(rng, 4000, 30000), same2 = sample(rng, 4000, 30000);
	const Histogram gone = of({1, 2, 3}), added = of({4, 5});
	const Run before = run_of({{"poll", &fast}, {"rx_one", &same1}, {"old_fn", &gone}}, 10);
	const Run after = run_of({{"poll", &slow}, {"rx_one", &same2}, {"new_fn", &added}}, 5);
	CompareOptions opts;
	opts.rules = {parse_rule("p99+10%"), parse_rule("mean+150%")};
	const Diff d = compare(before, after, opts);
	BOOST_REQUIRE_EQUAL(d.rows.size(), 2u);
	BOOST_TEST(d.comparisons == 2u * 6);
	BOOST_TEST(std::fabs(d.level - 0.05 / 12) < 1e-12);
	BOOST_TEST(d.only_before == std::vector<std::string>{"func old_fn"});
	BOOST_TEST(d.only_after == std::vector<std::string>{"func new_fn"});

	const RowDiff &poll = d.rows[0];
	BOOST_TEST(poll.name() == "func poll");
	BOOST_TEST(poll.verdict(d.level) == "slower");
	BOOST_TEST(poll.rate_before == 400.0);
	BOOST_TEST(poll.rate_after == 800.0);
	const Change &mean = change(poll, "mean");
	const double truth = 100000.0 / 50000;	// the means' ratio
	BOOST_TEST(mean.ratio->lo < truth);
	BOOST_TEST(mean.ratio->hi > truth);
	BOOST_TEST(mean.slower());
	BOOST_TEST(change(poll, "p99").slower());
	BOOST_TEST(!change(poll, "max").ratio);

	const RowDiff &rx = d.rows[1];
	BOOST_TEST(rx.verdict(d.level) == "no significant change");
	for (const auto &c : rx.changes)
		BOOST_TEST(!c.slower(), c.metric);
	// Only poll's p99 (+ about 100 %) hits; its mean grew by 100 %, not 150.
	BOOST_REQUIRE_EQUAL(d.hits.size(), 1u);
	BOOST_TEST(d.hits[0].rule == "p99+10%");
	BOOST_TEST(d.hits[0].row == "func poll");
}

// The tracker's rows: matched by name where it is unique (the IRQ's number
// may change across boots), by number too where two actions share it.
BOOST_AUTO_TEST_CASE(compare_matches_irq_rows)
{
	const Histogram h = of({1000, 2000, 3000});
	Report ra, rb;
	ra.rows = {{"handler", "eth0", -1, &h, 24}, {"handler", "dup", -1, &h, 30}, {"handler", "dup", -1, &h, 31}};
	rb.rows = {{"handler", "eth0", -1, &h, 25}, {"handler", "dup", -1, &h, 30}, {"handler", "dup", -1, &h, 32}};
	ra.duration_s = rb.duration_s = 1;
	const Run a = load_run(render_json(ra), "a"), b = load_run(render_json(rb), "b");
	const Diff d = compare(a, b, {});
	BOOST_REQUIRE_EQUAL(d.rows.size(), 2u);
	BOOST_TEST(d.rows[0].name() == "handler 25 eth0");
	BOOST_TEST(d.rows[1].name() == "handler 30 dup");
	BOOST_TEST(d.only_before == std::vector<std::string>{"handler 31 dup"});
	BOOST_TEST(d.only_after == std::vector<std::string>{"handler 32 dup"});
}

BOOST_AUTO_TEST_CASE(per_cpu_rows_only_when_asked)
{
	const Histogram h = of({1000, 2000, 3000});
	Report r;
	r.duration_s = 1;
	r.rows = {{"batch", "nic0", -1, &h, -1}, {"batch", "nic0", 0, &h, -1}};
	const Run a = load_run(render_json(r), "a"), b = load_run(render_json(r), "b");
	BOOST_TEST(compare(a, b, {}).rows.size() == 1u);
	CompareOptions per_cpu;
	per_cpu.per_cpu = true;
	const Diff d = compare(a, b, per_cpu);
	BOOST_REQUIRE_EQUAL(d.rows.size(), 2u);
	BOOST_TEST(d.rows[1].name() == "batch nic0 cpu 0");
}

BOOST_AUTO_TEST_CASE(renderings)
{
	std::mt19937_64 rng(5);
	const Histogram fast = sample(rng, 2000, 30000), slow = sample(rng, 2000, 60000, 40000);
	const Run before = run_of({{"poll", &fast}}), after = run_of({{"poll", &slow}});
	CompareOptions opts;
	opts.rules = {parse_rule("p99+10%"), parse_rule("p50+500%")};
	const Diff d = compare(before, after, opts);
	const std::string text = render_diff_text(d, "us", 1000);
	BOOST_TEST_MESSAGE(text);
	BOOST_TEST(text.find("func poll: slower (Mann-Whitney p ") != std::string::npos);
	BOOST_TEST(text.find("--fail-if p99+10%: REGRESSION in func poll: p99 ") != std::string::npos);
	BOOST_TEST(text.find("--fail-if p50+500%: passed") != std::string::npos);
	BOOST_TEST(text.find("alpha 0.05 over 6 tests") != std::string::npos);
	// The CPU share, from the functions' table: calls x mean over 10 s and 2 CPUs.
	const double share = 100 * fast.mean() * 2000 / 2e10;
	BOOST_TEST(text.find("  cpu %    " + std::string(11 - fmt(share).size(), ' ') + fmt(share)) !=
		   std::string::npos);
	const auto j = render_diff_json(d);
	BOOST_TEST(j["regression"] == true);
	BOOST_TEST(j["rows"][0]["verdict"] == "slower");
	BOOST_TEST(j["rows"][0]["metrics"]["p99"]["significant"] == "slower");
	BOOST_TEST(j["rows"][0]["metrics"]["p99"]["interval"][0].get<double>() > 0);
	BOOST_TEST(j["fail_if"][0]["hits"].size() == 1u);
	BOOST_TEST(j["fail_if"][1]["hits"].empty());
	const std::string svg = render_diff_svg(d);
	BOOST_TEST(svg.rfind("<?xml", 0) == 0u);
	BOOST_TEST(svg.find("class=\"before\"") != std::string::npos);
	BOOST_TEST(svg.find("class=\"after\"") != std::string::npos);
	BOOST_TEST(svg.find("func poll: slower") != std::string::npos);
	BOOST_TEST(svg.find("</svg>") != std::string::npos);
}
