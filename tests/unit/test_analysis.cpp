// SPDX-License-Identifier: GPL-2.0
// The threshold analysis on a synthetic timeline with a known culprit.
#define BOOST_TEST_MODULE kprof_analysis
#include <boost/test/unit_test.hpp>

#include "core/analysis.hpp"

using namespace kprof;

namespace {

// Names are literals, which outlive the analyzer.
CtxEvent ev(CtxEvent::Kind k, uint64_t ts, int a, int b = 0, std::string_view na = "", std::string_view nb = "", int pa = 0,
	    int pb = 0, int cpu = 0)
{
	CtxEvent e;
	e.kind = k;
	e.cpu = cpu;
	e.ts = ts;
	e.a = a;
	e.b = b;
	e.prio_a = pa;
	e.prio_b = pb;
	e.name_a = na;
	e.name_b = nb;
	return e;
}

Sample thread_sample(uint64_t ts, uint64_t delta, int cpu = 0, int hard_cpu = 0)
{
	Sample s{EventKind::GirqThread, 0, cpu, ts, delta, 0, hard_cpu, 1};
	s.irq = 24;
	return s;
}

// CPU 0: a kworker busy-loops from 1 us to 2011 us; IRQ 24 at 10 us wakes
// irq/24-kprof_pk, which runs only when the kworker switches to it.
void busy_loop_timeline(Analyzer &an, uint64_t end = 2011000)
{
	an.context(ev(CtxEvent::Switch, 1000, 0, 45, "swapper/0", "kworker/0:1", 120, 120));
	an.context(ev(CtxEvent::IrqEntry, 10000, 24, 0, "kprof_pktproc"));
	an.context(ev(CtxEvent::IrqExit, 11000, 24, 2));
	an.context(ev(CtxEvent::Waking, 11500, 109, 0, "irq/24-kprof_pk", "", 49));
	an.context(ev(CtxEvent::IrqEntry, 20000, 4, 0, "ttyS0"));
	an.context(ev(CtxEvent::IrqExit, 23000, 4, 1));
	an.context(ev(CtxEvent::SoftEntry, 30000, 1));
	an.context(ev(CtxEvent::SoftExit, 35000, 1));
	an.context(ev(CtxEvent::Switch, end, 45, 109, "kworker/0:1", "irq/24-kprof_pk", 120, 49));
}

}  // namespace

BOOST_AUTO_TEST_CASE(names_the_busy_loop_and_its_length)
{
	Analyzer an(1000000);
	busy_loop_timeline(an);
	BOOST_TEST(!an.sample(thread_sample(2011000, 900000), "kprof_pktproc"));	// under the threshold
	an.arm(10001);
	BOOST_TEST(!an.sample(thread_sample(2011000, 2001000), "kprof_pktproc"));	// its IRQ came before
	an.arm(10000);
	BOOST_TEST(an.sample(thread_sample(2011000, 2001000), "kprof_pktproc"));
	BOOST_TEST(an.hits() == 1u);
	const auto v = an.take(false);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	const Analysis &a = v[0];
	BOOST_TEST(a.complete);
	BOOST_TEST(a.thread_pid == 109);
	BOOST_TEST(a.thread_comm == "irq/24-kprof_pk");
	BOOST_TEST_REQUIRE(a.woken.has_value());
	BOOST_TEST(*a.woken - a.hit.entry == 1500u);
	BOOST_TEST_REQUIRE(a.irqs.size() == 2u);
	BOOST_TEST(a.irqs[0].what == "irq 24 kprof_pktproc");
	BOOST_TEST(a.irqs[1].what == "irq 4 ttyS0");
	BOOST_TEST(a.irqs[1].ns == 3000u);
	BOOST_TEST_REQUIRE(a.softirqs.size() == 1u);
	BOOST_TEST(a.softirqs[0].what == "softirq TIMER");
	BOOST_TEST(a.softirqs[0].ns == 5000u);
	BOOST_TEST_REQUIRE(a.tasks.size() == 1u);
	BOOST_TEST(a.tasks[0].pid == 45);
	BOOST_TEST(a.tasks[0].ns == 2001000u);	// clipped to the window
	BOOST_TEST(a.tasks[0].whole == 2010000u);	// its whole stretch
	BOOST_TEST_REQUIRE(a.culprit.has_value());
	BOOST_TEST(a.culprit->what == "kworker/0:1");
	BOOST_TEST_REQUIRE(a.trace.size() == 9u);	// -t FILE's lines, in time order
	BOOST_TEST(a.trace.front() == "0.000001000 [000] sched_switch: swapper/0:0 [120] ==> kworker/0:1:45 [120]");
	BOOST_TEST(a.trace[1] == "0.000010000 [000] irq_handler_entry: irq=24 name=kprof_pktproc");
	BOOST_TEST(a.trace.back().find("] ==> irq/24-kprof_pk:109 [49]") != std::string::npos);
	const std::string text = render_analysis(a, an.threshold());
	BOOST_TEST(text.find("culprit: kworker/0:1 (pid 45, prio 120)") != std::string::npos);
	BOOST_TEST(text.find("woken at +1.5 us") != std::string::npos);
	BOOST_TEST(analysis_json(a)["culprit"]["on_cpu_ns"] == 2010000u);
	BOOST_TEST(an.take(true).empty());
}

