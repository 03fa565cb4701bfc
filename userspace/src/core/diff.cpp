// SPDX-License-Identifier: GPL-2.0
#include "core/diff.hpp"

#include "core/parse.hpp"
#include "core/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace kprof {

namespace {

using nlohmann::json;

RunRow load_row(const json &s)
{
	RunRow r;
	r.event = s.at("event").get<std::string>();
	if (s.contains("irq")) {
		r.irq = s.at("irq").get<int>();
		r.name = s.at("name").get<std::string>();
	} else {
		r.name = s.at("device").get<std::string>();
	}
	r.cpu = s.at("cpu").is_null() ? -1 : s.at("cpu").get<int>();
	if (!s.contains("buckets"))
		throw std::invalid_argument("a row without its histogram's buckets");
	uint64_t n = 0;
	for (const auto &b : s.at("buckets")) {
		const auto c = b.at(1).get<uint64_t>();
		r.hist.add_bucket(b.at(0).get<size_t>(), c);
		n += c;
	}
	const auto count = s.at("count").get<uint64_t>();
	if (n != count)
		throw std::invalid_argument(r.event + " " + r.name + ": its buckets hold " + std::to_string(n) +
					    " samples, its count says " + std::to_string(count));
	const double sum = std::round(s.at("mean_ns").get<double>() * double(count));
	r.hist.finish(count, uint64_t(sum), s.at("min_ns").get<uint64_t>(), s.at("max_ns").get<uint64_t>());
	return r;
}

// kprofctl func's reports: each function's share of the CPUs' time, on
// its total row.
void add_cpu_shares(const json &j, Run &run)
{
	if (!j.contains("functions"))
		return;
	for (const auto &f : j.at("functions"))
		for (auto &r : run.rows)
			if (r.cpu < 0 && r.irq < 0 && r.name == f.at("function").get<std::string>())
				r.cpu_share = f.at("cpu_share").get<double>();
}

Run load(const json &j, const std::string &file)
{
	if (!j.is_object() || !j.contains("stats"))
		throw std::invalid_argument("not a kprofctl report (no \"stats\"): write one with --json");
	if (!j.contains("bucket_layout"))
		throw std::invalid_argument("the report has no histogram buckets (a kprofctl older than 'diff' wrote"
					    " it): measure again with this one");
	if (j.at("bucket_layout") != bucket_layout())
		throw std::invalid_argument("its histograms have another bucket layout than this kprofctl's");
	Run run;
	run.file = file;
	run.mode = j.at("mode").get<std::string>();
	run.duration_s = j.at("duration_s").get<double>();
	run.missed = j.at("loss").at("missed_total").get<uint64_t>();
	for (const auto &s : j.at("stats"))
		run.rows.push_back(load_row(s));
	add_cpu_shares(j, run);
	return run;
}

double sq(double v)
{
	return v * v;
}

// ln(v) of a latency, 0 ns taken as 1 ns.
double log_ns(double v)
{
	return std::log(std::max(v, 1.0));
}

Interval around(double log_estimate, double se, double z)
{
	return {std::exp(log_estimate - z * se), std::exp(log_estimate + z * se)};
}

// Welch's interval of the log ratio of the means, by the delta method.
Change mean_change(const Histogram &a, const Histogram &b, double z)
{
	Change c{"mean", a.mean(), b.mean(), std::nullopt, {}};
	if (a.count() < 2 || b.count() < 2 || a.mean() <= 0 || b.mean() <= 0) {
		c.untested = "fewer than 2 samples";
		return c;
	}
	const double se = std::sqrt(sq(a.stddev() / a.mean()) / double(a.count()) +
				    sq(b.stddev() / b.mean()) / double(b.count()));
	c.ratio = around(std::log(b.mean() / a.mean()), se, z);
	return c;
}

// Price and Bonett's interval of a ratio of quantiles: each run's
// standard error of ln(quantile) is its rank interval's log width / 2z.
Change percentile_change(const Histogram &a, const Histogram &b, const Percentile &p, double z)
{
	Change c{p.name, double(a.percentile(p.p)), double(b.percentile(p.p)), std::nullopt, {}};
	const auto ia = percentile_interval(a, p.p, z), ib = percentile_interval(b, p.p, z);
	if (!ia || !ib) {
		c.untested = "too few samples beyond it";
		return c;
	}
	const double se = std::hypot(log_ns(ia->hi) - log_ns(ia->lo), log_ns(ib->hi) - log_ns(ib->lo)) / (2 * z);
	c.ratio = around(log_ns(c.after) - log_ns(c.before), se, z);
	return c;
}

void fill_changes(RowDiff &d, double z)
{
	const Histogram &a = d.before->hist, &b = d.after->hist;
	d.mw = mann_whitney(a, b);
	d.changes.push_back(mean_change(a, b, z));
	for (const auto &p : kPercentiles)
		d.changes.push_back(percentile_change(a, b, p, z));
	d.changes.push_back({"max", double(a.max()), double(b.max()), std::nullopt, "one value, no interval"});
}

// The tests per row: Mann-Whitney, the mean, each percentile.
constexpr size_t kTestsPerRow = 2 + std::size(kPercentiles);

std::string base_key(const RunRow &r)
{
	return r.event + '\x1f' + r.name + '\x1f' + std::to_string(r.cpu);
}

// A run's rows (the totals, or every row with @per_cpu) by key, in the
// run's order: event, name and CPU, and the IRQ where two IRQ actions of
// a run share a name (IRQ numbers may change from boot to boot).
using Keyed = std::vector<std::pair<std::string, const RunRow *>>;
Keyed keyed(const Run &run, const std::set<std::string> &ambiguous, bool per_cpu)
{
	Keyed out;
	for (const auto &r : run.rows)
		if (r.cpu < 0 || per_cpu) {
			const auto k = base_key(r);
			out.emplace_back(ambiguous.count(k) ? k + '\x1f' + std::to_string(r.irq) : k, &r);
		}
	return out;
}

std::set<std::string> ambiguous_keys(const Run &a, const Run &b)
{
	std::set<std::string> out;
	for (const Run *run : {&a, &b}) {
		std::set<std::string> seen;
		for (const auto &r : run->rows)
			if (!seen.insert(base_key(r)).second)
				out.insert(base_key(r));
	}
	return out;
}

double rate(const RunRow &r, const Run &run)
{
	return run.duration_s > 0 ? double(r.hist.count()) / run.duration_s : 0;
}

}  // namespace

