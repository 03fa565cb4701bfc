// SPDX-License-Identifier: GPL-2.0
#include "inkernel.hpp"

#include <sstream>
#include <stdexcept>

namespace kprof {

namespace {

// "span:packet" -> Span; "batch" -> Batch.
EventKind kind_of_label(const std::string &label)
{
	const std::string base = label.substr(0, label.find(':'));
	for (const auto &s : kEvents)
		if (s.source == Source::Device && base == s.label)
			return s.kind;
	throw std::runtime_error("kprof.ko's histogram of an unknown kind '" + label + "'");
}

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
	std::string label;
	int cpu = -1;
	uint64_t count = 0, sum = 0, min = 0, max = 0;
	Histogram hist;
	uint64_t overflow = 0;	// samples in the kernel's last bucket
};

Parsed parse_line(const std::string &line)
{
	Parsed p;
	std::istringstream in(line);
	if (!(in >> p.label >> p.cpu >> p.count >> p.sum >> p.min >> p.max) || p.cpu < 0 || !p.count)
		throw std::runtime_error("malformed kprof.ko histogram line: '" + line.substr(0, 80) + "'");
	uint64_t total = 0, overflow = 0;
	for (std::string pair; in >> pair;) {
		const auto colon = pair.find(':');
		if (colon == std::string::npos)
			throw std::runtime_error("malformed bucket '" + pair + "' in kprof.ko's histogram");
		const size_t index = std::stoull(pair.substr(0, colon));
		const uint64_t n = std::stoull(pair.substr(colon + 1));
		if (index >= KPROF_HIST_KERNEL_BUCKETS)
			throw std::runtime_error("bucket " + std::to_string(index) + " beyond kprof.ko's layout");
		total += n;
		if (index == KPROF_HIST_KERNEL_BUCKETS - 1)
			overflow += n;	// [2^36, max]: binned with the max
		else
			p.hist.add_bucket(index, n);
	}
	if (total != p.count)
		throw std::runtime_error(p.label + " on CPU " + std::to_string(p.cpu) + ": buckets hold " +
					 std::to_string(total) + " samples, the count is " + std::to_string(p.count) +
					 " (read while aggregation was on?)");
	if (overflow)
		p.hist.add_bucket(Histogram::index_of(p.max), overflow);
	p.overflow = overflow;
	p.hist.finish(p.count, p.sum, p.min, p.max);
	return p;
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
	std::istringstream in(text);
	std::string line;
	if (!std::getline(in, line))
		throw std::runtime_error("kprof/" + device + "/hist is empty");
	check_layout(line);
	while (std::getline(in, line)) {
		if (line.rfind("state ", 0) == 0) {
			out.state = AggState(std::stoi(line.substr(6)));
			continue;
		}
		Parsed p = parse_line(line);
		out.samples += p.count;
		if (const EventKind kind = kind_of_label(p.label); !kinds.empty() && !kinds.count(kind)) {
			out.filtered += p.count;
			continue;
		}
		out.overflow += p.overflow;
		out.totals[{p.label, device, -1}].merge(p.hist);
		if (per_cpu)
			out.per_cpu[{p.label, device, -1, p.cpu}] = std::move(p.hist);
	}
}

}  // namespace kprof
