// SPDX-License-Identifier: GPL-2.0
// Threshold analysis for kprofctl irq -T, after rtla timerlat --aa: when an
// IRQ thread starts later than the threshold after its hard IRQ, say what
// happened in between on the CPU that took the IRQ, the CPU the thread was
// woken onto, and the CPU where it ran. Pure: it takes decoded events and returns findings.
#pragma once

#include "core/context.hpp"
#include "core/decoder.hpp"
#include "core/ring.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// An entry_to_running sample over the threshold.
struct Hit {
	int irq = 0;
	std::string name;	// the IRQ action's
	int hard_cpu = 0;	// took the hard IRQ
	int cpu = 0;		// ran the thread
	uint64_t entry = 0;	// hard-IRQ entry (the sample's time minus its delta)
	uint64_t run = 0;	// the switch that ran the thread
	uint64_t latency = 0;	// ns
};

// Something that took a CPU's time inside a hit's window.
struct Span {
	std::string what;	// "irq 4 ttyS0", "softirq TIMER", a task's comm
	int cpu = 0;
	uint64_t start = 0;	// ts; clipped to the window for tasks
	uint64_t ns = 0;
	int pid = -1;		// tasks
	int prio = 0;		// tasks: the kernel's prio (0-99 RT, 100-139 normal)
	uint64_t whole = 0;	// tasks: the whole stretch on the CPU, switch to switch (0: not seen)
};

struct Analysis {
	Hit hit;
	int thread_pid = -1;
	std::string thread_comm;
	std::optional<uint64_t> woken;	// sched_waking of the thread in the window
	int queued_cpu = -1;		// the CPU it was woken onto (waking's target_cpu)
	std::vector<Span> irqs, softirqs, tasks;	// on hit.hard_cpu and hit.cpu
	std::optional<Span> culprit;	// the largest one on queued_cpu while the thread waited
	bool complete = true;		// the context covers the whole window
	bool over_budget = false;	// ... not, as the budget dropped some of it
	std::vector<std::string> trace;	// the window's events as format_context() lines, for -t FILE
};

class Analyzer {
public:
	// @horizon: how much context each CPU keeps, in ns.
	explicit Analyzer(uint64_t threshold_ns, uint64_t horizon_ns = 2000000000ULL)
		: threshold_(threshold_ns), horizon_(horizon_ns) {}

	// Bounds the context's memory to @bytes, an equal share for each of
	// @ncpus CPUs (as context_bytes counts it): past its share a CPU
	// drops its oldest events before the horizon, counted in trimmed(),
	// and a hit whose window they held is incomplete. 0: no bound.
	void budget(uint64_t bytes, int ncpus) { share_ = ncpus > 0 ? bytes / uint64_t(ncpus) : bytes; }
	uint64_t trimmed() const { return trimmed_; }
	// One kept event's cost (its names are pooled by the decoder).
	static constexpr uint64_t context_bytes = sizeof(CtxEvent);

	// Events of one CPU arrive in time order. The analyzer keeps them, and
	// so their names' views: the names must outlive it.
	void context(const CtxEvent &e);
	// Hits count from here (a time in the context's clock): kprofctl's own
	// setup (enabling events patches kernel text) is not the system's.
	void arm(uint64_t from) { armed_ = from; }
	// Only samples of these IRQs (numbers or action names, as --irq) hit.
	void only_irqs(std::vector<std::string> irqs) { irqs_ = std::move(irqs); }
	// True if @s (a kprof_girq_thread sample of action @name) is a hit.
	bool sample(const Sample &s, const std::string &name);
	// The analyses of the hits every involved CPU's context has passed
	// (@all: of every hit left, at the end of the collection).
	std::vector<Analysis> take(bool all);
	uint64_t hits() const { return hits_; }
	uint64_t threshold() const { return threshold_; }

private:
	Analysis analyze(const Hit &h) const;
	const Ring<CtxEvent> &events(int cpu) const;
	void find_thread(const Hit &h, Analysis &a) const;
	void find_wakeup(const Hit &h, Analysis &a) const;
	void spans_on(int cpu, const Hit &h, Analysis &a) const;
	void tasks_on(int cpu, const Hit &h, Analysis &a) const;
	void find_culprit(Analysis &a) const;

	uint64_t threshold_, horizon_;
	std::vector<std::string> irqs_;
	uint64_t armed_ = 0;
	uint64_t hits_ = 0;
	struct CpuContext {
		Ring<CtxEvent> q;	// in time order
		uint64_t bytes = 0;	// context_bytes of q's events
		std::optional<uint64_t> trimmed_ts;	// the newest event the budget dropped
	};
	std::map<int, CpuContext> cpus_;
	uint64_t share_ = 0;		// budget(): per CPU, 0 unbounded
	uint64_t trimmed_ = 0;
	std::vector<Hit> pending_;
};

// The analysis as rtla-like text, and as JSON.
std::string render_analysis(const Analysis &a, uint64_t threshold_ns);
nlohmann::json analysis_json(const Analysis &a);

}  // namespace kprof