// A hit waits until every CPU involved has context past it.
BOOST_AUTO_TEST_CASE(waits_for_the_other_cpu)
{
	Analyzer an(1000000);
	busy_loop_timeline(an);
	an.context(ev(CtxEvent::Switch, 500, 0, 7, "swapper/1", "sh", 120, 120, 1));
	BOOST_TEST(an.sample(thread_sample(2011000, 2001000, 0, 1), "kprof_pktproc"));
	BOOST_TEST(an.take(false).empty());	// CPU 1 is not past the run yet
	an.context(ev(CtxEvent::Switch, 3000000, 7, 0, "sh", "swapper/1", 120, 120, 1));
	const auto v = an.take(false);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	// sh on CPU 1 (the hard IRQ's) is listed; the culprit is on the thread's CPU.
	BOOST_TEST(v[0].tasks.size() == 2u);
	BOOST_TEST(v[0].culprit->what == "kworker/0:1");
}

// Context that starts after the hard IRQ: the analysis says it is partial.
BOOST_AUTO_TEST_CASE(partial_context_is_flagged)
{
	Analyzer an(1000000);
	an.context(ev(CtxEvent::Switch, 1500000, 45, 109, "kworker/0:1", "irq/24-kprof_pk", 120, 49));
	BOOST_TEST(an.sample(thread_sample(1500000, 1490000), "kprof_pktproc"));
	const auto v = an.take(true);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	BOOST_TEST(!v[0].complete);
	BOOST_TEST(!v[0].woken.has_value());
	BOOST_TEST(render_analysis(v[0], 1000000).find("raise -b") != std::string::npos);
}

// The horizon drops old context, but not what a pending hit needs.
BOOST_AUTO_TEST_CASE(horizon_keeps_what_pending_hits_need)
{
	const uint64_t base = 10000000000ULL;	// 10 s
	Analyzer an(1000000, 5000000);		// 5 ms of context
	an.context(ev(CtxEvent::Switch, base, 0, 45, "swapper/0", "kworker/0:1", 120, 120));
	an.context(ev(CtxEvent::Switch, base + 2000000, 45, 109, "kworker/0:1", "irq/24-kprof_pk", 120, 49));
	BOOST_TEST(an.sample(thread_sample(base + 2000000, 1500000), "kprof_pktproc"));
	// 9 ms later, past the horizon of the window's first switch.
	an.context(ev(CtxEvent::Switch, base + 9000000, 109, 0, "irq/24-kprof_pk", "swapper/0", 49, 120));
	const auto v = an.take(false);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	BOOST_TEST(v[0].complete);
	BOOST_TEST(v[0].culprit->what == "kworker/0:1");
	// Without a pending hit the same context goes.
	an.context(ev(CtxEvent::Switch, base + 20000000, 0, 45, "swapper/0", "kworker/0:1", 120, 120));
	BOOST_TEST(an.sample(thread_sample(base + 20000000, 19000000), "kprof_pktproc"));
	const auto w = an.take(true);
	BOOST_TEST_REQUIRE(w.size() == 1u);
	BOOST_TEST(!w[0].complete);	// the window's start fell off the horizon
}

// The thread is woken onto CPU 1, where a kworker holds the CPU, and in
// the end runs on CPU 0, idle all along: the culprit is CPU 1's kworker.
BOOST_AUTO_TEST_CASE(culprit_is_on_the_cpu_the_thread_waited_for)
{
	Analyzer an(1000000);
	an.context(ev(CtxEvent::Switch, 1000, 45, 0, "kworker/0:1", "swapper/0", 120, 120, 0));
	an.context(ev(CtxEvent::IrqEntry, 10000, 24, 0, "kprof_pktproc", "", 0, 0, 0));
	an.context(ev(CtxEvent::IrqExit, 11000, 24, 2, "", "", 0, 0, 0));
	an.context(ev(CtxEvent::Waking, 11500, 109, 1, "irq/24-kprof_pk", "", 49, 0, 0));
	an.context(ev(CtxEvent::Switch, 2011000, 0, 109, "swapper/0", "irq/24-kprof_pk", 120, 49, 0));
	an.context(ev(CtxEvent::Switch, 5000, 0, 77, "swapper/1", "kworker/1:2", 120, 120, 1));
	an.context(ev(CtxEvent::Switch, 2008000, 77, 0, "kworker/1:2", "swapper/1", 120, 120, 1));
	BOOST_TEST(an.sample(thread_sample(2011000, 2001000, 0, 0), "kprof_pktproc"));
	const auto v = an.take(false);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	BOOST_TEST(v[0].queued_cpu == 1);
	BOOST_TEST_REQUIRE(v[0].culprit.has_value());
	BOOST_TEST(v[0].culprit->what == "kworker/1:2");
	BOOST_TEST(v[0].culprit->cpu == 1);
	BOOST_TEST(v[0].culprit->whole == 2003000u);
}

