// SPDX-License-Identifier: GPL-2.0
#include "core/topview.hpp"

#include "core/counters.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace kprof {

namespace {

// "1234.5" in the report's unit: four significant digits at most.
std::string value(uint64_t ns, uint64_t unit_ns)
{
	char buf[32];
	const double v = double(ns) / double(unit_ns);
	std::snprintf(buf, sizeof(buf), v >= 1000 ? "%.0f" : v >= 100 ? "%.1f" : "%.2f", v);
	return buf;
}

std::string cell(const char *fmt, const std::string &s)
{
	char buf[96];
	std::snprintf(buf, sizeof(buf), fmt, s.c_str());
	return buf;
}

// p50 p99 max of @h, "-" when it is empty.
std::string stats(const Histogram &h, uint64_t unit_ns)
{
	if (!h.count())
		return cell("%9s", "-") + cell(" %9s", "-") + cell(" %9s", "-");
	return cell("%9s", value(h.percentile(50), unit_ns)) + cell(" %9s", value(h.percentile(99), unit_ns)) +
	       cell(" %9s", value(h.max(), unit_ns));
}

uint64_t count_at(const TopState::Counts &c, const std::string &device, const std::string &label)
{
	const auto d = c.find(device);
	if (d == c.end())
		return 0;
	const auto l = d->second.find(label);
	return l == d->second.end() ? 0 : l->second;
}

std::string fit(const std::string &line, int width)
{
	return width > 0 && int(line.size()) > width ? line.substr(0, width) : line;
}

}  // namespace

std::map<std::string, uint64_t> parse_latency_counts(const std::string &text)
{
	std::map<std::string, uint64_t> out;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.empty() || line[0] == ' ')
			continue;	// a bucket line
		const auto sp = line.find(" count=");
		if (sp == std::string::npos || sp == 0)
			throw std::runtime_error("kprof.ko's latency file has a line I cannot read: '" + line + "'");
		const auto start = sp + 7;
		out[line.substr(0, sp)] = kernel_u64(std::string_view(line).substr(start, line.find(' ', start) - start),
						     line);
	}
	return out;
}

void TopState::window(const std::map<Key, Histogram> &hists, double seconds, const Counts &counts)
{
	const bool restart = !started_ || reset_;
	for (auto &[key, row] : rows_) {
		row.last = Histogram();
		row.rate = 0;
		if (restart)
			row.total = Histogram();
	}
	for (const auto &[key, h] : hists) {
		Row &row = rows_[key];
		row.last = h;
		row.rate = seconds > 0 ? double(h.count()) / seconds : 0;
		if (!restart)
			row.total.merge(h);
	}
	last_ = seconds;
	windows_++;
	if (restart) {
		// The totals start after this window: from these counts on.
		base_ = counts;
		started_ = true;
		reset_ = false;
		elapsed_ = 0;
		for (auto &[key, row] : rows_)
			row.uncovered = 0;
		return;
	}
	elapsed_ += seconds;
	// A row for every count that moved, also one no window caught.
	for (const auto &[device, labels] : counts)
		for (const auto &[label, n] : labels)
			if (n > count_at(base_, device, label))
				rows_.try_emplace({label, device, -1});
	for (auto &[key, row] : rows_) {
		const auto &[label, device, irq] = key;
		// A device loaded again meanwhile starts from 0.
		const uint64_t now = count_at(counts, device, label), base = count_at(base_, device, label);
		const uint64_t since = now >= base ? now - base : now;
		row.uncovered = since > row.total.count() ? since - row.total.count() : 0;
	}
}

void TopState::reading(const std::map<Key, Histogram> &since_start, double seconds, uint64_t lost)
{
	std::map<Key, Histogram> win;
	for (const auto &[key, h] : since_start) {
		const auto was = last_reading_.find(key);
		win[key] = was == last_reading_.end() ? h : Histogram::gained(h, was->second);
	}
	last_reading_ = since_start;
	lost_ = lost;
	window(win, seconds, {});
}

