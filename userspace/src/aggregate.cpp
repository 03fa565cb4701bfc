// SPDX-License-Identifier: GPL-2.0
#include "aggregate.hpp"

namespace kprof {

std::string stat_label(EventKind k, uint32_t span_id, const std::vector<std::string> *span_names)
{
	switch (k) {
	case EventKind::IrqThreadLatency:
		return "irq_thread_latency";
	case EventKind::IrqHandler:
		return "irq_handler";
	case EventKind::Batch:
		return "batch";
	case EventKind::Span:
		if (span_names && span_id < span_names->size())
			return "span:" + (*span_names)[span_id];
		return "span:" + std::to_string(span_id);
	}
	return "unknown";
}

void Aggregator::add(const Sample &s, const std::string &device,
		     const std::map<std::string, std::vector<std::string>> &span_names)
{
	seen_[{event_name(s.kind), device}]++;
	if ((opts_.device && *opts_.device != device) ||
	    (!opts_.cpus.empty() && !opts_.cpus.count(s.cpu))) {
		filtered_++;
		return;
	}
	const auto names = span_names.find(device);
	std::string label = stat_label(s.kind, s.aux, names == span_names.end() ? nullptr : &names->second);
	if (opts_.per_cpu)
		per_cpu_[{label, device, s.cpu}].record(s.value_ns);
	totals_[{std::move(label), device}].record(s.value_ns);
}

}  // namespace kprof