// kprofctl irq --irq N -T: a slow thread of another IRQ is no hit, and does
// not stop the collection; the wanted IRQ's is, by number or by name.
BOOST_AUTO_TEST_CASE(only_the_irqs_asked_for_hit)
{
	Analyzer an(1000000);
	busy_loop_timeline(an);
	an.only_irqs({"25"});
	BOOST_TEST(!an.sample(thread_sample(2011000, 2001000), "kprof_pktproc"));
	BOOST_TEST(an.hits() == 0u);
	an.only_irqs({"7", "kprof_pktproc"});
	BOOST_TEST(an.sample(thread_sample(2011000, 2001000), "kprof_pktproc"));
	an.only_irqs({"24"});
	BOOST_TEST(an.sample(thread_sample(2011000, 2001000), "kprof_pktproc"));
	BOOST_TEST(an.hits() == 2u);
}

// The budget: past its share a CPU drops its oldest events before the
// horizon, counted, and an analysis that needed them says the budget did it.
BOOST_AUTO_TEST_CASE(budget_bounds_each_cpu_and_says_so)
{
	Analyzer an(1000);	// 1 us
	const auto sw = ev(CtxEvent::Switch, 0, 0, 45, "swapper/0", "kworker/0:1", 120, 120);
	const uint64_t one = Analyzer::context_bytes;
	an.budget(2 * 4 * one, 2);	// four events per CPU
	for (uint64_t t = 1000; t <= 10000; t += 1000) {
		auto e = sw;
		e.ts = t;
		an.context(e);
	}
	BOOST_TEST(an.trimmed() == 6u);
	auto quiet = sw;
	quiet.cpu = 1;
	an.context(quiet);	// CPU 1's share is its own
	BOOST_TEST(an.trimmed() == 6u);
	// A hit whose entry (5 us) came before CPU 0's oldest kept event (7 us).
	an.context(ev(CtxEvent::Switch, 11000, 45, 109, "kworker/0:1", "irq/24-kprof_pk", 120, 49));
	BOOST_TEST(an.trimmed() == 7u);
	BOOST_TEST(an.sample(thread_sample(11000, 6000), "kprof_pktproc"));
	const auto v = an.take(true);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	BOOST_TEST(!v[0].complete);
	BOOST_TEST(v[0].over_budget);
	BOOST_TEST(render_analysis(v[0], 1000).find("raise --context-budget") != std::string::npos);
}

// A name is kept once, and its view stays valid as the pool grows.
BOOST_AUTO_TEST_CASE(name_pool_keeps_each_name_once)
{
	NamePool pool;
	std::string name = "kworker/0:1";
	const std::string_view first = pool.intern(name);
	name[0] = 'K';	// the pool holds its own copy
	BOOST_TEST(first == "kworker/0:1");
	for (int i = 0; i < 10000; i++)	// rehashes many times
		pool.intern("task" + std::to_string(i));
	const std::string_view again = pool.intern("kworker/0:1");
	BOOST_TEST(again.data() == first.data());
	BOOST_TEST(first == "kworker/0:1");
	BOOST_TEST(pool.size() == 10001u);
	BOOST_TEST(pool.intern("").empty());
}

// Without a budget nothing is trimmed: incomplete context is the buffer's.
BOOST_AUTO_TEST_CASE(no_budget_no_trim)
{
	Analyzer an(1000000);
	an.context(ev(CtxEvent::Switch, 1500000, 45, 109, "kworker/0:1", "irq/24-kprof_pk", 120, 49));
	BOOST_TEST(an.sample(thread_sample(1500000, 1490000), "kprof_pktproc"));
	const auto v = an.take(true);
	BOOST_TEST_REQUIRE(v.size() == 1u);
	BOOST_TEST(!v[0].over_budget);
	BOOST_TEST(an.trimmed() == 0u);
}
