// SPDX-License-Identifier: GPL-2.0
#include "core/inkernel.hpp"

#include "core/counters.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace kprof {

EventKind kind_of_label(const std::string &label)
{
	const std::string base = label.substr(0, label.find(':'));
	for (const auto &s : kEvents)
		if (s.source == Source::Device && base == s.label)
			return s.kind;
	throw std::runtime_error("kprof.ko's histogram of an unknown kind '" + label + "'");
}

namespace {

void check_layout(const std::string &line)
{
	std::ostringstream want;
	want << "layout sub_bits=" << KPROF_HIST_SUB_BITS << " kernel_bits=" << KPROF_HIST_KERNEL_BITS
	     << " buckets=" << KPROF_HIST_KERNEL_BUCKETS;
	if (line != want.str())
		throw std::runtime_error("kprof.ko's histogram layout '" + line + "' is not kprofctl's '" + want.str() +
					 "': use the kprofctl of the same kprof version");
}

struct Parsed {
	std::string label;	// the device's kind label, or the tracker's event
	int cpu = -1;
	int irq = -1;		// the tracker's
	std::string name;	// ... IRQ action
	uint64_t count = 0, sum = 0, min = 0, max = 0;
	Histogram hist;
	uint64_t overflow = 0;	// samples in the kernel's last bucket
};

std::runtime_error malformed(const std::string &line)
{
	return std::runtime_error("malformed kprof.ko histogram line: '" + line.substr(0, 80) + "'");
}

// A live copy's histogram (@total samples in its buckets, @lo and @hi the
// lowest and highest bucket used): kprof_hist_copy() takes the fields
// (count, sum, min, max) first and the buckets after, a chunk at a time,
// so the samples that landed meanwhile are in their buckets and not in
// the fields. The buckets are the count; each such sample adds the mean
// to the sum; the min and max stretch to their buckets.
void catch_up(Parsed &p, uint64_t total, uint64_t lo, uint64_t hi)
{
	const uint64_t was = p.count, top = Histogram::lowest_of(hi) + Histogram::width_of(hi) - 1;
	p.sum = was ? p.sum + (total - was) * (p.sum / was) : total * Histogram::mid_of(lo);
	p.min = was ? std::min(p.min, Histogram::lowest_of(lo) + Histogram::width_of(lo) - 1) : Histogram::lowest_of(lo);
	p.max = was ? std::max(p.max, Histogram::lowest_of(hi)) : top;
	p.count = total;
}

// The rest of a histogram line, after its keys: COUNT SUM MIN MAX BUCKET:N ...
// @live: read while aggregating (kprofctl top), where a copy may hold
// samples in its buckets that its fields do not count yet.
void parse_buckets(std::istringstream &in, const std::string &line, Parsed &p, bool live)
{
	if (!(in >> p.count >> p.sum >> p.min >> p.max) || p.cpu < 0 || (!p.count && !live))
		throw malformed(line);
	uint64_t total = 0, overflow = 0, lo = KPROF_HIST_KERNEL_BUCKETS, hi = 0;
	for (std::string pair; in >> pair;) {
		const auto colon = pair.find(':');
		if (colon == std::string::npos)
			throw std::runtime_error("malformed bucket '" + pair + "' in kprof.ko's histogram");
		const uint64_t index = kernel_u64(std::string_view(pair).substr(0, colon), line);
		const uint64_t n = kernel_u64(std::string_view(pair).substr(colon + 1), line);
		if (index >= KPROF_HIST_KERNEL_BUCKETS)
			throw std::runtime_error("bucket " + std::to_string(index) + " beyond kprof.ko's layout");
		total += n;
		if (n) {
			lo = std::min(lo, index);
			hi = std::max(hi, index);
		}
		if (index == KPROF_HIST_KERNEL_BUCKETS - 1)
			overflow += n;	// [2^36, max]: binned with the max
		else
			p.hist.add_bucket(index, n);
	}
	if (live && total > p.count)
		catch_up(p, total, lo, hi);
	if (total != p.count)
		throw std::runtime_error(p.label + " on CPU " + std::to_string(p.cpu) + ": buckets hold " +
					 std::to_string(total) + " samples, the count is " + std::to_string(p.count) +
					 " (read while aggregation was on?)");
	if (overflow)
		p.hist.add_bucket(Histogram::index_of(p.max), overflow);
	p.overflow = overflow;
	if (p.count)
		p.hist.finish(p.count, p.sum, p.min, p.max);
}

// Every histogram line of @text, after the layout; the state into @out.
template <typename F>
void for_each_line(const std::string &text, const std::string &file, KernelStats &out, F &&fn)
{
	std::istringstream in(text);
	std::string line;
	if (!std::getline(in, line))
		throw std::runtime_error("kprof/" + file + " is empty");
	check_layout(line);
	while (std::getline(in, line)) {
		if (line.rfind("state ", 0) == 0)
			out.state = AggState(kernel_u64(std::string_view(line).substr(6), line));
		else
			fn(line);
	}
}

// Count @p's samples, and keep them under @key unless @wanted is false.
void keep(Parsed &p, bool wanted, const Aggregator::Key &key, bool per_cpu, KernelStats &out)
{
	out.samples += p.count;
	if (!wanted) {
		out.filtered += p.count;
		return;
	}
	out.overflow += p.overflow;
	out.totals[key].merge(p.hist);
	if (per_cpu)
		out.per_cpu[std::tuple_cat(key, std::make_tuple(p.cpu))] = std::move(p.hist);
}

// "untracked CPU EVENT N": samples kprof.ko could not aggregate
uint64_t parse_untracked(const std::string &line)
{
	std::istringstream in(line);
	std::string word, event;
	int cpu = -1;
	uint64_t n = 0;
	if (!(in >> word >> cpu >> event >> n) || cpu < 0)
		throw malformed(line);
	return n;
}

}  // namespace

