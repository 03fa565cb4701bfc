// SPDX-License-Identifier: GPL-2.0
// render_svg(): each total row's histogram on a log time axis.
#include "core/export.hpp"

#include "core/diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kprof {

namespace {

// Geometry of one chart, in SVG user units (px).
constexpr double kWidth = 760, kHeight = 260;
constexpr double kLeft = 70, kRight = 30, kTop = 40, kBottom = 70;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr int kBinsPerDecade = 10;

struct Marker {
	const char *name;
	double pct;	// 0: the max
};
constexpr Marker kMarkers[] = {{"p50", 50}, {"p99", 99}, {"p99.9", 99.9}, {"max", 0}};

std::string xml_escape(const std::string &s)
{
	std::string out;
	for (char c : s) {
		switch (c) {
		case '&': out += "&amp;"; break;
		case '<': out += "&lt;"; break;
		case '>': out += "&gt;"; break;
		case '"': out += "&quot;"; break;
		default: out += c;
		}
	}
	return out;
}

// 1234 -> "1.23 µs": three significant digits in the largest fitting unit.
std::string duration(double ns)
{
	static const std::pair<double, const char *> units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	for (const auto &[scale, name] : units)
		if (ns >= scale || scale == 1) {
			char buf[48];
			std::snprintf(buf, sizeof(buf), "%.3g %s", ns / scale, name);
			return buf;
		}
	return {};
}

std::string num(double v)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "%.1f", v);
	return buf;
}

// The decades the chart spans: [10^lo, 10^hi] ns, at least one.
struct Axis {
	int lo = 0, hi = 1;
	Axis(uint64_t min, uint64_t max)
	{
		lo = int(std::floor(std::log10(double(std::max<uint64_t>(min, 1)))));
		hi = std::max(lo + 1, int(std::ceil(std::log10(double(std::max<uint64_t>(max, 1)) + 1))));
	}
	explicit Axis(const Histogram &h) : Axis(h.min(), h.max()) {}
	double x(double ns) const
	{
		const double d = std::log10(std::max(ns, 1.0));
		return kLeft + std::clamp((d - lo) / (hi - lo), 0.0, 1.0) * kPlotW;
	}
	int bin(double ns) const
	{
		const int b = int((std::log10(std::max(ns, 1.0)) - lo) * kBinsPerDecade);
		return std::clamp(b, 0, bins() - 1);
	}
	int bins() const { return (hi - lo) * kBinsPerDecade; }
};

// The histogram's buckets summed into the axis' display bins.
std::vector<uint64_t> display_bins(const Histogram &h, const Axis &axis)
{
	std::vector<uint64_t> bins(axis.bins(), 0);
	for (size_t i = 0; i < Histogram::kBuckets; i++)
		if (const uint64_t n = h.bucket(i))
			bins[axis.bin(double(Histogram::mid_of(i)))] += n;
	return bins;
}

void draw_axes(std::ostringstream &o, const Axis &axis, uint64_t peak)
{
	const double base = kTop + kPlotH;
	o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << base << "\" x2=\"" << kLeft + kPlotW << "\" y2=\""
	  << base << "\"/>\n";
	o << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << base
	  << "\"/>\n";
	for (int d = axis.lo; d <= axis.hi; d++) {
		const double x = axis.x(std::pow(10.0, d));
		o << "<line class=\"tick\" x1=\"" << num(x) << "\" y1=\"" << base << "\" x2=\"" << num(x) << "\" y2=\""
		  << base + 5 << "\"/><text class=\"tick\" x=\"" << num(x) << "\" y=\"" << base + 18
		  << "\" text-anchor=\"middle\">" << duration(std::pow(10.0, d)) << "</text>\n";
	}
	o << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << kTop + 4 << "\" text-anchor=\"end\">" << peak
	  << "</text>\n<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << base
	  << "\" text-anchor=\"end\">0</text>\n";
}

