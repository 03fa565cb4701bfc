// SPDX-License-Identifier: GPL-2.0
// The kernel's own irq and sched events, decoded for the threshold
// analysis: what ran on a CPU between a hard IRQ and its thread. Pure: it
// takes records and a tep handle holding their formats.
#pragma once

#include "core/decoder.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace kprof {

// The events the analysis reads, as tracefs names them ("system/event").
inline const std::vector<std::string> &context_events()
{
	static const std::vector<std::string> ev = {
		"irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry",
		"irq/softirq_exit",      "sched/sched_switch",   "sched/sched_waking",
	};
	return ev;
}

// One event of the context: 64 bytes, copied without allocating. Its
// names are views of a NamePool's (or of literals), which must outlive it.
struct CtxEvent {
	enum Kind : uint8_t { IrqEntry, IrqExit, SoftEntry, SoftExit, Switch, Waking } kind = IrqEntry;
	int cpu = 0;
	uint64_t ts = 0;
	int a = 0;		// irq, softirq vector, prev_pid, or the woken pid
	int b = 0;		// next_pid (switch), target_cpu (waking)
	int prio_a = 0, prio_b = 0;	// prev_prio, next_prio (switch), prio (waking)
	std::string_view name_a;	// irq name, prev_comm, or the woken comm
	std::string_view name_b;	// next_comm
};

// The names the context events carry (comms, IRQ action names), each kept
// once for as long as the pool lives: a few hundred distinct ones in
// millions of events.
class NamePool {
public:
	// A view of @s's copy in the pool, valid as long as the pool.
	std::string_view intern(std::string_view s);
	size_t size() const { return names_.size(); }

private:
	struct Hash {
		using is_transparent = void;
		size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
	};
	// Node-based: a name's characters never move as the set grows.
	std::unordered_set<std::string, Hash, std::equal_to<>> names_;
};

// "HI", "TIMER", ... for a softirq vector.
std::string softirq_name(int vec);

class ContextDecoder {
public:
	// Looks up the formats of context_events() in @tep; throws
	// std::runtime_error naming any that is missing or lacks a field.
	explicit ContextDecoder(tep_handle *tep);
	// nullopt for a record of any other event, or one too short for its
	// format. The event's names live as long as this decoder.
	std::optional<CtxEvent> decode(const OtherRecord &r);

private:
	struct Field {
		int off = -1, size = 0;
		bool dyn = false;	// __data_loc string
	};
	struct Layout {
		CtxEvent::Kind kind;
		Field f[6];	// per kind: see the constructor
		int min_size = 0;
	};
	ByteOrder order_;
	std::vector<std::optional<Layout>> by_id_;
	NamePool names_;
};

// A record of a context event as one trace-like text line (for -t FILE).
std::string format_context(const CtxEvent &e);

}  // namespace kprof
