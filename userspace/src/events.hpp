// SPDX-License-Identifier: GPL-2.0
// The kprof events, once: every other part of kprofctl (decoder, labels,
// -e names, the cross-check) reads this table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

enum class EventKind : uint8_t { IrqThreadLatency, IrqHandler, Batch, Span };
inline constexpr int kNumKinds = 4;

struct EventSpec {
	EventKind kind;
	const char *event;	// the tracepoint, as in events/kprof/<event>
	const char *label;	// report label and -e short name
	const char *value;	// the latency field (ns)
	const char *aux;	// the extra field, or nullptr
	const char *cpu;	// the hard-IRQ CPU field, or nullptr
};

inline constexpr EventSpec kEvents[kNumKinds] = {
	{EventKind::IrqThreadLatency, "kprof_irq_thread_latency", "irq_thread_latency", "delta_ns", "coalesced",
	 "hard_cpu"},
	{EventKind::IrqHandler, "kprof_irq_handler", "irq_handler", "duration_ns", nullptr, nullptr},
	{EventKind::Batch, "kprof_batch", "batch", "duration_ns", "packets", nullptr},
	{EventKind::Span, "kprof_span", "span", "delta_ns", "id", nullptr},
};

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

// "irq_thread_latency, irq_handler, batch, span": the -e short names.
inline std::string event_labels()
{
	std::string out;
	for (const auto &s : kEvents)
		out += (out.empty() ? "" : ", ") + std::string(s.label);
	return out;
}

}  // namespace kprof
