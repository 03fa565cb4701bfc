// SPDX-License-Identifier: GPL-2.0
#include "core/system.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace kprof {

namespace {

// "some avg10=1.23 avg60=0.50 avg300=0.10 total=12345"
PsiLine parse_psi_line(const std::string &line)
{
	PsiLine l;
	bool avg = false, total = false;
	std::istringstream in(line);
	std::string kind, field;
	in >> kind;
	while (in >> field) {
		const auto eq = field.find('=');
		const std::string key = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
		try {
			if (key == "avg10")
				l.avg10 = std::stod(value), avg = true;
			else if (key == "total")
				l.total_us = std::stoull(value), total = true;
		} catch (const std::logic_error &) {
			throw std::invalid_argument("not a PSI line: '" + line + "'");
		}
	}
	if (!avg || !total)
		throw std::invalid_argument("not a PSI line: '" + line + "'");
	return l;
}

uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

std::optional<PsiLine> line_between(const std::optional<PsiLine> &a, const std::optional<PsiLine> &b)
{
	if (!a || !b)
		return std::nullopt;
	return PsiLine{b->avg10, delta(a->total_us, b->total_us)};
}

// "1.23 s (12.3 %), avg10 4.56 %" of a stall over the window.
std::string stall_text(const std::optional<PsiLine> &l, double seconds)
{
	if (!l)
		return "-";
	char buf[96];
	std::snprintf(buf, sizeof(buf), "%.3f s (%.1f %%), avg10 %.2f %%", double(l->total_us) / 1e6,
		      seconds > 0 ? 100 * double(l->total_us) / 1e6 / seconds : 0.0, l->avg10);
	return buf;
}

nlohmann::json line_json(const std::optional<PsiLine> &l)
{
	if (!l)
		return nullptr;
	return {{"stall_us", l->total_us}, {"avg10_end", l->avg10}};
}

}  // namespace

Psi parse_psi(const std::string &text)
{
	Psi p;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.rfind("some ", 0) == 0)
			p.some = parse_psi_line(line);
		else if (line.rfind("full ", 0) == 0)
			p.full = parse_psi_line(line);
		else if (!line.empty())
			throw std::invalid_argument("not a PSI line: '" + line + "'");
	}
	if (!p.some && !p.full)
		throw std::invalid_argument("an empty PSI file");
	return p;
}

void parse_proc_stat(const std::string &text, SystemSnapshot &s)
{
	std::istringstream in(text);
	for (std::string key; in >> key;) {
		if (key == "intr")
			in >> s.interrupts;
		else if (key == "ctxt")
			in >> s.switches;
		std::string rest;
		std::getline(in, rest);
	}
}

void parse_vmstat(const std::string &text, SystemSnapshot &s)
{
	s.major_faults = s.reclaim_stalls = s.compaction_stalls = 0;
	std::istringstream in(text);
	std::string key;
	uint64_t v = 0;
	while (in >> key >> v) {
		if (key == "pgmajfault")
			s.major_faults = v;
		else if (key.rfind("allocstall", 0) == 0)
			s.reclaim_stalls += v;
		else if (key == "compact_stall")
			s.compaction_stalls = v;
	}
}

SystemContext system_between(const SystemSnapshot &a, const SystemSnapshot &b, double seconds)
{
	SystemContext c;
	c.seconds = seconds;
	c.psi_off = b.psi_off.value_or(a.psi_off.value_or(""));
	for (const char *r : kPsiResources) {
		const auto ia = a.psi.find(r), ib = b.psi.find(r);
		if (!c.psi_off.empty())
			break;
		if (ia == a.psi.end() || ib == b.psi.end()) {
			c.no_psi.push_back(r);
			continue;
		}
		c.pressure.push_back({r, line_between(ia->second.some, ib->second.some),
				      line_between(ia->second.full, ib->second.full)});
	}
	c.interrupts = delta(a.interrupts, b.interrupts);
	c.switches = delta(a.switches, b.switches);
	c.major_faults = delta(a.major_faults, b.major_faults);
	c.reclaim_stalls = delta(a.reclaim_stalls, b.reclaim_stalls);
	c.compaction_stalls = delta(a.compaction_stalls, b.compaction_stalls);
	return c;
}

std::string render_system_text(const SystemContext &c)
{
	std::ostringstream o;
	char line[256];
	const double s = c.seconds > 0 ? c.seconds : 1;
	o << "\nThe system during the window:\n";
	if (!c.psi_off.empty())
		o << "  pressure: " << c.psi_off << "\n";
	else
		o << "  pressure (stall in the window, its share, avg10 at the end):\n";
	for (const auto &p : c.pressure) {
		std::snprintf(line, sizeof(line), "    %-7s some %-34s full %s\n", p.resource.c_str(),
			      stall_text(p.some, c.seconds).c_str(), stall_text(p.full, c.seconds).c_str());
		o << line;
	}
	for (const auto &r : c.no_psi)
		o << "    " << r << ": the kernel has no /proc/pressure/" << r
		  << (r == "irq" ? " (CONFIG_IRQ_TIME_ACCOUNTING, 6.1 and later)" : "") << "\n";
	std::snprintf(line, sizeof(line), "  interrupts %.0f/s, context switches %.0f/s\n", double(c.interrupts) / s,
		      double(c.switches) / s);
	o << line;
	o << "  major faults " << c.major_faults << ", direct-reclaim stalls " << c.reclaim_stalls
	  << ", compaction stalls " << c.compaction_stalls << "\n";
	return o.str();
}

nlohmann::json render_system_json(const SystemContext &c)
{
	nlohmann::json psi = nlohmann::json::object();
	for (const auto &p : c.pressure)
		psi[p.resource] = {{"some", line_json(p.some)}, {"full", line_json(p.full)}};
	for (const auto &r : c.no_psi)
		psi[r] = nullptr;
	const double s = c.seconds > 0 ? c.seconds : 1;
	return {{"pressure", c.psi_off.empty() ? psi : nlohmann::json(nullptr)},
		{"pressure_off", c.psi_off.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.psi_off)},
		{"interrupts", c.interrupts},
		{"interrupts_per_s", double(c.interrupts) / s},
		{"context_switches", c.switches},
		{"context_switches_per_s", double(c.switches) / s},
		{"major_faults", c.major_faults},
		{"direct_reclaim_stalls", c.reclaim_stalls},
		{"compaction_stalls", c.compaction_stalls}};
}

}  // namespace kprof