const char *agg_state_name(int state)
{
	switch (AggState(state)) {
	case AggState::Off:
		return "off";
	case AggState::On:
		return "on";
	case AggState::Frozen:
		return "frozen";
	}
	return "unknown";
}

void load_kernel_hist(const std::string &text, const std::string &device, const std::set<EventKind> &kinds,
		      bool per_cpu, KernelStats &out)
{
	for_each_line(text, device + "/hist", out, [&](const std::string &line) {
		if (line.rfind("untracked ", 0) == 0) {
			out.untracked += parse_untracked(line);
			return;
		}
		Parsed p;
		std::istringstream in(line);
		if (!(in >> p.label >> p.cpu))
			throw malformed(line);
		parse_buckets(in, line, p, out.state == AggState::On);
		const EventKind kind = kind_of_label(p.label);
		const bool wanted = kinds.empty() || kinds.count(kind);
		keep(p, wanted, {p.label, device, -1}, per_cpu, out);
	});
}

void load_girq_hist(const std::string &text, const std::vector<std::string> &irqs, bool per_cpu, KernelStats &out)
{
	for_each_line(text, kGirqHistFile, out, [&](const std::string &line) {
		if (line.rfind("untracked ", 0) == 0) {
			out.untracked += parse_untracked(line);
			return;
		}
		Parsed p;
		std::istringstream in(line);
		if (!(in >> p.label >> p.cpu >> p.irq >> p.name) || p.irq < 0)
			throw malformed(line);
		const auto kind = kind_of_event(p.label);
		if (!kind || source_of(*kind) != Source::Tracker)
			throw std::runtime_error("kprof.ko's IRQ histogram of an unknown event '" + p.label + "'");
		p.name = unescape_octal(p.name);
		parse_buckets(in, line, p, out.state == AggState::On);
		keep(p, irq_wanted(irqs, p.irq, p.name), {stat_label(*kind, 0, nullptr), p.name, p.irq}, per_cpu, out);
	});
}

namespace {

// "untracked CPU NAME N" or "backwards CPU NAME N": @name's count.
std::pair<std::string, uint64_t> parse_func_count(const std::string &line)
{
	std::istringstream in(line);
	std::string word, name;
	int cpu = -1;
	uint64_t n = 0;
	if (!(in >> word >> cpu >> name >> n) || cpu < 0)
		throw malformed(line);
	return {name, n};
}

// A func line's NESTED DEPTH: numbers, or "- -" where the kernel hides a
// task's pending returns; nothing after them. Throws on anything else.
void parse_nesting(std::istringstream &in, FuncCounts &f, const std::string &line)
{
	std::string nested, depth, rest;
	if (!(in >> nested >> depth) || (in >> rest))
		throw malformed(line);
	if (nested == "-" && depth == "-")
		return;
	f.nested = kernel_u64(nested, line);
	f.depth = kernel_u64(depth, line);
}

FuncCounts &func_of(std::vector<FuncCounts> &funcs, const std::string &name, const std::string &line)
{
	for (auto &f : funcs)
		if (f.name == name)
			return f;
	throw std::runtime_error("kprof/func: '" + line.substr(0, 80) + "' before its function's line");
}

}  // namespace

void load_func_hist(const std::string &text, bool per_cpu, KernelStats &out, std::vector<FuncCounts> &funcs)
{
	for_each_line(text, kFuncFile, out, [&](const std::string &line) {
		std::istringstream in(line);
		std::string word;
		in >> word;
		if (word == "func") {
			FuncCounts f;
			if (!(in >> f.name >> f.calls >> f.missed >> f.recursion >> f.nmi))
				throw malformed(line);
			parse_nesting(in, f, line);
			funcs.push_back(f);
		} else if (word == "untracked" || word == "backwards") {
			const auto [name, n] = parse_func_count(line);
			(word == "untracked" ? func_of(funcs, name, line).untracked : func_of(funcs, name, line).backwards) += n;
			if (word == "untracked")
				out.untracked += n;
		} else if (word == "hist") {
			Parsed p;
			if (!(in >> p.name >> p.cpu))
				throw malformed(line);
			p.label = kFuncLabel;
			parse_buckets(in, line, p, out.state == AggState::On);
			FuncCounts &f = func_of(funcs, p.name, line);
			f.timed += p.count;
			f.sum_ns += double(p.sum);
			keep(p, true, {kFuncLabel, p.name, -1}, per_cpu, out);
		} else {
			throw malformed(line);
		}
	});
}

std::string unescape_octal(const std::string &s)
{
	std::string out;
	for (size_t i = 0; i < s.size(); i++) {
		const auto octal = [&](size_t j) { return j < s.size() && s[j] >= '0' && s[j] <= '7'; };
		if (s[i] == '\\' && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
			out += char(std::stoi(s.substr(i + 1, 3), nullptr, 8));
			i += 3;
		} else {
			out += s[i];
		}
	}
	return out;
}

}  // namespace kprof