void draw_bars(std::ostringstream &o, const std::vector<uint64_t> &bins, uint64_t peak, const char *cls = "bar")
{
	const double w = kPlotW / double(bins.size());
	for (size_t b = 0; b < bins.size(); b++) {
		if (!bins[b])
			continue;
		const double h = std::max(1.0, kPlotH * double(bins[b]) / double(peak));
		o << "<rect class=\"" << cls << "\" x=\"" << num(kLeft + w * double(b)) << "\" y=\"" << num(kTop + kPlotH - h)
		  << "\" width=\"" << num(w) << "\" height=\"" << num(h) << "\"><title>" << bins[b]
		  << " samples</title></rect>\n";
	}
}

// @h's markers, their labels from line @n down, suffixed @tag.
void draw_markers(std::ostringstream &o, const Axis &axis, const Histogram &h, int n = 0, const char *tag = "",
		  const char *cls = "marker")
{
	for (const auto &m : kMarkers) {
		const double v = double(m.pct > 0 ? h.percentile(m.pct) : h.max());
		const double x = axis.x(v);
		// Labels near the right edge end at their line instead of starting there.
		const bool left = x > kLeft + kPlotW - 100;
		o << "<line class=\"" << cls << "\" x1=\"" << num(x) << "\" y1=\"" << kTop << "\" x2=\"" << num(x)
		  << "\" y2=\"" << kTop + kPlotH << "\"/><text class=\"" << cls << "\" x=\"" << num(left ? x - 3 : x + 3)
		  << "\" y=\"" << kTop + 12 + 13 * n++ << (left ? "\" text-anchor=\"end\">" : "\">") << m.name << tag
		  << ' ' << duration(v) << "</text>\n";
	}
}

std::string caption(const Report &r, const Histogram &h)
{
	std::ostringstream c;
	c << h.count() << " samples; min " << duration(double(h.min())) << ", mean " << duration(h.mean())
	  << ", stddev " << duration(h.stddev()) << ". ";
	if (r.lost_anything())
		c << "LOST: " << r.total_missed() << " events, " << r.invalid
		  << " invalid records; the chart does not cover them.";
	else
		c << "Nothing lost: " << r.events_read << (r.in_kernel ? " samples" : " events") << " read, every one counted.";
	return c.str();
}

void draw_chart(std::ostringstream &o, const Report &r, const ReportRow &row, double y)
{
	const Histogram &h = *row.hist;
	o << "<g class=\"chart\" transform=\"translate(0," << y << ")\">\n"
	  << "<text class=\"title\" x=\"" << kLeft << "\" y=\"22\">" << xml_escape(row.event + " — " + row_name(row))
	  << "</text>\n";
	if (h.count()) {
		const Axis axis(h);
		const auto bins = display_bins(h, axis);
		const uint64_t peak = *std::max_element(bins.begin(), bins.end());
		draw_axes(o, axis, peak);
		draw_bars(o, bins, peak);
		draw_markers(o, axis, h);
	}
	o << "<text class=\"caption\" x=\"" << kLeft << "\" y=\"" << kTop + kPlotH + 40 << "\">"
	  << xml_escape(h.count() ? caption(r, h) : "no samples") << "</text>\n</g>\n";
}

