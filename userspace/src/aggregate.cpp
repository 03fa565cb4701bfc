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

Aggregator::Slot &Aggregator::slot(const Sample &s, const std::string &device,
				    const std::map<std::string, std::vector<std::string>> &span_names)
{
	// Span ids only matter for spans; the others share one slot per device.
	const uint32_t span = s.kind == EventKind::Span ? s.aux : 0;
	const uint64_t key = uint64_t(s.dev) << 40 | uint64_t(s.kind) << 32 | span;
	auto it = slots_.find(key);
	if (it != slots_.end())
		return it->second;
	const auto names = span_names.find(device);
	std::string label = stat_label(s.kind, span, names == span_names.end() ? nullptr : &names->second);
	Histogram *total = nullptr;
	if (!opts_.device || *opts_.device == device)
		total = &totals_[{label, device}];	// std::map: the address stays valid
	Slot sl{&seen_[{event_name(s.kind), device}], total, std::move(label), device, {}};
	return slots_.emplace(key, std::move(sl)).first->second;
}

void Aggregator::add(const Sample &s, const std::string &device,
		     const std::map<std::string, std::vector<std::string>> &span_names)
{
	Slot &sl = slot(s, device, span_names);
	++*sl.seen;
	if (!sl.total || (!opts_.cpus.empty() && !opts_.cpus.count(s.cpu))) {
		filtered_++;
		return;
	}
	if (opts_.per_cpu && s.cpu >= 0) {
		if (sl.cpus.size() <= size_t(s.cpu))
			sl.cpus.resize(s.cpu + 1, nullptr);
		if (!sl.cpus[s.cpu])
			sl.cpus[s.cpu] = &per_cpu_[{sl.label, sl.device, s.cpu}];
		sl.cpus[s.cpu]->record(s.value_ns);
	}
	sl.total->record(s.value_ns);
}

}  // namespace kprof
