// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_inkernel
#include <boost/test/unit_test.hpp>

#include "core/inkernel.hpp"

#include <cerrno>
#include <random>
#include <sstream>

using namespace kprof;

namespace {

const std::string kLayout = "layout sub_bits=9 kernel_bits=36 buckets=14337\n";

// kprof/<dev>/hist's line for @h, as kprof.ko prints it; @label may
// carry more keys (the tracker's: "EVENT CPU IRQ NAME", @cpu -1).
std::string line(const std::string &label, int cpu, const Histogram &h, uint64_t sum)
{
	std::ostringstream o;
	o << label << (cpu >= 0 ? " " + std::to_string(cpu) : "") << " " << h.count() << " " << sum << " " << h.min()
	  << " " << h.max();
	for (size_t i = 0; i < KPROF_HIST_KERNEL_BUCKETS; i++)
		if (h.bucket(i))
			o << " " << i << ":" << h.bucket(i);
	return o.str() + "\n";
}

struct Values {
	Histogram h;
	uint64_t sum = 0;
	void add(uint64_t v)
	{
		h.record(v);
		sum += v;
	}
};

}  // namespace

// Per-CPU lines load into per-CPU histograms and merge into the total:
// count, min, max, mean and percentiles as if recorded here.
BOOST_AUTO_TEST_CASE(loads_and_merges_cpus)
{
	std::mt19937_64 rng(1);
	std::lognormal_distribution<double> d(10, 1);
	Values cpu0, cpu1, all;
	for (int i = 0; i < 20000; i++) {
		const auto v = uint64_t(d(rng));
		(i % 3 ? cpu0 : cpu1).add(v);
		all.add(v);
	}
	const std::string text = kLayout + "state 2\n" + line("irq_thread_latency", 0, cpu0.h, cpu0.sum) +
				 line("irq_thread_latency", 1, cpu1.h, cpu1.sum) + line("span:packet", 1, cpu1.h, cpu1.sum);
	KernelStats ks;
	load_kernel_hist(text, "q0", {}, true, ks);
	BOOST_TEST(ks.samples == all.h.count() + cpu1.h.count());
	BOOST_TEST(int(ks.state) == int(AggState::Frozen));
	BOOST_TEST(ks.overflow == 0u);
	const Histogram &t = ks.totals.at({"irq_thread_latency", "q0", -1});
	BOOST_TEST(t.count() == all.h.count());
	BOOST_TEST(t.min() == all.h.min());
	BOOST_TEST(t.max() == all.h.max());
	BOOST_TEST(t.mean() == all.h.mean(), boost::test_tools::tolerance(1e-9));
	for (double p : {50.0, 90.0, 99.0, 99.9, 100.0})
		BOOST_TEST(t.percentile(p) == all.h.percentile(p));
	BOOST_TEST(ks.per_cpu.at({"irq_thread_latency", "q0", -1, 1}).count() == cpu1.h.count());
	BOOST_TEST(ks.totals.at({"span:packet", "q0", -1}).count() == cpu1.h.count());
}

BOOST_AUTO_TEST_CASE(filters_kinds)
{
	Values v;
	v.add(5000);
	KernelStats ks;
	load_kernel_hist(kLayout + line("batch", 0, v.h, v.sum) + line("span:packet", 0, v.h, v.sum), "q0",
			 {EventKind::Span}, false, ks);
	BOOST_TEST(ks.totals.size() == 1u);
	BOOST_TEST(ks.totals.count({"span:packet", "q0", -1}) == 1u);
	BOOST_TEST(ks.filtered == 1u);
	BOOST_TEST(ks.per_cpu.empty());
}

// A device's samples kprof.ko had no histogram for (its memory budget) are
// counted, whatever kinds are kept: they cannot be told apart.
BOOST_AUTO_TEST_CASE(device_untracked_counted)
{
	Values v;
	v.add(5000);
	KernelStats ks;
	load_kernel_hist(kLayout + line("batch", 0, v.h, v.sum) + "untracked 0 batch 4\nuntracked 1 span:packet 3\n",
			 "q0", {EventKind::Span}, false, ks);
	BOOST_TEST(ks.untracked == 7u);
	BOOST_TEST(ks.totals.empty());
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "untracked 0 batch\n", "q0", {}, false, ks), std::runtime_error);
}

