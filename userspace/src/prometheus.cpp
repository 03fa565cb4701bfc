// SPDX-License-Identifier: GPL-2.0
#include "export.hpp"

#include <charconv>
#include <sstream>

namespace kprof {

namespace {

constexpr const char *kLatencyMetric = "kprof_latency_seconds";
constexpr unsigned kFirstBoundBit = 7;
constexpr unsigned kLastBoundBit = 36;

std::string escape_label(const std::string &s)
{
	std::string out;
	for (char c : s) {
		if (c == '\\' || c == '"')
			out += '\\';
		out += c == '\n' ? std::string("\\n") : std::string(1, c);
	}
	return out;
}

// Seconds, in the shortest form that reads back as the same double.
std::string seconds(double ns)
{
	char buf[64];
	const auto res = std::to_chars(buf, buf + sizeof(buf), ns / 1e9);
	return std::string(buf, res.ptr);
}

std::string labels(const ReportRow &row)
{
	std::string l = "event=\"" + escape_label(row.event) + "\",device=\"" + escape_label(row.device) + "\"";
	if (row.irq >= 0)
		l += ",irq=\"" + std::to_string(row.irq) + "\"";
	return l;
}

// Values of the histogram at or below each bound, cumulatively.
std::vector<uint64_t> cumulative(const Histogram &h, const std::vector<uint64_t> &bounds)
{
	std::vector<uint64_t> below(bounds.size(), 0);
	for (size_t i = 0; i < Histogram::kBuckets; i++) {
		const uint64_t n = h.bucket(i);
		if (!n)
			continue;
		const uint64_t top = Histogram::lowest_of(i) + Histogram::width_of(i) - 1;
		for (size_t b = 0; b < bounds.size(); b++)
			if (top <= bounds[b])
				below[b] += n;
	}
	return below;
}

void write_histogram(std::ostringstream &o, const ReportRow &row, const std::vector<uint64_t> &bounds)
{
	const Histogram &h = *row.hist;
	const std::string l = labels(row);
	const auto below = cumulative(h, bounds);
	for (size_t b = 0; b < bounds.size(); b++)
		o << kLatencyMetric << "_bucket{" << l << ",le=\"" << seconds(double(bounds[b])) << "\"} " << below[b]
		  << '\n';
	o << kLatencyMetric << "_bucket{" << l << ",le=\"+Inf\"} " << h.count() << '\n';
	o << kLatencyMetric << "_sum{" << l << "} " << seconds(h.mean() * double(h.count())) << '\n';
	o << kLatencyMetric << "_count{" << l << "} " << h.count() << '\n';
}

void write_scalar(std::ostringstream &o, const char *name, const char *type, const char *help, const std::string &v)
{
	o << "# HELP " << name << ' ' << help << '\n'
	  << "# TYPE " << name << ' ' << type << '\n'
	  << name << ' ' << v << '\n';
}

}  // namespace

std::vector<uint64_t> metric_bounds_ns()
{
	std::vector<uint64_t> b;
	for (unsigned k = kFirstBoundBit; k <= kLastBoundBit; k++)
		b.push_back((uint64_t(1) << k) - 1);
	return b;
}

std::string render_openmetrics(const Report &r)
{
	std::ostringstream o;
	o << "# HELP " << kLatencyMetric
	  << " kprof latency samples per event and device over the collection (bounds 2^k - 1 ns: exact counts)\n"
	  << "# TYPE " << kLatencyMetric << " histogram\n";
	const auto bounds = metric_bounds_ns();
	for (const auto &row : r.rows)
		if (row.cpu < 0)
			write_histogram(o, row, bounds);
	write_scalar(o, "kprof_events_read_total", "counter", "events kprofctl read and decoded",
		     std::to_string(r.events_read));
	write_scalar(o, "kprof_events_lost_total", "counter",
		     "events lost before kprofctl read them (ring buffer and seq cross-check); not in the histograms",
		     std::to_string(r.total_missed()));
	write_scalar(o, "kprof_invalid_records_total", "counter", "records that did not decode",
		     std::to_string(r.invalid));
	write_scalar(o, "kprof_collection_duration_seconds", "gauge", "how long kprofctl collected",
		     seconds(r.duration_s * 1e9));
	return o.str();
}

}  // namespace kprof
