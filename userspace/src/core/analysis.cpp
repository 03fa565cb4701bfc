// SPDX-License-Identifier: GPL-2.0
#include "core/analysis.hpp"

#include "core/aggregate.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kprof {

namespace {

// Context kept before a hit's entry: the task running then is the next of
// the last switch before it.
constexpr uint64_t kLead = 1000000000ULL;

bool is_thread_of(std::string_view comm, int irq)
{
	return comm.starts_with("irq/" + std::to_string(irq) + "-");
}

std::string us(uint64_t ns)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "%.1f us", double(ns) / 1000.0);
	return buf;
}

}  // namespace

void Analyzer::context(const CtxEvent &e)
{
	auto &c = cpus_[e.cpu];
	auto &q = c.q;
	auto &bytes = c.bytes;
	q.push_back(e);
	bytes += context_bytes;
	// Keep the horizon, and whatever a pending hit still needs...
	uint64_t keep = e.ts > horizon_ ? e.ts - horizon_ : 0;
	for (const auto &h : pending_)
		keep = std::min(keep, h.entry > kLead ? h.entry - kLead : 0);
	for (; !q.empty() && q.front().ts < keep; q.pop_front())
		bytes -= context_bytes;
	// ... within the CPU's share of the budget.
	for (; share_ && bytes > share_ && q.size() > 1; q.pop_front(), trimmed_++) {
		bytes -= context_bytes;
		c.trimmed_ts = q.front().ts;
	}
}

bool Analyzer::sample(const Sample &s, const std::string &name)
{
	if (s.kind != EventKind::GirqThread || s.value_ns <= threshold_ || s.ts < armed_ + s.value_ns ||
	    !irq_wanted(irqs_, s.irq, name))
		return false;
	hits_++;
	pending_.push_back({s.irq, name, s.hard_cpu, s.cpu, s.ts > s.value_ns ? s.ts - s.value_ns : 0, s.ts, s.value_ns});
	return true;
}

std::vector<Analysis> Analyzer::take(bool all)
{
	std::vector<Analysis> out;
	auto passed = [&](int cpu, uint64_t t) {
		const auto it = cpus_.find(cpu);
		return it != cpus_.end() && !it->second.q.empty() && it->second.q.back().ts >= t;
	};
	std::vector<Hit> left;
	for (const auto &h : pending_) {
		if (all || (passed(h.hard_cpu, h.run) && passed(h.cpu, h.run)))
			out.push_back(analyze(h));
		else
			left.push_back(h);
	}
	pending_ = std::move(left);
	return out;
}

// Hard IRQs and softirqs on @cpu that overlap the window.
void Analyzer::spans_on(int cpu, const Hit &h, Analysis &a) const
{
	const auto it = cpus_.find(cpu);
	if (it == cpus_.end())
		return;
	const CtxEvent *irq = nullptr, *soft = nullptr;
	for (const auto &e : it->second.q) {
		if (e.ts > h.run)
			break;
		if (e.kind == CtxEvent::IrqEntry) {
			irq = &e;
		} else if (e.kind == CtxEvent::IrqExit && irq && irq->a == e.a) {
			if (e.ts > h.entry)
				a.irqs.push_back({"irq " + std::to_string(irq->a) + " " + std::string(irq->name_a), cpu, irq->ts, e.ts - irq->ts});
			irq = nullptr;
		} else if (e.kind == CtxEvent::SoftEntry) {
			soft = &e;
		} else if (e.kind == CtxEvent::SoftExit && soft && soft->a == e.a) {
			if (e.ts > h.entry)
				a.softirqs.push_back({"softirq " + softirq_name(soft->a), cpu, soft->ts, e.ts - soft->ts});
			soft = nullptr;
		}
	}
}

