// SPDX-License-Identifier: GPL-2.0
// The system beside a report: PSI, /proc/stat and vmstat parsed, the
// window's deltas, and their text, JSON and Prometheus forms.
#define BOOST_TEST_MODULE kprof_system
#include <boost/test/unit_test.hpp>

#include "core/export.hpp"
#include "core/system.hpp"

using namespace kprof;

namespace {

const char *const kCpu0 = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n"
			  "full avg10=0.00 avg60=0.00 avg300=0.00 total=200000\n";
const char *const kCpu1 = "some avg10=45.10 avg60=20.00 avg300=5.00 total=5500000\n"
			  "full avg10=1.25 avg60=0.00 avg300=0.00 total=200100\n";
const char *const kStat = "cpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n"
			  "intr 123456 0 9 0 0\nctxt 7890\nbtime 1700000000\nprocesses 42\n";
const char *const kVmstat = "nr_free_pages 1000\npgmajfault 17\nallocstall_dma 0\nallocstall_dma32 2\n"
			    "allocstall_normal 5\nallocstall_movable 1\ncompact_stall 3\ncompact_fail 1\n";

SystemSnapshot snapshot(const char *cpu, uint64_t intr, uint64_t ctxt, uint64_t majflt)
{
	SystemSnapshot s;
	s.psi["cpu"] = parse_psi(cpu);
	s.psi["io"] = parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
				"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	s.psi["memory"] = s.psi["io"];
	s.interrupts = intr;
	s.switches = ctxt;
	s.major_faults = majflt;
	return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(parses_the_proc_files)
{
	const Psi p = parse_psi(kCpu1);
	BOOST_REQUIRE(p.some && p.full);
	BOOST_TEST(p.some->avg10 == 45.10);
	BOOST_TEST(p.some->total_us == 5500000u);
	BOOST_TEST(p.full->total_us == 200100u);
	// 5.10's cpu file has no full line; irq's has no some line.
	BOOST_TEST(!parse_psi("some avg10=1.00 avg60=0.00 avg300=0.00 total=5\n").full);
	BOOST_TEST(!parse_psi("full avg10=1.00 avg60=0.00 avg300=0.00 total=5\n").some);
	for (const char *bad : {"", "\n", "some avg10=x total=1\n", "some avg10=1.0\n", "partial avg10=1 total=2\n"})
		BOOST_CHECK_THROW(parse_psi(bad), std::invalid_argument);

	SystemSnapshot s;
	parse_proc_stat(kStat, s);
	BOOST_TEST(s.interrupts == 123456u);
	BOOST_TEST(s.switches == 7890u);
	parse_vmstat(kVmstat, s);
	BOOST_TEST(s.major_faults == 17u);
	BOOST_TEST(s.reclaim_stalls == 8u);	// every allocstall_* zone
	BOOST_TEST(s.compaction_stalls == 3u);
}

BOOST_AUTO_TEST_CASE(the_window_deltas)
{
	SystemSnapshot a = snapshot(kCpu0, 1000, 500, 10), b = snapshot(kCpu1, 21000, 2500, 12);
	a.reclaim_stalls = 4;
	b.reclaim_stalls = 3;	// went backwards (no such thing): 0, not 2^64 - 1
	const SystemContext c = system_between(a, b, 10);
	BOOST_TEST(c.psi_off.empty());
	BOOST_REQUIRE_EQUAL(c.pressure.size(), 3u);
	BOOST_TEST(c.pressure[0].resource == "cpu");
	BOOST_TEST(c.pressure[0].some->total_us == 4500000u);
	BOOST_TEST(c.pressure[0].some->avg10 == 45.10);	// the end's
	BOOST_TEST(c.pressure[0].full->total_us == 100u);
	BOOST_TEST(c.no_psi == std::vector<std::string>{"irq"});
	BOOST_TEST(c.interrupts == 20000u);
	BOOST_TEST(c.switches == 2000u);
	BOOST_TEST(c.major_faults == 2u);
	BOOST_TEST(c.reclaim_stalls == 0u);

	const std::string text = render_system_text(c);
	BOOST_TEST_MESSAGE(text);
	BOOST_TEST(text.find("cpu     some 4.500 s (45.0 %), avg10 45.10 %") != std::string::npos);
	BOOST_TEST(text.find("irq: the kernel has no /proc/pressure/irq") != std::string::npos);
	BOOST_TEST(text.find("interrupts 2000/s, context switches 200/s") != std::string::npos);
	BOOST_TEST(text.find("major faults 2, direct-reclaim stalls 0, compaction stalls 0") != std::string::npos);
	const auto j = render_system_json(c);
	BOOST_TEST(j["pressure"]["cpu"]["some"]["stall_us"] == 4500000u);
	BOOST_TEST(j["pressure"]["irq"].is_null());
	BOOST_TEST(j["pressure_off"].is_null());
	BOOST_TEST(j["interrupts_per_s"] == 2000.0);
}

BOOST_AUTO_TEST_CASE(psi_off_is_said)
{
	SystemSnapshot a, b;
	a.psi_off = b.psi_off = "off: the kernel was booted with psi=0";
	const SystemContext c = system_between(a, b, 1);
	BOOST_TEST(c.pressure.empty());
	BOOST_TEST(c.no_psi.empty());
	BOOST_TEST(render_system_text(c).find("pressure: off: the kernel was booted with psi=0") != std::string::npos);
	const auto j = render_system_json(c);
	BOOST_TEST(j["pressure"].is_null());
	BOOST_TEST(j["pressure_off"] == "off: the kernel was booted with psi=0");
}

// The metrics file's system counters read back and add up across runs.
BOOST_AUTO_TEST_CASE(prometheus_counters)
{
	Report r;
	r.duration_s = 10;
	r.system = system_between(snapshot(kCpu0, 1000, 500, 10), snapshot(kCpu1, 21000, 2500, 12), 10);
	Metrics m = metrics_of(r);
	const std::string text = render_prometheus(m);
	BOOST_TEST_MESSAGE(text);
	BOOST_TEST(text.find("# TYPE kprof_pressure_stall_seconds_total counter") != std::string::npos);
	BOOST_TEST(text.find("kprof_pressure_stall_seconds_total{resource=\"cpu\",kind=\"some\"} 4.5\n") !=
		   std::string::npos);
	BOOST_TEST(text.find("kprof_interrupts_total 20000\n") != std::string::npos);
	Metrics back = parse_prometheus(text);
	BOOST_TEST(back.system == m.system);
	add_metrics(back, m);
	BOOST_TEST(back.system["kprof_interrupts_total"] == 40000.0);
	BOOST_TEST(render_prometheus(back).find("kprof_pressure_stall_seconds_total{resource=\"cpu\",kind=\"some\"} 9\n") !=
		   std::string::npos);
}
