// SPDX-License-Identifier: GPL-2.0
// kprofctl diff: two reports' JSON compared row by row. Pure: JSON in, a
// Diff out, rendered as text or JSON here and as SVG in export.hpp.
//
// A row is an (event, device or IRQ action or function, CPU); the rows of
// the two runs with the same one are compared. For each:
//  - count and rate (count over the run's duration), as they are;
//  - the mean and each report percentile, with a confidence interval of
//    after / before (the max too, untested: one value has no interval);
//  - the Mann-Whitney U test of the two samples, on their histograms.
//
// Why these tests are valid on kprof's histograms, which keep each value
// only to its bucket (at most 1/512 of it wide):
//  - Mann-Whitney compares ranks. Binning maps both samples through the
//    same monotone function, so under "same distribution" the binned
//    samples are still exchangeable and the test, with midranks for the
//    values sharing a bucket and the tie-corrected variance, keeps its
//    level (normal approximation; fine for the hundreds of samples and
//    more that reports hold). It loses a little power, nothing else.
//  - A percentile's interval is distribution-free: the ranks n*q +- z *
//    sqrt(n*q*(1-q)) bound the q-quantile at the level z gives, whatever
//    the distribution. From the histogram the interval takes the lower
//    edge of the low rank's bucket and the upper edge of the high one's,
//    so it contains the one the raw values would give: conservative.
//    Two runs' intervals are combined on the log scale as Price and
//    Bonett do for the ratio of two medians (each standard error is the
//    interval's width over 2z), which gives after / before's interval.
//    Too few samples beyond the percentile for the rank interval to
//    exist (e.g. p99.9 of 500 values): not tested, and said so.
//  - The mean: Welch's normal interval of the log ratio, by the delta
//    method, from each run's count, mean and standard deviation.
// Every comparison shown (per row: the U test, the mean and each
// percentile) is at alpha divided by their number (Bonferroni), so that
// the chance of any false "slower" or "faster" in the whole diff is at
// most alpha.
#pragma once

#include "core/histogram.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

struct RunRow {
	std::string event;
	std::string name;	// device, IRQ action or function
	int irq = -1;		// the IRQ, for the tracker's rows
	int cpu = -1;		// -1: every CPU
	Histogram hist;
	std::optional<double> cpu_share;	// a function's total row: its share of the CPUs' time
};

// One report, as kprofctl's JSON gives it.
struct Run {
	std::string file;
	std::string mode;	// "streaming" or "in-kernel"
	double duration_s = 0;
	uint64_t missed = 0;	// events or calls the report says it lost
	std::vector<RunRow> rows;
};

// @j, a report kprofctl wrote with --json; std::invalid_argument naming
// @file and what is wrong otherwise.
Run load_run(const nlohmann::json &j, const std::string &file);

struct MannWhitney {
	double z = 0;
	double p = 1;			// two-sided
	double superiority = 0.5;	// P(after > before) + P(tie) / 2
};
MannWhitney mann_whitney(const Histogram &before, const Histogram &after);

struct Interval {
	double lo = 0, hi = 0;
};
// The distribution-free interval of @h's percentile @p (0 < p < 100) at
// the level @z gives, in ns; nullopt if the rank interval leaves the
// sample (too few values beyond the percentile).
std::optional<Interval> percentile_interval(const Histogram &h, double p, double z);

// z with P(|N(0,1)| > z) = @alpha.
double normal_quantile(double alpha);

struct Change {
	std::string metric;		// "mean", "p50" .. "p99.9", "max"
	double before = 0, after = 0;	// ns
	std::optional<Interval> ratio;	// after / before; nullopt: not tested
	std::string untested;		// why not, if not
	bool slower() const { return ratio && ratio->lo > 1; }
	bool faster() const { return ratio && ratio->hi < 1; }
};

struct RowDiff {
	const RunRow *before = nullptr, *after = nullptr;
	double rate_before = 0, rate_after = 0;	// samples per second
	MannWhitney mw;
	std::vector<Change> changes;
	std::string name() const;		// "func pktproc_poll", "entry_to_running 24 foo cpu 1"
	std::string verdict(double level) const;	// "slower", "faster", "no significant change"
};

// --fail-if METRIC+N% or METRIC+DURATION: a regression when a row's
// METRIC is slower (its interval above no change) and its estimate grew
// by more than that.
struct Rule {
	std::string text;
	std::string metric;
	bool relative = true;
	double amount = 0;	// percent, or ns
	bool hit(const Change &c) const;
};
// std::invalid_argument with a message for the user.
Rule parse_rule(const std::string &s);
// The metrics a rule may name: "mean, p50, p90, p99, p99.9".
std::string rule_metrics();

struct CompareOptions {
	double alpha = 0.05;
	bool per_cpu = false;	// the per-CPU rows too, not only the totals
	std::vector<Rule> rules;
};

struct RuleHit {
	std::string rule, row;
	Change change;
};

struct Diff {
	const Run *before = nullptr, *after = nullptr;
	double alpha = 0.05;
	size_t comparisons = 0;		// the Bonferroni divisor
	double level = 0.05;		// each comparison's: alpha / comparisons
	double z = 1.96;		// normal_quantile(level)
	std::vector<RowDiff> rows;
	std::vector<std::string> only_before, only_after;
	std::vector<Rule> rules;
	std::vector<RuleHit> hits;
};

// The runs must outlive the Diff (its rows point into them).
Diff compare(const Run &before, const Run &after, const CompareOptions &opts);

std::string render_diff_text(const Diff &d, const std::string &unit, uint64_t divisor);
nlohmann::json render_diff_json(const Diff &d);

}  // namespace kprof
