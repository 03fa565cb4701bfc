// SPDX-License-Identifier: GPL-2.0
// render_diff_text() and render_diff_json(): a Diff as a table per row.
#include "core/diff.hpp"

#include "core/report.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace kprof {

namespace {

using nlohmann::json;

// after / before as a change: "+302 %", "-1.5 %".
std::string percent(double ratio)
{
	const double pc = 100 * (ratio - 1);
	char buf[48];
	std::snprintf(buf, sizeof(buf), std::fabs(pc) >= 100 ? "%+.0f %%" : "%+.1f %%", pc);
	return buf;
}

std::string change_of(double before, double after)
{
	return before > 0 ? percent(after / before) : after > 0 ? "new" : "0";
}

std::string run_line(const char *which, const Run &run)
{
	std::ostringstream o;
	o << "  " << which << run.file << ": " << fmt(run.duration_s) << " s, " << run.mode;
	if (run.missed)
		o << ", LOST " << run.missed << " (its statistics do not cover them)";
	return o.str() + "\n";
}

std::string interval_text(const Change &c, bool verdict = true)
{
	if (!c.ratio)
		return "(" + c.untested + ")";
	return "[" + percent(c.ratio->lo) + ", " + percent(c.ratio->hi) + "]" +
	       (!verdict ? "" : c.slower() ? "  slower" : c.faster() ? "  faster" : "");
}

void row_text(std::ostringstream &o, const RowDiff &row, const Diff &d, double div)
{
	char line[256];
	std::snprintf(line, sizeof(line), " (Mann-Whitney p %.2g, P(after > before) %.2f)\n", row.mw.p,
		      row.mw.superiority);
	o << "\n" << row.name() << ": " << row.verdict(d.level) << line;
	std::snprintf(line, sizeof(line), "  %-8s %11s %11s %9s  %s\n", "", "BEFORE", "AFTER", "CHANGE",
		      "INTERVAL OF THE CHANGE");
	o << line;
	const uint64_t na = row.before->hist.count(), nb = row.after->hist.count();
	std::snprintf(line, sizeof(line), "  %-8s %11llu %11llu %9s\n", "count", (unsigned long long)na,
		      (unsigned long long)nb, change_of(double(na), double(nb)).c_str());
	o << line;
	std::snprintf(line, sizeof(line), "  %-8s %11s %11s %9s\n", "rate/s", fmt(row.rate_before).c_str(),
		      fmt(row.rate_after).c_str(), change_of(row.rate_before, row.rate_after).c_str());
	o << line;
	if (row.before->cpu_share && row.after->cpu_share) {
		const double a = 100 * *row.before->cpu_share, b = 100 * *row.after->cpu_share;
		std::snprintf(line, sizeof(line), "  %-8s %11s %11s %9s\n", "cpu %", fmt(a).c_str(), fmt(b).c_str(),
			      change_of(a, b).c_str());
		o << line;
	}
	for (const auto &c : row.changes) {
		std::snprintf(line, sizeof(line), "  %-8s %11s %11s %9s  %s\n", c.metric.c_str(),
			      fmt(c.before / div).c_str(), fmt(c.after / div).c_str(),
			      change_of(c.before, c.after).c_str(), interval_text(c).c_str());
		o << line;
	}
}

void rules_text(std::ostringstream &o, const Diff &d, double div, const std::string &unit)
{
	for (const auto &rule : d.rules) {
		bool hit = false;
		for (const auto &h : d.hits)
			if (h.rule == rule.text) {
				o << "--fail-if " << rule.text << ": REGRESSION in " << h.row << ": " << h.change.metric << ' '
				  << fmt(h.change.before / div) << " -> " << fmt(h.change.after / div) << ' ' << unit << " ("
				  << change_of(h.change.before, h.change.after) << ", interval " << interval_text(h.change, false)
				  << ")\n";
				hit = true;
			}
		if (!hit)
			o << "--fail-if " << rule.text << ": passed: no row's " << rule.metric
			  << " grew past it and is significantly slower\n";
	}
}

json change_json(const Change &c)
{
	json j = {{"before_ns", c.before}, {"after_ns", c.after},
		  {"change", c.before > 0 ? json(c.after / c.before - 1) : json(nullptr)}};
	if (c.ratio) {
		j["interval"] = {c.ratio->lo - 1, c.ratio->hi - 1};
		j["significant"] = c.slower() ? json("slower") : c.faster() ? json("faster") : json(nullptr);
	} else {
		j["interval"] = nullptr;
		j["untested"] = c.untested;
	}
	return j;
}

json row_json(const RowDiff &row, const Diff &d)
{
	const RunRow &a = *row.before, &b = *row.after;
	json metrics = json::object();
	for (const auto &c : row.changes)
		metrics[c.metric] = change_json(c);
	json j = {{"event", b.event},
		  {"name", b.name},
		  {"cpu", b.cpu < 0 ? json(nullptr) : json(b.cpu)},
		  {"verdict", row.verdict(d.level)},
		  {"mann_whitney", {{"z", row.mw.z}, {"p", row.mw.p}, {"p_after_greater", row.mw.superiority}}},
		  {"count", {{"before", a.hist.count()}, {"after", b.hist.count()}}},
		  {"rate_per_s", {{"before", row.rate_before}, {"after", row.rate_after}}},
		  {"metrics", metrics}};
	if (b.irq >= 0)
		j["irq"] = {{"before", a.irq}, {"after", b.irq}};
	if (a.cpu_share && b.cpu_share)
		j["cpu_share"] = {{"before", *a.cpu_share}, {"after", *b.cpu_share}};
	return j;
}

json run_json(const Run &run)
{
	return {{"file", run.file}, {"mode", run.mode}, {"duration_s", run.duration_s}, {"missed", run.missed}};
}

}  // namespace

