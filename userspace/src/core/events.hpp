// SPDX-License-Identifier: GPL-2.0
// The kprof events, once: every other part of kprofctl (decoder, labels,
// -e names, the cross-check) reads this table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

enum class EventKind : uint8_t { IrqThreadLatency, IrqHandler, Batch, Span, GirqHandler, GirqWake, GirqThread };
inline constexpr int kNumKinds = 7;

// Who emits an event: a registered kprof device (kprofctl latency), or the
// generic IRQ tracker for any IRQ (kprofctl irq).
enum class Source : uint8_t { Device, Tracker };

struct EventSpec {
	EventKind kind;
	Source source;
	const char *event;	// the tracepoint, as in events/kprof/<event>
	const char *label;	// report label (and, for devices, the -e short name)
	const char *name;	// the __string field: device, or the IRQ action's name
	const char *value;	// the latency field (ns)
	const char *aux;	// the extra field, or nullptr
	const char *cpu;	// the hard-IRQ CPU field, or nullptr
	const char *irq;	// the IRQ number field (tracker events), or nullptr
	// A 0/1 field the decoder reads if the format has it (an older
	// kprof.ko's may not), or nullptr: kprof_girq_thread's busy.
	const char *flag = nullptr;
};

inline constexpr EventSpec kEvents[kNumKinds] = {
	{EventKind::IrqThreadLatency, Source::Device, "kprof_irq_thread_latency", "irq_thread_latency", "dev",
	 "delta_ns", "coalesced", "hard_cpu", nullptr},
	{EventKind::IrqHandler, Source::Device, "kprof_irq_handler", "irq_handler", "dev", "duration_ns", nullptr,
	 nullptr, nullptr},
	{EventKind::Batch, Source::Device, "kprof_batch", "batch", "dev", "duration_ns", "packets", nullptr, nullptr},
	{EventKind::Span, Source::Device, "kprof_span", "span", "dev", "delta_ns", "id", nullptr, nullptr},
	{EventKind::GirqHandler, Source::Tracker, "kprof_girq_handler", "handler", "name", "duration_ns", "ret",
	 nullptr, "irq"},
	{EventKind::GirqWake, Source::Tracker, "kprof_girq_wake", "entry_to_woken", "name", "delta_ns", "coalesced",
	 "hard_cpu", "irq"},
	{EventKind::GirqThread, Source::Tracker, "kprof_girq_thread", "entry_to_running", "name", "delta_ns",
	 "coalesced", "hard_cpu", "irq", "busy"},
};

// A hard handler's return value asking for its thread (IRQ_WAKE_THREAD).
inline constexpr uint32_t kIrqWakeThread = 2;

// Every event also carries this: the device's count of emitted events of
// its kind (include/trace/events/kprof.h).
inline constexpr const char *kSeqField = "seq";

inline const EventSpec &spec(EventKind k)
{
	return kEvents[int(k)];
}

// The spec of tracepoint @event ("kprof_batch"), if it is a kprof event.
inline std::optional<EventKind> kind_of_event(std::string_view event)
{
	for (const auto &s : kEvents)
		if (event == s.event)
			return s.kind;
	return std::nullopt;
}

inline Source source_of(EventKind k)
{
	return spec(k).source;
}

// The tracepoint names of one source's events.
inline std::vector<std::string> source_events(Source src)
{
	std::vector<std::string> out;
	for (const auto &s : kEvents)
		if (s.source == src)
			out.push_back(s.event);
	return out;
}

// "irq_thread_latency, irq_handler, batch, span": the -e short names.
inline std::string event_labels()
{
	std::string out;
	for (const auto &s : kEvents)
		if (s.source == Source::Device)
			out += (out.empty() ? "" : ", ") + std::string(s.label);
	return out;
}

}  // namespace kprof