// The tasks that had @cpu between the hit's entry and the thread's run.
void Analyzer::tasks_on(int cpu, const Hit &h, Analysis &a) const
{
	const auto it = cpus_.find(cpu);
	if (it == cpus_.end()) {
		a.complete = false;
		return;
	}
	const CpuContext &c = it->second;
	if (c.q.empty() || c.q.front().ts > h.entry) {
		a.complete = false;
		// The budget dropped events a pending hit keeps (from kLead before its entry).
		a.over_budget |= c.trimmed_ts && *c.trimmed_ts + kLead >= h.entry;
	}
	struct Cur {
		std::string_view comm;
		int pid = -1, prio = 0;
		uint64_t since = 0;
		bool seen = false;	// since is its switch-in
	} cur;
	auto close = [&](uint64_t until, bool known) {
		const uint64_t from = std::max(cur.since, h.entry), to = std::min(until, h.run);
		if (cur.pid >= 0 && to > from)
			a.tasks.push_back({std::string(cur.comm), cpu, from, to - from, cur.pid, cur.prio,
					   cur.seen && known ? until - cur.since : 0});
	};
	// The thread's own switch may carry a time stamp a little after the
	// kprof event's.
	for (const auto &e : c.q) {
		if (e.kind != CtxEvent::Switch)
			continue;
		if (e.ts > h.run + 100000)
			break;
		if (cur.pid < 0 && e.ts > h.entry)	// no switch before the window: prev ran since its start
			cur = {e.name_a, e.a, e.prio_a, h.entry, false};
		close(e.ts, true);
		cur = {e.name_b, e.b, e.prio_b, e.ts, true};
	}
	if (cur.pid >= 0 && !is_thread_of(cur.comm, h.irq))
		close(h.run, false);
}

const Ring<CtxEvent> &Analyzer::events(int cpu) const
{
	static const Ring<CtxEvent> none;
	const auto it = cpus_.find(cpu);
	return it == cpus_.end() ? none : it->second.q;
}

// The thread: the task an irq/N- switch puts on the CPU at the run.
void Analyzer::find_thread(const Hit &h, Analysis &a) const
{
	for (const auto &e : events(h.cpu))
		if (e.kind == CtxEvent::Switch && is_thread_of(e.name_b, h.irq) && e.ts + 1000000 >= h.run &&
		    e.ts <= h.run + 100000) {
			a.thread_pid = e.b;
			a.thread_comm = e.name_b;
		}
}

// Its wakeup, on the CPU that took the IRQ (the handler's exit path wakes
// it), and the CPU it was queued on.
void Analyzer::find_wakeup(const Hit &h, Analysis &a) const
{
	for (int c : {h.hard_cpu, h.cpu})
		for (const auto &e : events(c))
			if (e.kind == CtxEvent::Waking && e.ts >= h.entry && e.ts <= h.run &&
			    (e.a == a.thread_pid || (a.thread_pid < 0 && is_thread_of(e.name_a, h.irq))) &&
			    (!a.woken || e.ts < *a.woken)) {
				a.woken = e.ts;
				a.queued_cpu = e.b;
			}
}

// The largest thing on the CPU the thread waited for, while it waited
// (from its wakeup, or the hard IRQ if the wakeup is not seen).
void Analyzer::find_culprit(Analysis &a) const
{
	const int cpu = a.queued_cpu >= 0 ? a.queued_cpu : a.hit.cpu;
	const uint64_t from = a.woken.value_or(a.hit.entry);
	for (const auto *v : {&a.tasks, &a.irqs, &a.softirqs})
		for (const auto &s : *v) {
			if (s.cpu != cpu || s.pid == 0 || s.start + s.ns <= from)
				continue;
			if (!a.culprit || s.ns > a.culprit->ns)
				a.culprit = s;
		}
}

Analysis Analyzer::analyze(const Hit &h) const
{
	Analysis a;
	a.hit = h;
	find_thread(h, a);
	find_wakeup(h, a);
	std::vector<int> cpus;
	for (int c : {h.hard_cpu, a.queued_cpu, h.cpu})
		if (c >= 0 && std::find(cpus.begin(), cpus.end(), c) == cpus.end())
			cpus.push_back(c);
	for (int c : cpus) {
		spans_on(c, h, a);
		tasks_on(c, h, a);
	}
	find_culprit(a);
	// The raw events of the window, a little before it, for -t FILE.
	std::vector<CtxEvent> trace;
	for (int c : cpus)
		for (const auto &e : events(c))
			if (e.ts + 1000000 >= h.entry && e.ts <= h.run + 100000)
				trace.push_back(e);
	std::stable_sort(trace.begin(), trace.end(), [](const CtxEvent &x, const CtxEvent &y) { return x.ts < y.ts; });
	for (const auto &e : trace)
		a.trace.push_back(format_context(e));
	return a;
}

