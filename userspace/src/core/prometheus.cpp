// SPDX-License-Identifier: GPL-2.0
#include "core/export.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>

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

void write_family(std::ostringstream &o, const std::string &name, const char *type, const char *help)
{
	o << "# HELP " << name << ' ' << help << '\n' << "# TYPE " << name << ' ' << type << '\n';
}

void write_counter(std::ostringstream &o, const std::string &name, const char *help, const std::string &v)
{
	write_family(o, name, "counter", help);
	o << name << ' ' << v << '\n';
}

// The counters of the system during the runs (Report::system).
struct SystemSeries {
	const char *name, *help;
};
constexpr SystemSeries kSystemSeries[] = {
	{"kprof_pressure_stall_seconds_total", "PSI stall time during the runs, per resource, some or full"},
	{"kprof_interrupts_total", "interrupts during the runs (/proc/stat intr)"},
	{"kprof_context_switches_total", "context switches during the runs (/proc/stat ctxt)"},
	{"kprof_major_faults_total", "major page faults during the runs (vmstat pgmajfault)"},
	{"kprof_direct_reclaim_stalls_total", "direct reclaim entered during the runs (vmstat allocstall_*)"},
	{"kprof_compaction_stalls_total", "direct compaction entered during the runs (vmstat compact_stall)"},
};

void add_system(Metrics &m, const SystemContext &c)
{
	const std::string stall = kSystemSeries[0].name;
	for (const auto &p : c.pressure)
		for (const auto &[kind, line] : {std::pair{"some", &p.some}, std::pair{"full", &p.full}})
			if (*line)
				m.system[stall + "{resource=\"" + p.resource + "\",kind=\"" + kind + "\"}"] =
					double((*line)->total_us) / 1e6;
	const uint64_t counts[] = {c.interrupts, c.switches, c.major_faults, c.reclaim_stalls, c.compaction_stalls};
	for (size_t i = 0; i < std::size(counts); i++)
		m.system[kSystemSeries[i + 1].name] = double(counts[i]);
}

bool system_series(const std::string &name)
{
	return std::any_of(std::begin(kSystemSeries), std::end(kSystemSeries),
			   [&](const SystemSeries &s) { return name == s.name; });
}

void write_system(std::ostringstream &o, const Metrics &m)
{
	for (const auto &s : kSystemSeries) {
		bool family = false;
		for (const auto &[series, v] : m.system)
			if (series.substr(0, series.find('{')) == s.name) {
				if (!family)
					write_family(o, s.name, "counter", s.help);
				family = true;
				o << series << ' ' << seconds(v * 1e9) << '\n';
			}
	}
}

// "name{labels} value" or "name value": the three parts; false otherwise.
bool split_sample(const std::string &line, std::string &name, std::string &labels, std::string &value)
{
	const auto sp = line.rfind(' ');
	if (sp == std::string::npos)
		return false;
	value = line.substr(sp + 1);
	std::string series = line.substr(0, sp);
	const auto brace = series.find('{');
	if (brace == std::string::npos) {
		name = series;
		labels.clear();
		return true;
	}
	if (series.back() != '}')
		return false;
	name = series.substr(0, brace);
	labels = series.substr(brace + 1, series.size() - brace - 2);
	return true;
}

uint64_t as_count(const std::string &v, const std::string &line)
{
	uint64_t n = 0;
	const auto res = std::from_chars(v.data(), v.data() + v.size(), n);
	if (res.ec != std::errc() || res.ptr != v.data() + v.size())
		throw std::runtime_error("not a count: '" + line + "'");
	return n;
}

double as_seconds(const std::string &v, const std::string &line)
{
	double d = 0;
	const auto res = std::from_chars(v.data(), v.data() + v.size(), d);
	if (res.ec != std::errc() || res.ptr != v.data() + v.size() || d < 0)
		throw std::runtime_error("not a number of seconds: '" + line + "'");
	return d;
}

// A _bucket line's labels: the series' own, and the bound's index (the
// last for +Inf).
void add_bucket(Metrics &m, const std::string &labels, uint64_t n, const std::string &line)
{
	static const std::vector<std::string> les = [] {
		std::vector<std::string> v;
		for (uint64_t b : metric_bounds_ns())
			v.push_back(seconds(double(b)));
		return v;
	}();
	const auto at = labels.rfind(",le=\"");
	if (at == std::string::npos || labels.back() != '"')
		throw std::runtime_error("a bucket without its bound: '" + line + "'");
	const std::string le = labels.substr(at + 5, labels.size() - at - 6);
	Metrics::Latency &l = m.latency[labels.substr(0, at)];
	l.below.resize(les.size());
	if (le == "+Inf")
		return;	// the same as _count
	const auto i = std::find(les.begin(), les.end(), le);
	if (i == les.end())
		throw std::runtime_error("a bucket bound kprofctl does not use: '" + line + "'");
	l.below[size_t(i - les.begin())] = n;
}

}  // namespace

