// SPDX-License-Identifier: GPL-2.0
#include "core/context.hpp"

#include <cstdio>
#include <stdexcept>

namespace kprof {

namespace {

struct Spec {
	const char *system, *event;
	CtxEvent::Kind kind;
	const char *fields[6];	// in the order decode() reads them
};

const Spec kSpecs[] = {
	{"irq", "irq_handler_entry", CtxEvent::IrqEntry, {"irq", "name"}},
	{"irq", "irq_handler_exit", CtxEvent::IrqExit, {"irq", "ret"}},
	{"irq", "softirq_entry", CtxEvent::SoftEntry, {"vec"}},
	{"irq", "softirq_exit", CtxEvent::SoftExit, {"vec"}},
	{"sched", "sched_switch", CtxEvent::Switch,
	 {"prev_comm", "prev_pid", "prev_prio", "next_comm", "next_pid", "next_prio"}},
	{"sched", "sched_waking", CtxEvent::Waking, {"comm", "pid", "prio", "target_cpu"}},
};

int as_int(ByteOrder order, const uint8_t *p, int size)
{
	const uint64_t v = order.load(p, size);
	return size == 8 ? int(int64_t(v)) : size == 2 ? int(int16_t(v)) : size == 1 ? int(int8_t(v)) : int(int32_t(v));
}

// Appends each of @parts (strings, views, literals) to @s.
template <class... P>
void append(std::string &s, const P &...parts)
{
	(s.append(std::string_view(parts)), ...);
}

}  // namespace

std::string softirq_name(int vec)
{
	static const char *const names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
	return vec >= 0 && vec < int(std::size(names)) ? names[vec] : "softirq" + std::to_string(vec);
}

ContextDecoder::ContextDecoder(tep_handle *tep) : order_(byte_order_of(tep))
{
	for (const auto &spec : kSpecs) {
		tep_event *ev = tep_find_event_by_name(tep, spec.system, spec.event);
		if (!ev)
			throw std::runtime_error(std::string("no format for ") + spec.system + ":" + spec.event);
		Layout l{spec.kind, {}, 0};
		for (int i = 0; i < 6 && spec.fields[i]; i++) {
			tep_format_field *f = tep_find_field(ev, spec.fields[i]);
			if (!f)
				throw std::runtime_error(std::string(spec.event) + " has no field '" + spec.fields[i] + "'");
			l.f[i] = {f->offset, f->size, (f->flags & TEP_FIELD_IS_DYNAMIC) != 0};
			l.min_size = std::max(l.min_size, f->offset + f->size);
		}
		if (ev->id < 0 || ev->id > 65535)
			throw std::runtime_error(std::string("implausible event id for ") + spec.event);
		if (by_id_.size() <= size_t(ev->id))
			by_id_.resize(ev->id + 1);
		by_id_[ev->id] = l;
	}
}

std::string_view NamePool::intern(std::string_view s)
{
	const auto it = names_.find(s);
	return it != names_.end() ? std::string_view(*it) : std::string_view(*names_.emplace(s).first);
}

std::optional<CtxEvent> ContextDecoder::decode(const OtherRecord &r)
{
	if (r.id < 0 || size_t(r.id) >= by_id_.size() || !by_id_[r.id] || r.size < by_id_[r.id]->min_size)
		return std::nullopt;
	const Layout &l = *by_id_[r.id];
	auto num = [&](int i) { return as_int(order_, r.data + l.f[i].off, l.f[i].size); };
	// A char array, or a __data_loc string (offset and length in a u32).
	auto str = [&](int i) -> std::string_view {
		const Field &f = l.f[i];
		const char *p = reinterpret_cast<const char *>(r.data + f.off);
		size_t n = size_t(f.size);
		if (f.dyn) {
			const auto loc = uint32_t(order_.load(r.data + f.off, 4));
			if ((loc & 0xffff) + (loc >> 16) > uint32_t(r.size))
				return "?";
			p = reinterpret_cast<const char *>(r.data + (loc & 0xffff));
			n = loc >> 16;
		}
		return names_.intern(std::string_view(p, strnlen(p, n)));
	};
	CtxEvent e;
	e.kind = l.kind;
	e.cpu = r.cpu;
	e.ts = r.ts;
	switch (l.kind) {
	case CtxEvent::IrqEntry:
		e.a = num(0);
		e.name_a = str(1);
		break;
	case CtxEvent::IrqExit:
		e.a = num(0);
		e.b = num(1);
		break;
	case CtxEvent::SoftEntry:
	case CtxEvent::SoftExit:
		e.a = num(0);
		break;
	case CtxEvent::Switch:
		e.name_a = str(0);
		e.a = num(1);
		e.prio_a = num(2);
		e.name_b = str(3);
		e.b = num(4);
		e.prio_b = num(5);
		break;
	case CtxEvent::Waking:
		e.name_a = str(0);
		e.a = num(1);
		e.prio_a = num(2);
		e.b = num(3);
		break;
	}
	return e;
}

std::string format_context(const CtxEvent &e)
{
	char head[64];
	std::snprintf(head, sizeof(head), "%llu.%09llu [%03d] ", (unsigned long long)(e.ts / 1000000000),
		      (unsigned long long)(e.ts % 1000000000), e.cpu);
	std::string s = head;
	auto num = [](int v) { return std::to_string(v); };
	switch (e.kind) {
	case CtxEvent::IrqEntry:
		append(s, "irq_handler_entry: irq=", num(e.a), " name=", e.name_a);
		break;
	case CtxEvent::IrqExit:
		append(s, "irq_handler_exit: irq=", num(e.a), " ret=", num(e.b));
		break;
	case CtxEvent::SoftEntry:
	case CtxEvent::SoftExit:
		append(s, e.kind == CtxEvent::SoftEntry ? "softirq_entry" : "softirq_exit", ": vec=", num(e.a), " [",
		       softirq_name(e.a), "]");
		break;
	case CtxEvent::Switch:
		append(s, "sched_switch: ", e.name_a, ":", num(e.a), " [", num(e.prio_a), "] ==> ", e.name_b, ":",
		       num(e.b), " [", num(e.prio_b), "]");
		break;
	case CtxEvent::Waking:
		append(s, "sched_waking: comm=", e.name_a, " pid=", num(e.a), " prio=", num(e.prio_a),
		       " target_cpu=", num(e.b));
		break;
	}
	return s;
}

}  // namespace kprof