// Values from 2^36 ns on share the kernel's last bucket: they count, and
// are binned with the max.
BOOST_AUTO_TEST_CASE(overflow_bucket)
{
	const uint64_t big = 100ULL << 30;	// 107 s
	const std::string text = kLayout + "batch 0 3 " + std::to_string(2 * big + 7) + " 7 " + std::to_string(big) +
				 " 7:1 14336:2\n";
	KernelStats ks;
	load_kernel_hist(text, "q0", {}, false, ks);
	const Histogram &h = ks.totals.at({"batch", "q0", -1});
	BOOST_TEST(ks.overflow == 2u);
	BOOST_TEST(h.count() == 3u);
	BOOST_TEST(h.percentile(50) == big);
	BOOST_TEST(h.min() == 7u);
}

BOOST_AUTO_TEST_CASE(rejects_what_it_cannot_trust)
{
	KernelStats ks;
	// Another layout: a kprof.ko of another version.
	BOOST_CHECK_THROW(load_kernel_hist("layout sub_bits=7 kernel_bits=36 buckets=3457\n", "q0", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_kernel_hist("", "q0", {}, false, ks), std::runtime_error);
	// Buckets that do not add up to the count: read while recording.
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "batch 0 3 30 10 10 10:2\n", "q0", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "nosuchkind 0 1 10 10 10 10:1\n", "q0", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "batch 0 1 10 10 10 99999:1\n", "q0", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "batch x\n", "q0", {}, false, ks), std::runtime_error);
	BOOST_CHECK_THROW(load_kernel_hist(kLayout + "batch 0 1 10 10 10 10-1\n", "q0", {}, false, ks),
			  std::runtime_error);
	// Numbers std::stoull would reject with invalid_argument or out_of_range.
	for (const char *bad : {"batch 0 1 10 10 10 x:1\n", "batch 0 1 10 10 10 10:\n",
				"batch 0 1 10 10 10 10:99999999999999999999999\n", "state x\n"})
		BOOST_CHECK_THROW(load_kernel_hist(kLayout + bad, "q0", {}, false, ks), std::runtime_error);
}

// kprof/girq_hist: a row per IRQ action and event, the name unescaped,
// CPUs merged; untracked samples counted; --irq by number or name.
BOOST_AUTO_TEST_CASE(loads_girq_hist)
{
	Values v, w;
	for (uint64_t x : {1500, 2500, 90000})
		v.add(x);
	w.add(700);
	const std::string text = kLayout + "state 2\nuntracked 0 kprof_girq_handler 5\n" +
				 line("kprof_girq_handler 0 24 my\\040dev", -1, v.h, v.sum) +
				 "untracked 1 kprof_girq_thread 2\n" +
				 line("kprof_girq_thread 1 24 my\\040dev", -1, w.h, w.sum) +
				 line("kprof_girq_handler 1 25 eth0", -1, w.h, w.sum);
	KernelStats ks;
	load_girq_hist(text, {}, true, ks);
	BOOST_TEST(ks.untracked == 7u);
	BOOST_TEST(ks.samples == 5u);
	BOOST_TEST(int(ks.state) == int(AggState::Frozen));
	const Histogram &h = ks.totals.at({"handler", "my dev", 24});
	BOOST_TEST(h.count() == 3u);
	BOOST_TEST(h.max() == 90000u);
	BOOST_TEST(h.percentile(50) == v.h.percentile(50));
	BOOST_TEST(ks.totals.at({"entry_to_running", "my dev", 24}).count() == 1u);
	BOOST_TEST(ks.per_cpu.at({"entry_to_running", "my dev", 24, 1}).min() == 700u);

	KernelStats by_name, by_number;
	load_girq_hist(text, {"my dev"}, false, by_name);
	load_girq_hist(text, {"25"}, false, by_number);
	BOOST_TEST(by_name.totals.size() == 2u);
	BOOST_TEST(by_name.filtered == 1u);
	BOOST_TEST(by_number.totals.size() == 1u);
	BOOST_TEST(by_number.totals.count({"handler", "eth0", 25}) == 1u);
	BOOST_TEST(by_number.untracked == 7u);	// not attributable: never filtered
}