Metrics metrics_of(const Report &r)
{
	Metrics m;
	const auto bounds = metric_bounds_ns();
	for (const auto &row : r.rows) {
		if (row.cpu >= 0)
			continue;
		Metrics::Latency &l = m.latency[labels(row)];
		l.below = cumulative(*row.hist, bounds);
		l.count = row.hist->count();
		l.sum_s = row.hist->mean() * double(row.hist->count()) / 1e9;
	}
	m.events_read = r.events_read;
	m.events_lost = r.total_missed();
	m.invalid = r.invalid;
	m.collection_s = r.duration_s;
	m.runs = 1;
	if (r.system)
		add_system(m, *r.system);
	return m;
}

Metrics parse_prometheus(const std::string &text)
{
	Metrics m;
	const std::string base = kLatencyMetric;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.empty() || line[0] == '#')
			continue;
		std::string name, labels, v;
		if (!split_sample(line, name, labels, v))
			throw std::runtime_error("not a sample: '" + line + "'");
		if (name == base + "_bucket")
			add_bucket(m, labels, as_count(v, line), line);
		else if (name == base + "_count")
			m.latency[labels].count = as_count(v, line);
		else if (name == base + "_sum")
			m.latency[labels].sum_s = as_seconds(v, line);
		else if (name == "kprof_events_read_total")
			m.events_read = as_count(v, line);
		else if (name == "kprof_events_lost_total")
			m.events_lost = as_count(v, line);
		else if (name == "kprof_invalid_records_total")
			m.invalid = as_count(v, line);
		else if (name == "kprof_runs_total")
			m.runs = as_count(v, line);
		else if (name == "kprof_collection_seconds_total")
			m.collection_s = as_seconds(v, line);
		else if (system_series(name))
			m.system[line.substr(0, line.rfind(' '))] = as_seconds(v, line);
		else
			throw std::runtime_error("a series kprofctl does not write: '" + line + "'");
	}
	for (auto &[l, lat] : m.latency)
		lat.below.resize(metric_bounds_ns().size());
	return m;
}

void add_metrics(Metrics &into, const Metrics &run)
{
	for (const auto &[labels, l] : run.latency) {
		Metrics::Latency &t = into.latency[labels];
		t.below.resize(l.below.size());
		for (size_t i = 0; i < l.below.size(); i++)
			t.below[i] += l.below[i];
		t.count += l.count;
		t.sum_s += l.sum_s;
	}
	into.events_read += run.events_read;
	into.events_lost += run.events_lost;
	into.invalid += run.invalid;
	into.runs += run.runs;
	into.collection_s += run.collection_s;
	for (const auto &[series, v] : run.system)
		into.system[series] += v;
}

std::string render_prometheus(const Metrics &m)
{
	std::ostringstream o;
	write_family(o, kLatencyMetric, "histogram",
		     "kprof latency samples per event and device, summed over every run that wrote this file "
		     "(bounds 2^k - 1 ns: exact counts)");
	const auto bounds = metric_bounds_ns();
	for (const auto &[l, lat] : m.latency) {
		for (size_t b = 0; b < bounds.size(); b++)
			o << kLatencyMetric << "_bucket{" << l << ",le=\"" << seconds(double(bounds[b])) << "\"} "
			  << (b < lat.below.size() ? lat.below[b] : 0) << '\n';
		o << kLatencyMetric << "_bucket{" << l << ",le=\"+Inf\"} " << lat.count << '\n';
		o << kLatencyMetric << "_sum{" << l << "} " << seconds(lat.sum_s * 1e9) << '\n';
		o << kLatencyMetric << "_count{" << l << "} " << lat.count << '\n';
	}
	write_counter(o, "kprof_events_read_total", "events kprofctl read and decoded", std::to_string(m.events_read));
	write_counter(o, "kprof_events_lost_total",
		      "events lost before kprofctl read them (ring buffer and seq cross-check); not in the histograms",
		      std::to_string(m.events_lost));
	write_counter(o, "kprof_invalid_records_total", "records that did not decode", std::to_string(m.invalid));
	write_counter(o, "kprof_collection_seconds_total", "time the runs collected for (the gaps between runs are "
		      "not covered)", seconds(m.collection_s * 1e9));
	write_counter(o, "kprof_runs_total", "kprofctl runs that added to this file", std::to_string(m.runs));
	write_system(o, m);
	return o.str();
}

std::vector<uint64_t> metric_bounds_ns()
{
	std::vector<uint64_t> b;
	for (unsigned k = kFirstBoundBit; k <= kLastBoundBit; k++)
		b.push_back((uint64_t(1) << k) - 1);
	return b;
}

}  // namespace kprof