Run load_run(const json &j, const std::string &file)
{
	try {
		return load(j, file);
	} catch (const json::exception &e) {
		throw std::invalid_argument(file + ": not a report kprofctl wrote (" + e.what() + ")");
	} catch (const std::logic_error &e) {	// invalid_argument, out_of_range
		throw std::invalid_argument(file + ": " + e.what());
	}
}

MannWhitney mann_whitney(const Histogram &before, const Histogram &after)
{
	const double na = double(before.count()), nb = double(after.count()), n = na + nb;
	MannWhitney mw;
	if (!na || !nb)
		return mw;
	std::map<size_t, std::pair<uint64_t, uint64_t>> merged;
	for (const auto &[i, c] : before.buckets())
		merged[i].first = c;
	for (const auto &[i, c] : after.buckets())
		merged[i].second = c;
	long double below = 0, rank_sum = 0, ties = 0;
	for (const auto &[i, c] : merged) {
		const long double t = (long double)c.first + c.second;
		rank_sum += (long double)c.second * (below + (t + 1) / 2);	// midranks
		ties += t * t * t - t;
		below += t;
	}
	const double u = double(rank_sum - (long double)nb * (nb + 1) / 2);
	const double var = na * nb / 12 * ((n + 1) - double(ties / ((long double)n * (n - 1))));
	mw.superiority = u / (na * nb);
	if (var <= 0)
		return mw;	// every value in one bucket: nothing to tell apart
	const double d = u - na * nb / 2;
	mw.z = (d - std::copysign(std::min(0.5, std::fabs(d)), d)) / std::sqrt(var);
	mw.p = std::erfc(std::fabs(mw.z) / std::sqrt(2.0));
	return mw;
}

std::optional<Interval> percentile_interval(const Histogram &h, double p, double z)
{
	const double n = double(h.count()), q = p / 100, sd = std::sqrt(n * q * (1 - q));
	const double lo = std::floor(n * q - z * sd), hi = std::ceil(n * q + z * sd);
	if (lo < 1 || hi > n)
		return std::nullopt;
	const size_t a = h.index_at_rank(uint64_t(lo)), b = h.index_at_rank(uint64_t(hi));
	return Interval{double(std::max(h.min(), Histogram::lowest_of(a))),
			double(std::min(h.max(), Histogram::lowest_of(b) + Histogram::width_of(b) - 1))};
}

