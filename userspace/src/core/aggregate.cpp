// SPDX-License-Identifier: GPL-2.0
#include "core/aggregate.hpp"

#include <algorithm>

namespace kprof {

namespace {

// @dev's emitted count of @ev in @e, if the reading has it.
std::optional<uint64_t> find_emitted(const Aggregator::Emitted &e, const std::string &dev, const std::string &ev)
{
	const auto d = e.find(dev);
	if (d == e.end())
		return std::nullopt;
	const auto it = d->second.find(ev);
	if (it == d->second.end())
		return std::nullopt;
	return it->second;
}

}  // namespace

std::string stat_label(EventKind k, uint32_t span_id, const std::vector<std::string> *span_names)
{
	const std::string label = spec(k).label;
	if (k != EventKind::Span)
		return label;	// span_id is the IRQ for tracker events: a row of its own
	if (span_names && span_id < span_names->size())
		return label + ":" + (*span_names)[span_id];
	return label + ":" + std::to_string(span_id);
}

std::string source_name(const std::string &device, int irq)
{
	return irq < 0 ? device : std::to_string(irq) + " " + device;
}

bool irq_wanted(const std::vector<std::string> &irqs, int irq, const std::string &name)
{
	return irqs.empty() || std::any_of(irqs.begin(), irqs.end(), [&](const std::string &w) {
		       return w == name || w == std::to_string(irq);
	       });
}

IrqSelection check_irq_selection(const std::vector<std::string> &irqs,
				 const std::map<int, std::vector<std::string>> &actions)
{
	IrqSelection sel;
	for (const auto &w : irqs) {
		const bool number = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
		const bool known = std::any_of(actions.begin(), actions.end(), [&](const auto &a) {
			return number ? std::to_string(a.first) == w && !a.second.empty()
				      : std::find(a.second.begin(), a.second.end(), w) != a.second.end();
		});
		if (!known)
			(number ? sel.idle_numbers : sel.unknown_names).push_back(w);
	}
	return sel;
}

Aggregator::Slot &Aggregator::slot(const Sample &s, const std::string &device,
				    const std::map<std::string, std::vector<std::string>> &span_names)
{
	// Span ids only matter for spans, IRQ numbers for the tracker; the
	// others share one slot per device. Tracker seqs count per CPU.
	const bool tracker = source_of(s.kind) == Source::Tracker;
	const uint32_t sub = s.kind == EventKind::Span ? s.aux : tracker ? uint32_t(s.irq) : 0;
	const SlotKey key{uint64_t(s.dev) << 32 | uint64_t(s.kind), uint64_t(sub) << 32 | uint32_t(tracker ? s.cpu : 0)};
	// A direct-mapped cache in front of the map: most samples hit it.
	CacheEntry &c = cache_[(uint64_t(key.hash()) * 0x9E3779B97F4A7C15ULL) >> (64 - kCacheBits)];
	if (c.slot && c.key == key)
		return *c.slot;
	auto it = slots_.find(key);
	if (it != slots_.end()) {
		c = {key, &it->second};	// an unordered_map's elements never move
		return it->second;
	}
	const auto names = span_names.find(device);
	std::string label = stat_label(s.kind, sub, names == span_names.end() ? nullptr : &names->second);
	const int irq = tracker ? s.irq : -1;
	const bool wanted = (!opts_.device || *opts_.device == device) && (!tracker || irq_wanted(opts_.irqs, irq, device));
	Histogram *total = nullptr;
	if (wanted && (opts_.kinds.empty() || opts_.kinds.count(s.kind)))
		total = &totals_[{label, device, irq}];	// std::map: the address stays valid
	IrqTally *tally = tracker && wanted ? &irqs_[{irq, device}] : nullptr;
	const std::string ev = event_name(s.kind);
	const std::string scope = tracker ? "cpu" + std::to_string(s.cpu) : device;
	auto [seq, fresh] = seqs_.try_emplace({ev, scope});
	if (fresh) {
		seq->second.lo = find_emitted(e0_, scope, ev).value_or(0);
		// First seen after the window closed: its upper bound is the
		// closing reading too, or events after it would count as in it.
		if (e1_)
			seq->second.hi = find_emitted(*e1_, scope, ev).value_or(UINT64_MAX);
	}
	Slot sl{&seq->second, total, tally, std::move(label), device, irq, {}};
	return slots_.emplace(key, std::move(sl)).first->second;
}

void Aggregator::window_close(const Emitted &e1)
{
	e1_ = e1;
	for (auto &[key, t] : seqs_)
		if (const auto hi = find_emitted(e1, key.second, key.first))
			t.hi = *hi;
}

static void track(SeqTrack &t, uint64_t seq)
{
	t.count++;
	t.first = std::min(t.first, seq);
	t.last = std::max(t.last, seq);
	if (seq > t.lo && seq <= t.hi)
		t.in_window++;
}

static void tally(IrqTally &t, const Sample &s)
{
	switch (s.kind) {
	case EventKind::GirqHandler:
		t.handlers++;
		t.requests += s.aux == kIrqWakeThread;
		break;
	case EventKind::GirqWake:
		t.woken++;
		break;
	case EventKind::GirqThread:
		t.runs++;
		t.coalesced += s.aux;
		t.busy += s.flag;
		break;
	default:
		break;
	}
}

void Aggregator::add(const Sample &s, const std::string &device,
		     const std::map<std::string, std::vector<std::string>> &span_names)
{
	Slot &sl = slot(s, device, span_names);
	track(*sl.seq, s.seq);
	if (sl.tally)
		tally(*sl.tally, s);
	if (!sl.total) {
		filtered_++;
		return;
	}
	if (opts_.per_cpu && s.cpu >= 0) {
		if (sl.cpus.size() <= size_t(s.cpu))
			sl.cpus.resize(s.cpu + 1, nullptr);
		if (!sl.cpus[s.cpu])
			sl.cpus[s.cpu] = &per_cpu_[{sl.label, sl.device, sl.irq, s.cpu}];
		sl.cpus[s.cpu]->record(s.value_ns);
	}
	sl.total->record(s.value_ns);
}

std::vector<CrossCheck> cross_checks(const Aggregator &agg, const std::set<std::string> &events,
				     const std::optional<std::string> &device, const Aggregator::Emitted *e0,
				     const Aggregator::Emitted *e1)
{
	std::vector<CrossCheck> out;
	auto wanted = [&](const std::string &dev, const std::string &ev) {
		return events.count(ev) && (!device || *device == dev);
	};
	if (!e0 || !e1) {
		for (const auto &[key, t] : agg.seqs())
			if (wanted(key.second, key.first))
				out.push_back({key.second, key.first, t.count, t.last - t.first + 1, t.gaps()});
		return out;
	}
	for (const auto &[dev, evs] : *e1) {
		for (const auto &[ev, hi] : evs) {
			if (!wanted(dev, ev))
				continue;
			const uint64_t lo = find_emitted(*e0, dev, ev).value_or(0);
			const auto t = agg.seqs().find({ev, dev});
			const bool seen = t != agg.seqs().end();
			CrossCheck c{dev, ev, seen ? t->second.in_window : 0, hi >= lo ? hi - lo : hi,
				     seen ? t->second.gaps() : 0};
			if (c.read || c.emitted)
				out.push_back(c);
		}
	}
	return out;
}

}  // namespace kprof