namespace {

// The heading's second line: what the totals may lack, and why.
std::string coverage_line(const TopState &s, TopSource src)
{
	uint64_t uncovered = 0;
	for (const auto &[key, row] : s.rows())
		uncovered += row.uncovered;
	const unsigned long long lost = s.lost();
	char line[256];
	if (src == TopSource::Devices)
		std::snprintf(line, sizeof(line), "samples outside the windows (read gaps), not in the totals: %llu",
			      (unsigned long long)uncovered);
	else if (src == TopSource::Irqs)
		std::snprintf(line, sizeof(line),
			      "read while aggregating, no gaps; samples with no histogram since the start "
			      "(girq_agg_slots, the budget): %llu", lost);
	else
		std::snprintf(line, sizeof(line),
			      "read while probing, no gaps; calls the probes could not time since the start: %llu", lost);
	return line;
}

// The name column: a device, "IRQ name" or a function.
std::string row_label(const TopState::Key &key)
{
	return source_name(std::get<1>(key), std::get<2>(key));
}

// @s padded with spaces to @width, or cut to it.
std::string column(const std::string &s, size_t width)
{
	return s.size() >= width ? s.substr(0, width) : s + std::string(width - s.size(), ' ');
}

// The name column's width: the longest row's name, 16 to 40 characters.
size_t name_width(const TopState &s)
{
	size_t w = 16;
	for (const auto &[key, row] : s.rows())
		w = std::max(w, row_label(key).size());
	return std::min<size_t>(w, 40);
}

}  // namespace

std::string render_top(const TopState &s, TopSource src, const std::string &unit, uint64_t unit_ns, int width,
		       int height)
{
	static const char *const what[] = {"kprof.ko's in-kernel histograms", "kprof.ko's IRQ tracker",
					   "kprof.ko's function probes"};
	static const char *const heading[] = {"DEVICE", "IRQ NAME", "FUNCTION"};
	const size_t nw = name_width(s);
	std::vector<std::string> lines;
	char head[256];
	std::snprintf(head, sizeof(head), "kprofctl top: %s, %.1f s in total, windows of %.1f s (%u)  [q] quit  [r] reset",
		      what[int(src)], s.elapsed(), s.last_window(), s.windows());
	lines.emplace_back(head);
	lines.push_back(coverage_line(s, src));
	lines.emplace_back("");
	lines.push_back(column(heading[int(src)], nw) + cell(" %-20s", "EVENT") + cell(" %10s", "RATE/s") + "  " +
			cell("%9s", "P50") + cell(" %9s", "P99") + cell(" %9s", "MAX") + "  " + cell("%10s", "COUNT") +
			cell(" %9s", "P50") + cell(" %9s", "P99") + cell(" %9s", "MAX") + cell(" %9s", "MISSED"));
	lines.push_back(column("", nw) + cell(" %-20s", "") + cell(" %10s", "") + "  " +
			cell("%-29s", "last window (" + unit + ")") + "  " +
			cell("%-50s", "since start (" + unit + ")"));
	for (const auto &[key, row] : s.rows()) {
		char rate[32];
		std::snprintf(rate, sizeof(rate), "%.0f", row.rate);
		lines.push_back(column(row_label(key), nw) + cell(" %-20s", std::get<0>(key)) + cell(" %10s", rate) +
				"  " + stats(row.last, unit_ns) + "  " + cell("%10s", std::to_string(row.total.count())) +
				stats(row.total, unit_ns) + cell(" %9s", std::to_string(row.uncovered)));
	}
	if (s.rows().empty())
		lines.emplace_back(src == TopSource::Devices ? "(no samples yet: is a kprof-instrumented driver running?)"
				   : src == TopSource::Irqs ? "(no IRQ yet)"
							    : "(no call returned yet)");
	std::string out;
	const size_t max = height > 0 ? size_t(height) : lines.size();
	for (size_t i = 0; i < lines.size() && i < max; i++) {
		if (i + 1 == max && lines.size() > max) {
			out += fit("... " + std::to_string(lines.size() - i) + " more rows: a taller terminal shows them", width) + '\n';
			break;
		}
		out += fit(lines[i], width) + '\n';
	}
	return out;
}

}  // namespace kprof