// The document's start: its size for @charts charts, title and styles.
void document_start(std::ostringstream &o, size_t charts, const std::string &title)
{
	const double height = double(std::max<size_t>(charts, 1)) * kHeight;
	o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	  << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << kWidth << "\" height=\"" << height
	  << "\" viewBox=\"0 0 " << kWidth << ' ' << height << "\">\n"
	  << "<title>" << xml_escape(title) << "</title>\n"
	  << "<style>text { font-family: sans-serif; font-size: 11px; fill: #222; }"
	     " .title { font-size: 14px; font-weight: bold; } .caption { font-size: 12px; }"
	     " .axis, .tick { stroke: #444; } text.tick { stroke: none; } .bar { fill: #4a7ab8; }"
	     " .before { fill: #888; fill-opacity: 0.55; } .after { fill: #4a7ab8; fill-opacity: 0.55; }"
	     " .marker { stroke: #c0392b; stroke-dasharray: 4 3; }"
	     " .bmarker { stroke: #555; stroke-dasharray: 2 3; }"
	     " text.marker, text.bmarker { stroke: white; stroke-width: 3px; stroke-dasharray: none;"
	     " paint-order: stroke; } text.marker { fill: #c0392b; } text.bmarker { fill: #555; }"
	     "</style>\n"
	  << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

std::string diff_caption(const RowDiff &row)
{
	std::ostringstream c;
	c << "before (grey) " << row.before->hist.count() << ", after (blue) " << row.after->hist.count()
	  << " samples, bars in per mille of each; mean " << duration(row.before->hist.mean()) << " -> "
	  << duration(row.after->hist.mean());
	return c.str();
}

// @bins, counts of @n samples, in per mille of them.
void to_per_mille(std::vector<uint64_t> &bins, uint64_t n)
{
	for (auto &v : bins)
		v = uint64_t(std::llround(1000.0 * double(v) / double(n)));
}

// Both runs' histograms of a row on one axis; each scaled to its own
// count, so that runs of different lengths compare by shape.
void draw_diff_chart(std::ostringstream &o, const Diff &d, const RowDiff &row, double y)
{
	const Histogram &a = row.before->hist, &b = row.after->hist;
	o << "<g class=\"chart\" transform=\"translate(0," << y << ")\">\n"
	  << "<text class=\"title\" x=\"" << kLeft << "\" y=\"22\">"
	  << xml_escape(row.name() + ": " + row.verdict(d.level)) << "</text>\n";
	if (a.count() && b.count()) {
		const Axis axis(std::min(a.min(), b.min()), std::max(a.max(), b.max()));
		auto ba = display_bins(a, axis), bb = display_bins(b, axis);
		// Per mille of each run's samples, so that the two share the y axis.
		to_per_mille(ba, a.count());
		to_per_mille(bb, b.count());
		const uint64_t peak = std::max(*std::max_element(ba.begin(), ba.end()),
					       *std::max_element(bb.begin(), bb.end()));
		draw_axes(o, axis, std::max<uint64_t>(peak, 1));
		draw_bars(o, ba, std::max<uint64_t>(peak, 1), "before");
		draw_bars(o, bb, std::max<uint64_t>(peak, 1), "after");
		draw_markers(o, axis, a, 0, " before", "bmarker");
		draw_markers(o, axis, b, int(std::size(kMarkers)), " after");
	}
	o << "<text class=\"caption\" x=\"" << kLeft << "\" y=\"" << kTop + kPlotH + 40 << "\">"
	  << xml_escape(diff_caption(row)) << "</text>\n</g>\n";
}

}  // namespace

std::string render_svg(const Report &r)
{
	std::vector<const ReportRow *> rows;
	for (const auto &row : r.rows)
		if (row.cpu < 0)
			rows.push_back(&row);
	std::ostringstream o;
	document_start(o, rows.size(), "kprof " + r.title + " report");
	if (rows.empty())
		o << "<text x=\"" << kLeft << "\" y=\"" << kTop << "\">no events were reported</text>\n";
	for (size_t i = 0; i < rows.size(); i++)
		draw_chart(o, r, *rows[i], double(i) * kHeight);
	o << "</svg>\n";
	return o.str();
}

std::string render_diff_svg(const Diff &d)
{
	std::ostringstream o;
	document_start(o, d.rows.size(), "kprof diff: " + d.before->file + " -> " + d.after->file);
	if (d.rows.empty())
		o << "<text x=\"" << kLeft << "\" y=\"" << kTop << "\">no row is in both reports</text>\n";
	for (size_t i = 0; i < d.rows.size(); i++)
		draw_diff_chart(o, d, d.rows[i], double(i) * kHeight);
	o << "</svg>\n";
	return o.str();
}

}  // namespace kprof