BOOST_AUTO_TEST_CASE(girq_hist_rejects)
{
	KernelStats ks;
	// A device's kind, or an event of another kind, in the tracker's file.
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "batch 0 24 x 1 10 10 10 10:1\n", {}, false, ks), std::runtime_error);
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "kprof_irq_handler 0 24 x 1 10 10 10 10:1\n", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "kprof_girq_wake 0 -1 x 1 10 10 10 10:1\n", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "kprof_girq_wake 0 24 x 2 10 10 10 10:1\n", {}, false, ks),
			  std::runtime_error);
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "untracked x\n", {}, false, ks), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(unescapes_octal)
{
	BOOST_TEST(unescape_octal("a\\040b\\011c\\134") == "a b\tc\\");
	BOOST_TEST(unescape_octal("plain") == "plain");
	BOOST_TEST(unescape_octal("\\04") == "\\04");	// too short: kept
	BOOST_TEST(unescape_octal("\\089") == "\\089");
}

// kprof/func: each function's counts, its histograms (total and per CPU),
// untracked and backwards lines added to their function; a lost call is
// one the probes saw and could not time, an in-flight one is not lost.
BOOST_AUTO_TEST_CASE(loads_func_session)
{
	Values c0, c1;
	for (uint64_t v : {25000, 31000, 90000})
		c0.add(v);
	c1.add(40000);
	const std::string text = kLayout + "state 2\n" + "func pktproc_poll 7 1 2 0 2 3\n" +
				 line("hist pktproc_poll", 0, c0.h, c0.sum) + line("hist pktproc_poll", 1, c1.h, c1.sum) +
				 "untracked 1 pktproc_poll 1\nbackwards 0 pktproc_poll 1\n" + "func pktproc_rx_one 0 0 0 3 - -\n";
	KernelStats ks;
	std::vector<FuncCounts> funcs;
	load_func_hist(text, true, ks, funcs);
	BOOST_TEST_REQUIRE(funcs.size() == 2u);
	const FuncCounts &f = funcs[0];
	BOOST_TEST(f.name == "pktproc_poll");
	BOOST_TEST(f.calls == 7u);
	BOOST_TEST(f.timed == 4u);
	BOOST_TEST(f.sum_ns == double(c0.sum + c1.sum));
	BOOST_TEST(f.untracked == 1u);
	BOOST_TEST(f.backwards == 1u);
	BOOST_TEST(f.in_flight() == 1u);	// 7 entered: 4 timed, 1 untracked, 1 backwards
	BOOST_TEST(f.lost() == 5u);		// 1 missed, 2 recursion, 1 untracked, 1 backwards
	BOOST_TEST(f.nested.value_or(0) == 2u);	// of the 7, nested in another
	BOOST_TEST(f.depth.value_or(0) == 3u);
	BOOST_TEST(funcs[1].nmi == 3u);
	BOOST_TEST(funcs[1].lost() == 3u);
	BOOST_TEST(!funcs[1].nested);		// "- -": the kernel hides it
	BOOST_TEST(!funcs[1].depth);
	BOOST_TEST(ks.untracked == 1u);
	BOOST_TEST(ks.samples == 4u);
	BOOST_TEST(ks.totals.at({kFuncLabel, "pktproc_poll", -1}).count() == 4u);
	BOOST_TEST(ks.totals.at({kFuncLabel, "pktproc_poll", -1}).max() == 90000u);
	BOOST_TEST(ks.per_cpu.at({kFuncLabel, "pktproc_poll", -1, 1}).count() == 1u);
}

BOOST_AUTO_TEST_CASE(func_session_rejects)
{
	std::vector<FuncCounts> funcs;
	KernelStats ks;
	// A histogram before its function's line, or a line of no known kind.
	BOOST_CHECK_THROW(load_func_hist(kLayout + "state 2\nhist f 0 1 5 5 5 5:1\n", false, ks, funcs),
			  std::runtime_error);
	// A func line short of its fields, with a half-known or non-numeric
	// nesting, or with more after it.
	for (const char *func : {"func f 1 0 0\n", "func f 1 0 0 0\n", "func f 1 0 0 0 1\n", "func f 1 0 0 0 - 1\n",
				 "func f 1 0 0 0 1 x\n", "func f 1 0 0 0 1 2 3\n"})
		BOOST_CHECK_THROW(load_func_hist(kLayout + "state 2\n" + func, false, ks, funcs), std::runtime_error);
	BOOST_CHECK_THROW(load_func_hist(kLayout + "state 2\nfunk f 1 0 0 0\n", false, ks, funcs), std::runtime_error);
	BOOST_CHECK_THROW(load_func_hist("layout sub_bits=8 kernel_bits=36 buckets=1\n", false, ks, funcs),
			  std::runtime_error);
}