std::string render_diff_text(const Diff &d, const std::string &unit, uint64_t divisor)
{
	std::ostringstream o;
	const double div = double(divisor);
	o << "kprof diff: values in " << unit << "\n"
	  << run_line("before: ", *d.before) << run_line("after:  ", *d.after);
	char line[256];
	std::snprintf(line, sizeof(line),
		      "Each test at %.2g (alpha %.2g over %zu tests, Bonferroni); intervals at that level.\n", d.level,
		      d.alpha, d.comparisons);
	o << line;
	if (d.rows.empty())
		o << "\n(no row is in both reports)\n";
	for (const auto &row : d.rows)
		row_text(o, row, d, div);
	if (!d.only_before.empty() || !d.only_after.empty())
		o << "\n";
	for (const auto &n : d.only_before)
		o << "only before: " << n << "\n";
	for (const auto &n : d.only_after)
		o << "only after:  " << n << "\n";
	if (!d.rules.empty())
		o << "\n";
	rules_text(o, d, div, unit);
	return o.str();
}

json render_diff_json(const Diff &d)
{
	json rows = json::array(), rules = json::array();
	for (const auto &row : d.rows)
		rows.push_back(row_json(row, d));
	for (const auto &rule : d.rules) {
		json hits = json::array();
		for (const auto &h : d.hits)
			if (h.rule == rule.text)
				hits.push_back({{"row", h.row}, {"before_ns", h.change.before}, {"after_ns", h.change.after}});
		rules.push_back({{"rule", rule.text}, {"hits", hits}});
	}
	return {{"before", run_json(*d.before)},
		{"after", run_json(*d.after)},
		{"alpha", d.alpha},
		{"tests", d.comparisons},
		{"level", d.level},
		{"rows", rows},
		{"only_before", d.only_before},
		{"only_after", d.only_after},
		{"fail_if", rules},
		{"regression", !d.hits.empty()}};
}

}  // namespace kprof
