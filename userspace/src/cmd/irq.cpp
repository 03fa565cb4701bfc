// SPDX-License-Identifier: GPL-2.0
// `kprofctl irq`: the generic IRQ tracker's events (any driver, no
// instrumentation), collected and reported like `latency`'s: per IRQ
// action and measured interval, with every loss accounted for and what
// became of each thread wake request.
#include "core/analysis.hpp"
#include "sys/collect.hpp"
#include "cmd/commands.hpp"
#include "core/counters.hpp"
#include "sys/sys.hpp"

#include <atomic>
#include <fstream>
#include <iostream>
#include <memory>

namespace kprof {

namespace {

// Analyses kept in full; further hits are counted.
constexpr size_t kMaxAnalyses = 20;

// -T: feeds the analyzer with the context events and the thread samples,
// and ends the collection at the first hit unless told to go on.
class ThresholdWatcher : public Watcher {
public:
	ThresholdWatcher(const IrqOptions &opts, int ncpus)
		: analyzer_(uint64_t(opts.threshold->count())), keep_going_(opts.keep_going)
	{
		analyzer_.only_irqs(opts.irqs);
		analyzer_.budget(uint64_t(opts.context_budget_kb) * 1024, ncpus);
	}
	void attach(tep_handle *tep) { ctx_ = std::make_unique<ContextDecoder>(tep); }

	void sample(const Sample &s, const std::string &name) override
	{
		if (analyzer_.sample(s, name) && !keep_going_)
			hit_ = true;
	}
	void other(const OtherRecord &r) override
	{
		if (const auto e = ctx_->decode(r))
			analyzer_.context(*e);
	}
	void pass_done() override { keep(analyzer_.take(false)); }
	void window_open(uint64_t mono_ns) override { analyzer_.arm(mono_ns); }
	bool stop() const override { return hit_.load(std::memory_order_relaxed); }

	std::vector<Analysis> finish()
	{
		keep(analyzer_.take(true));
		return std::move(analyses_);
	}
	const Analyzer &analyzer() const { return analyzer_; }

private:
	void keep(std::vector<Analysis> &&v)
	{
		for (auto &a : v)
			if (analyses_.size() < kMaxAnalyses)
				analyses_.push_back(std::move(a));
	}