// A module's text functions from /proc/kallsyms, by glob, once each.
BOOST_AUTO_TEST_CASE(module_functions_from_kallsyms)
{
	const std::string text = "ffffffffc0001000 t pktproc_poll\t[kprof_pktproc]\n"
				 "ffffffffc0001100 t pktproc_rx_one\t[kprof_pktproc]\n"
				 "ffffffffc00010f0 t __pfx_pktproc_rx_one\t[kprof_pktproc]\n"
				 "ffffffffc0002000 d pktproc_data\t[kprof_pktproc]\n"
				 "ffffffffc0003000 T kprof_irq_enter\t[kprof]\n"
				 "ffffffff81000000 T _stext\n"
				 "ffffffffc0001100 t pktproc_rx_one\t[kprof_pktproc]\n";
	BOOST_TEST(module_functions(text, "kprof_pktproc", "*") ==
		   (std::vector<std::string>{"pktproc_poll", "pktproc_rx_one"}));
	BOOST_TEST(module_functions(text, "kprof_pktproc", "*poll") == (std::vector<std::string>{"pktproc_poll"}));
	BOOST_TEST(module_functions(text, "kprof", "*").size() == 1u);
	BOOST_TEST(module_functions(text, "nosuch", "*").empty());
	BOOST_CHECK_THROW(module_functions("ffff t\n", "kprof", "*"), std::runtime_error);
	BOOST_TEST(kallsyms_has(text, "_stext"));
	BOOST_TEST(kallsyms_has(text, "pktproc_poll"));
	BOOST_TEST(!kallsyms_has(text, "pktproc"));
	BOOST_TEST(func_refusal(ENOENT).find("kallsyms") != std::string::npos);
	BOOST_TEST(func_refusal(EINVAL).find("blacklist") != std::string::npos);
	BOOST_TEST(func_refusal(ENOMEM).find("budget") != std::string::npos);
}

// kprofctl top reads the tracker's and the function probes' histograms
// while they aggregate. kprof_hist_copy() copies the fields first and the
// buckets after, so a sample that lands meanwhile is in its bucket and not
// yet in the count: live (state 1), the buckets are the count and the max
// stretches to the new sample's bucket; frozen (state 2), such a line is
// an error, as before.
BOOST_AUTO_TEST_CASE(a_live_copy_counts_its_buckets)
{
	const size_t b1500 = Histogram::index_of(1500), b90000 = Histogram::index_of(90000);
	// The fields count 1500 and 2500; the buckets hold 90000 too.
	const std::string torn = "kprof_girq_handler 0 24 eth0 2 4000 1500 2500 " + std::to_string(b1500) + ":1 " +
				 std::to_string(Histogram::index_of(2500)) + ":1 " + std::to_string(b90000) + ":1\n";
	KernelStats live;
	load_girq_hist(kLayout + "state 1\n" + torn, {}, false, live);
	const Histogram &h = live.totals.at({"handler", "eth0", 24});
	BOOST_TEST(h.count() == 3u);
	BOOST_TEST(h.max() >= Histogram::lowest_of(b90000));
	BOOST_TEST(h.max() < Histogram::lowest_of(b90000) + Histogram::width_of(b90000));
	BOOST_TEST(h.percentile(50) == Histogram::lowest_of(Histogram::index_of(2500)) +
					       (Histogram::width_of(Histogram::index_of(2500)) - 1) / 2);
	KernelStats frozen;
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "state 2\n" + torn, {}, false, frozen), std::runtime_error);
	// Live or not, fields that count more than the buckets hold are wrong.
	KernelStats over;
	BOOST_CHECK_THROW(load_girq_hist(kLayout + "state 1\nkprof_girq_handler 0 24 eth0 4 4000 1500 2500 " +
						 std::to_string(b1500) + ":1\n",
					 {}, false, over),
			  std::runtime_error);
}