double normal_quantile(double alpha)
{
	double lo = 0, hi = 40;
	for (int i = 0; i < 200; i++) {
		const double mid = (lo + hi) / 2;
		(std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
	}
	return (lo + hi) / 2;
}

std::string RowDiff::name() const
{
	std::string s = after->event + " ";
	if (after->irq >= 0)
		s += std::to_string(after->irq) + " ";
	s += after->name;
	return after->cpu < 0 ? s : s + " cpu " + std::to_string(after->cpu);
}

std::string RowDiff::verdict(double level) const
{
	if (mw.p >= level)
		return "no significant change";
	return mw.superiority > 0.5 ? "slower" : "faster";
}

bool Rule::hit(const Change &c) const
{
	if (c.metric != metric || !c.slower())
		return false;
	return relative ? c.after > c.before * (1 + amount / 100) : c.after - c.before > amount;
}

std::string rule_metrics()
{
	std::string out = "mean";
	for (const auto &p : kPercentiles)
		out += std::string(", ") + p.name;
	return out;
}

Rule parse_rule(const std::string &s)
{
	const auto plus = s.find('+');
	if (plus == std::string::npos || plus + 1 == s.size())
		throw std::invalid_argument("'" + s + "' is not METRIC+N% or METRIC+DURATION (e.g. p99+10%, mean+20us)");
	Rule r{s, s.substr(0, plus), true, 0};
	std::set<std::string> metrics{"mean"};
	for (const auto &p : kPercentiles)
		metrics.insert(p.name);
	if (r.metric == "max")
		throw std::invalid_argument("'" + s + "': the max is one value, with no interval to test; use p99.9");
	if (!metrics.count(r.metric))
		throw std::invalid_argument("'" + s + "': no metric '" + r.metric + "' (" + rule_metrics() + ")");
	const std::string amount = s.substr(plus + 1);
	if (amount.back() == '%') {
		size_t used = 0;
		try {
			r.amount = std::stod(amount, &used);
		} catch (const std::logic_error &) {
		}
		if (used + 1 != amount.size() || !(r.amount >= 0))
			throw std::invalid_argument("'" + s + "': '" + amount + "' is not a percentage");
		return r;
	}
	if (!std::isalpha(static_cast<unsigned char>(amount.back())))
		throw std::invalid_argument("'" + s + "': give the threshold a unit: %, ns, us, ms or s");
	r.relative = false;
	r.amount = double(parse_duration(amount).count());
	return r;
}

namespace {

// The rows both runs have, and the names of those only one has.
void match_rows(Diff &d, const CompareOptions &opts)
{
	const auto ambiguous = ambiguous_keys(*d.before, *d.after);
	const auto a = keyed(*d.before, ambiguous, opts.per_cpu), b = keyed(*d.after, ambiguous, opts.per_cpu);
	const std::map<std::string, const RunRow *> in_a(a.begin(), a.end()), in_b(b.begin(), b.end());
	for (const auto &[k, row] : a) {
		const auto other = in_b.find(k);
		if (other == in_b.end())
			d.only_before.push_back(RowDiff{row, row, 0, 0, {}, {}}.name());
		else
			d.rows.push_back({row, other->second, rate(*row, *d.before), rate(*other->second, *d.after), {}, {}});
	}
	for (const auto &[k, row] : b)
		if (!in_a.count(k))
			d.only_after.push_back(RowDiff{row, row, 0, 0, {}, {}}.name());
}

}  // namespace

Diff compare(const Run &before, const Run &after, const CompareOptions &opts)
{
	Diff d;
	d.before = &before;
	d.after = &after;
	d.alpha = opts.alpha;
	d.rules = opts.rules;
	match_rows(d, opts);
	d.comparisons = std::max<size_t>(1, d.rows.size() * kTestsPerRow);
	d.level = d.alpha / double(d.comparisons);
	d.z = normal_quantile(d.level);
	for (auto &row : d.rows) {
		fill_changes(row, d.z);
		for (const auto &rule : d.rules)
			for (const auto &c : row.changes)
				if (rule.hit(c))
					d.hits.push_back({rule.text, row.name(), c});
	}
	return d;
}

}  // namespace kprof