std::string render_analysis(const Analysis &a, uint64_t threshold_ns)
{
	const Hit &h = a.hit;
	std::ostringstream o;
	o << "## IRQ " << h.irq << " (" << h.name << "): hard IRQ to thread running took " << us(h.latency)
	  << " (threshold " << us(threshold_ns) << ")\n";
	o << "  hard IRQ on CPU " << h.hard_cpu << ", thread "
	  << (a.thread_comm.empty() ? std::string("?") : a.thread_comm + " (pid " + std::to_string(a.thread_pid) + ")")
	  << " ran on CPU " << h.cpu << " at +" << us(h.latency) << "\n";
	if (a.woken)
		o << "  the thread was woken at +" << us(*a.woken - h.entry) << " onto CPU " << a.queued_cpu
		  << ", then runnable and waiting for " << us(h.run - *a.woken) << "\n";
	else
		o << "  its wakeup is not in the trace\n";
	auto list = [&](const char *title, const std::vector<Span> &v) {
		if (v.empty())
			return;
		o << "  " << title << ":\n";
		for (const auto &s : v) {
			o << "    cpu " << s.cpu << "  +" << us(s.start > h.entry ? s.start - h.entry : 0) << "  " << s.what;
			if (s.pid >= 0)
				o << " (pid " << s.pid << ", prio " << s.prio << ")";
			o << "  " << us(s.ns);
			if (s.whole > s.ns)
				o << " (on the CPU " << us(s.whole) << " in all)";
			o << "\n";
		}
	};
	list("hard IRQs", a.irqs);
	list("softirqs", a.softirqs);
	list("tasks that ran instead (from the hard IRQ until the thread ran)", a.tasks);
	if (a.culprit)
		o << "  culprit: " << a.culprit->what
		  << (a.culprit->pid >= 0 ? " (pid " + std::to_string(a.culprit->pid) + ", prio " + std::to_string(a.culprit->prio) + ")" : "")
		  << " held CPU " << a.culprit->cpu << " for " << us(a.culprit->ns) << " of the window"
		  << (a.culprit->whole ? ", " + us(a.culprit->whole) + " in all," : "") << " while the thread "
		  << (a.woken ? "was runnable" : "waited") << "\n";
	if (!a.complete)
		o << "  (the context does not reach back to the hard IRQ: raise "
		  << (a.over_budget ? "--context-budget" : "-b/--buffer-size") << ")\n";
	return o.str();
}

nlohmann::json analysis_json(const Analysis &a)
{
	using nlohmann::json;
	auto spans = [](const std::vector<Span> &v) {
		json out = json::array();
		for (const auto &s : v) {
			json j = {{"what", s.what}, {"cpu", s.cpu}, {"start_ns", s.start}, {"duration_ns", s.ns}};
			if (s.pid >= 0) {
				j["pid"] = s.pid;
				j["prio"] = s.prio;
				j["on_cpu_ns"] = s.whole ? json(s.whole) : json(nullptr);
			}
			out.push_back(j);
		}
		return out;
	};
	json j = {
		{"irq", a.hit.irq},
		{"name", a.hit.name},
		{"hard_cpu", a.hit.hard_cpu},
		{"cpu", a.hit.cpu},
		{"latency_ns", a.hit.latency},
		{"thread_pid", a.thread_pid},
		{"thread_comm", a.thread_comm},
		{"woken_after_ns", a.woken ? json(*a.woken - a.hit.entry) : json(nullptr)},
		{"woken_onto_cpu", a.queued_cpu >= 0 ? json(a.queued_cpu) : json(nullptr)},
		{"irqs", spans(a.irqs)},
		{"softirqs", spans(a.softirqs)},
		{"tasks", spans(a.tasks)},
		{"complete", a.complete},
		{"over_budget", a.over_budget},
	};
	j["culprit"] = a.culprit ? spans({*a.culprit})[0] : json(nullptr);
	return j;
}

}  // namespace kprof