	std::unique_ptr<ContextDecoder> ctx_;	// owns the names analyzer_'s events view
	Analyzer analyzer_;
	bool keep_going_;
	std::atomic<bool> hit_{false};	// set by the decoding thread
	std::vector<Analysis> analyses_;
};

void write_trace(const std::string &path, const std::vector<Analysis> &analyses, uint64_t threshold_ns)
{
	std::ofstream out(path);
	if (!out)
		throw std::runtime_error("cannot write " + path);
	for (const auto &a : analyses) {
		out << "# IRQ " << a.hit.irq << " (" << a.hit.name << "): " << a.hit.latency
		    << " ns from hard IRQ entry to thread running, threshold " << threshold_ns << " ns; entry at "
		    << a.hit.entry << ", CPUs " << a.hit.hard_cpu << " and " << a.hit.cpu << "\n";
		for (const auto &line : a.trace)
			out << line << "\n";
	}
	if (!out.flush())
		throw std::runtime_error("cannot write " + path);
}

nlohmann::json analyses_json(const ThresholdWatcher &w, const std::vector<Analysis> &analyses)
{
	nlohmann::json j = {{"threshold_ns", w.analyzer().threshold()},
			    {"hits", w.analyzer().hits()},
			    {"context_trimmed", w.analyzer().trimmed()},
			    {"analyses", nlohmann::json::array()}};
	for (const auto &a : analyses)
		j["analyses"].push_back(analysis_json(a));
	return j;
}

// Text after the report (on stderr with --csv, which keeps stdout CSV).
void print_analyses(const IrqOptions &opts, const ThresholdWatcher &w, const std::vector<Analysis> &analyses)
{
	const uint64_t thr = w.analyzer().threshold();
	std::ostream &o = opts.csv ? std::cerr : std::cout;
	o << "\nthreshold " << thr << " ns: " << w.analyzer().hits() << " hit(s)"
	  << (w.analyzer().hits() > analyses.size() ? ", the first " + std::to_string(analyses.size()) + " analysed" : "")
	  << "\n";
	if (w.analyzer().trimmed())
		o << "the context budget (--context-budget " << opts.context_budget_kb << " KiB) dropped "
		  << w.analyzer().trimmed() << " irq and sched events before their 2 s\n";
	for (const auto &a : analyses)
		o << "\n" << render_analysis(a, thr);
}

// --irq NAME that no IRQ action has is a typo: refused before collecting.
// A number without an action yet is allowed (its driver may request it
// while kprofctl runs), with a note.
void check_irqs(const IrqOptions &opts)
{
	const auto actions = opts.irqs.empty() ? std::nullopt : sys::irq_actions();
	if (!actions)
		return;
	const IrqSelection sel = check_irq_selection(opts.irqs, *actions);
	if (!sel.unknown_names.empty())
		throw UsageError("--irq: no IRQ has an action named '" + sel.unknown_names.front() +
				 "' (/proc/interrupts lists them; a number selects an IRQ by number)");
	for (const auto &n : sel.idle_numbers)
		std::cerr << "kprofctl: note: IRQ " << n << " has no action now; its rows appear if a driver requests it\n";
}

Plan make_plan(const IrqOptions &opts)
{
	check_irqs(opts);
	Plan plan = base_plan(Source::Tracker, opts);
	if (opts.threshold)
		plan.context = context_events();
	for (const auto &e : source_events(Source::Tracker)) {
		if (!sys::read_file(plan.tdir + "/events/kprof/" + e + "/format"))
			throw std::runtime_error("this kprof.ko has no IRQ tracker (no kprof:" + e + "); load kprof.ko " +
						 "of the same version as kprofctl");
		plan.events.insert(e);
		plan.kinds.insert(*kind_of_event(e));
	}
	return plan;
}

// The IRQs the tally saw, and what their wake requests became.
std::vector<IrqRow> irq_rows(const Aggregator &agg)
{
	std::vector<IrqRow> rows;
	for (const auto &[key, t] : agg.irqs())
		rows.push_back({key.first, key.second, t.handlers, t.requests, t.woken, t.runs, t.coalesced,
				t.busy, t.unserved()});
	return rows;
}

int run_in_kernel(const IrqOptions &opts, const Plan &plan)
{
	KernelStats ks;
	Report rep;
	rep.title = "irq";
	std::string note;
	in_kernel_window(plan, kGirqAggregateFile, opts, ks, rep, [&] {
		if (const auto text = sys::read_file(*plan.dbg + "/" + kGirqHistFile))
			load_girq_hist(*text, opts.irqs, opts.per_cpu, ks);
		else
			throw std::runtime_error("cannot read kprof/" + std::string(kGirqHistFile));
		note = tracker_probe_note(sys::read_girq_counters(*plan.dbg).at(kGirqScope));
	});
	if (!note.empty())
		rep.check_note += "; " + note;
	fill_rows(opts, ks.totals, ks.per_cpu, rep);
	render(opts, rep);
	return exit_status(rep);
}

}  // namespace

int run_irq(const IrqOptions &opts)
{
	const Plan plan = make_plan(opts);
	if (opts.in_kernel)
		return run_in_kernel(opts, plan);
	AggregateOptions aopts;
	aopts.kinds = plan.kinds;
	aopts.per_cpu = opts.per_cpu;
	aopts.irqs = opts.irqs;
	Aggregator agg(aopts);

	std::unique_ptr<ThresholdWatcher> watcher;
	if (opts.threshold)
		watcher = std::make_unique<ThresholdWatcher>(opts, int(plan.cpus.size()));
	Collected c;
	{
		Session session(plan, opts, watcher.get());
		if (watcher)
			watcher->attach(session.tep());
		c = session.collect(opts, agg);
	}	// the instance is restored or removed, the tracker detached

	Report rep;
	rep.title = "irq";
	account_loss(plan, c, agg, std::nullopt, rep);
	if (!c.note.empty())
		rep.check_note += (rep.check_note.empty() ? "" : "; ") + c.note;
	fill_rows(opts, agg.totals(), agg.per_cpu(), rep);
	rep.irqs = irq_rows(agg);
	std::vector<Analysis> analyses;
	if (watcher) {
		analyses = watcher->finish();
		if (opts.json)
			rep.threshold = analyses_json(*watcher, analyses);
	}
	render(opts, rep);
	if (!watcher)
		return exit_status(rep);
	if (!opts.json)
		print_analyses(opts, *watcher, analyses);
	if (opts.trace_file)
		write_trace(*opts.trace_file, analyses, watcher->analyzer().threshold());
	return watcher->analyzer().hits() ? 2 : exit_status(rep);	// a hit first: rtla's convention
}

}  // namespace kprof
