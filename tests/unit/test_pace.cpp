// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprof_pace
#include <boost/test/unit_test.hpp>

#include "core/pace.hpp"

#include <algorithm>
#include <utility>
#include <vector>

using namespace std::chrono;
using kprof::pass_pause;

// The pause in milliseconds, for readable failures.
static double ms(nanoseconds d)
{
	return duration<double, std::milli>(d).count();
}

BOOST_AUTO_TEST_CASE(an_eighth_of_the_fill_time)
{
	// 64 KiB per CPU, 16 KiB read in 100 ms: full in 400 ms.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 65536)) == 50);
	// 2 MiB per CPU, 256 KiB in 200 ms: full in 1.6 s.
	BOOST_TEST(ms(pass_pause(262144, false, milliseconds(200), 2 << 20)) == 200);
	kprof::PassPace quarter;
	quarter.fill_share = 4;
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 65536, quarter)) == 100);
}

BOOST_AUTO_TEST_CASE(bounds)
{
	// Slow: 4 KiB a second into 2 MiB would be a minute.
	BOOST_TEST(ms(pass_pause(4096, false, seconds(1), 2 << 20)) == 250);
	// Fast: 16 KiB a CPU filled in 100 ms; an eighth of that is under the
	// minimum.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(100), 16384)) == 12.5);
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(50), 16384)) == 10);
	// No overflow: an hour's pass, a huge buffer.
	BOOST_TEST(ms(pass_pause(1, false, hours(1), uint64_t(1) << 40)) == 250);
}

// The minimum never lets the busiest CPU fill more than half its buffer:
// a floor above the fill time would lose events on every pass.
BOOST_AUTO_TEST_CASE(the_minimum_yields_to_half_the_fill_time)
{
	// 16 KiB a CPU, filled in 9 ms (irq -T at 5,000 packets/s in the guest).
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(9), 16384)) == 4.5);
	// An 8 KiB buffer's worth 40 times over in 10 ms: full in 250 us.
	BOOST_TEST(ms(pass_pause(40 * 8192, false, milliseconds(10), 8192)) == 0.125);
	BOOST_TEST(ms(pass_pause(UINT64_MAX, false, nanoseconds(1), 1)) == 0);
	// At the edge: full in 20 ms, the minimum is half of it.
	BOOST_TEST(ms(pass_pause(16384, false, milliseconds(20), 16384)) == 10);
}

BOOST_AUTO_TEST_CASE(no_rate_or_more_waiting)
{
	// A pass that stopped at its page limit left pages behind: go on.
	BOOST_TEST(ms(pass_pause(256, true, seconds(1), 512)) == 0);
	// Nothing read, no time, or no buffer size known: the minimum.
	BOOST_TEST(ms(pass_pause(0, false, seconds(1), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, nanoseconds(0), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, nanoseconds(-5), 512)) == 10);
	BOOST_TEST(ms(pass_pause(5, false, seconds(1), 0)) == 10);
}

namespace {

// Buffers of so many pages each, the last of each the writer's; read()
// logs which buffer each read was of.
struct Buffers {
	std::vector<size_t> left;
	std::vector<size_t> order;
	kprof::PageRead read(size_t i)
	{
		order.push_back(i);
		if (!left[i])
			return {};
		left[i]--;
		return {true, 4000, left[i] == 0};
	}
};

}  // namespace

BOOST_AUTO_TEST_CASE(drain_rounds_share_the_reads)
{
	Buffers b{{36, 20}, {}};
	const auto d = kprof::drain_rounds(2, 16, 256, [&](size_t i) { return b.read(i); });
	// 16 of CPU 0, 16 of CPU 1, 16 of CPU 0, the last 4 of CPU 1 and one
	// more read, the last 4 of CPU 0 and one more: a partial page may be
	// the rest of one read in part, so only a second one ends the CPU.
	std::vector<size_t> want;
	for (auto [cpu, n] : {std::pair{0, 16}, {1, 16}, {0, 16}, {1, 5}, {0, 5}})
		want.insert(want.end(), n, size_t(cpu));
	BOOST_TEST(b.order == want, boost::test_tools::per_element());
	BOOST_TEST(d[0].pages == 36u);
	BOOST_TEST(d[0].bytes == 36u * 4000);
	BOOST_TEST(d[1].pages == 20u);
	BOOST_TEST(!d[0].more);
	BOOST_TEST(!d[1].more);
}

BOOST_AUTO_TEST_CASE(drain_rounds_cap_and_empty_buffers)
{
	Buffers b{{1000, 0, 3}, {}};
	const auto d = kprof::drain_rounds(3, 16, 40, [&](size_t i) { return b.read(i); });
	BOOST_TEST(d[0].pages == 40u);	// capped: more may wait
	BOOST_TEST(d[0].more);
	BOOST_TEST(d[1].pages == 0u);	// empty: one read, then done
	BOOST_TEST(!d[1].more);
	BOOST_TEST(std::count(b.order.begin(), b.order.end(), 1u) == 1);
	BOOST_TEST(d[2].pages == 3u);
	BOOST_TEST(b.left[0] == 960u);
}

// The rest of a page read in part, then whole pages, then the writer's
// page and a second partial read of it: the whole pages are read in the
// same pass.
BOOST_AUTO_TEST_CASE(drain_rounds_read_past_the_rest_of_a_page)
{
	const std::vector<kprof::PageRead> pages = {
		{true, 900, true}, {true, 4000, false}, {true, 4000, false}, {true, 300, true}, {true, 40, true},
		{true, 4000, false}};
	size_t next = 0;
	const auto d = kprof::drain_rounds(1, 16, 256, [&](size_t) { return pages.at(next++); });
	BOOST_TEST(next == 5u);
	BOOST_TEST(d[0].pages == 5u);
	BOOST_TEST(d[0].bytes == 900u + 8000 + 300 + 40);
}

BOOST_AUTO_TEST_CASE(the_writers_page_is_under_three_quarters_full)
{
	BOOST_TEST(kprof::writers_page(0, 4096));
	BOOST_TEST(kprof::writers_page(3071, 4096));
	BOOST_TEST(!kprof::writers_page(3072, 4096));
	BOOST_TEST(!kprof::writers_page(4080, 4096));
	// Sub-buffers larger than a page (6.8+ buffer_subbuf_size_kb).
	BOOST_TEST(kprof::writers_page(8000, 16384));
	BOOST_TEST(!kprof::writers_page(16000, 16384));
}

// The pacer: a pass that found nothing between two that did (a whole-page
// reader at a steady rate) keeps the pause, and the next pass's bytes are
// counted from the last pass that read any; after an idle stretch the
// rate is unknown again.
BOOST_AUTO_TEST_CASE(the_pacer_keeps_its_rate_over_passes_between_pages)
{
	using Clock = kprof::Pacer::Clock;
	const Clock::time_point t0{};
	kprof::Pacer p(16384);
	p.pass(8192, false, t0);	// no rate yet
	BOOST_TEST(ms(p.pause()) == 10);
	p.pass(8192, false, t0 + milliseconds(4));	// 16 KiB in 8 ms: half is 4
	BOOST_TEST(ms(p.pause()) == 4);
	p.pass(0, false, t0 + milliseconds(8));		// between pages
	BOOST_TEST(ms(p.pause()) == 4);
	BOOST_TEST(ms(p.last_pass() - t0) == 8);
	p.pass(16384, false, t0 + milliseconds(12));	// 16 KiB over 8 ms, not 4
	BOOST_TEST(ms(p.pause()) == 4);
	// Idle: nothing for 500 ms, then a pass reads 4 KiB right after a
	// wake: no rate (the minimum), not 4 KiB over 500 ms.
	p.pass(0, false, t0 + milliseconds(512));
	BOOST_TEST(ms(p.pause()) == 10);
	p.pass(4096, false, t0 + milliseconds(513));
	BOOST_TEST(ms(p.pause()) == 10);
	// Capped: no pause, whatever came before.
	p.pass(1 << 20, true, t0 + milliseconds(514));
	BOOST_TEST(ms(p.pause()) == 0);
}

namespace {

// One CPU's ring buffer as the kernel's splice() and read() see it, in
// events, @cap to a page. The reader page is apart from the ring; the
// writer may be on it (after the reader swapped in the writer's page).
// splice() takes only a page read from its start that the writer has
// left; read() copies a page read in part, or the writer's page, to its
// current end, else swaps out a whole page too.
struct RingModel {
	struct Page {
		int n = 0;
		bool left = false;	// the writer has left it
	};
	explicit RingModel(int page_events) : cap(page_events) {}
	int cap;
	std::vector<Page> ring;	// oldest first; the writer's page last, unless on the reader page
	Page reader{0, true};
	int read = 0;		// events of the reader page taken
	bool writer_on_reader = false;
	long written = 0, taken = 0;
	int splices = 0, reads = 0;

	void write(int events)
	{
		for (int e = 0; e < events; e++, written++) {
			Page *w = writer_on_reader ? &reader : ring.empty() || ring.back().left ? nullptr : &ring.back();
			if (w && w->n == cap) {
				w->left = true;
				writer_on_reader = false;
				w = nullptr;
			}
			if (!w) {
				ring.push_back({});
				w = &ring.back();
			}
			w->n++;
		}
	}
	// rb_get_reader_page(): false when caught up with the writer.
	bool reader_page()
	{
		if (read < reader.n)
			return true;
		if (writer_on_reader || ring.empty())
			return false;
		reader = ring.front();
		ring.erase(ring.begin());
		read = 0;
		writer_on_reader = !reader.left;
		return true;
	}
	int take(bool whole_only)
	{
		if (!reader_page())
			return 0;
		if (read || writer_on_reader) {
			if (whole_only)
				return 0;
			const int n = reader.n - read;
			read = reader.n;
			return n;
		}
		const int n = reader.n;
		reader = {0, true};
		read = 0;
		return n;
	}
	size_t splice()
	{
		splices++;
		const int n = take(true);
		taken += n;
		return size_t(n);
	}
	size_t copy()
	{
		reads++;
		const int n = take(false);
		taken += n;
		return size_t(n);
	}
	// Pages the writer has left still in the ring: a pass must not end
	// with one (it would wait a pass more, and a small buffer overflows).
	bool whole_page_left() const
	{
		return !ring.empty() && ring.front().left;
	}
};

// A pass of SplicePlan over the model, to its end.
void pass(kprof::SplicePlan &plan, RingModel &m, kprof::SplicePlan::Clock::time_point now)
{
	using Op = kprof::SplicePlan::Op;
	plan.begin(now);
	for (auto op = plan.next(); op != Op::Stop; op = plan.next())
		plan.done(op, (op == Op::Splice ? m.splice() : m.copy()) > 0, now);
}

}  // namespace

// At a steady rate of several pages a pass, splice() alone: no read()
// copies the writer's page, and no pass leaves a page the writer has left.
BOOST_AUTO_TEST_CASE(splice_plan_takes_whole_pages_at_a_steady_rate)
{
	kprof::SplicePlan plan(milliseconds(250));
	RingModel m(60);
	kprof::SplicePlan::Clock::time_point t{};
	for (int i = 0; i < 1000; i++, t += milliseconds(5)) {
		m.write(150);	// two and a half pages
		pass(plan, m, t);
		BOOST_TEST_REQUIRE(!m.whole_page_left());
	}
	BOOST_TEST(m.reads == 0);
	BOOST_TEST(m.written - m.taken <= 60);	// the writer's page, at most
}

// A quiet CPU's page is read once it has given nothing for the quiet
// time, not before; after that it is read each pass, as read() would.
BOOST_AUTO_TEST_CASE(splice_plan_reads_a_quiet_cpus_page)
{
	kprof::SplicePlan plan(milliseconds(250));
	RingModel m(60);
	kprof::SplicePlan::Clock::time_point t{};
	m.write(5);
	for (int i = 0; i < 24; i++, t += milliseconds(10))
		pass(plan, m, t);
	BOOST_TEST(m.taken == 0);	// 230 ms: still waiting for a whole page
	pass(plan, m, t += milliseconds(20));
	BOOST_TEST(m.taken == 5);
	BOOST_TEST(plan.partial());
	m.write(3);
	pass(plan, m, t += milliseconds(10));
	BOOST_TEST(m.taken == 8);
}

// Rates that change under the plan, a quiet stretch, a burst of many
// pages, a trickle, again and again, with random sizes: whatever the
// plan did before, no pass leaves a page the writer has left, every event
// is taken once (counted at the end), and bursts are spliced. Breaks if the rest of a page read in part is
// not read before splicing (splice() gives nothing: whole pages pile up).
BOOST_AUTO_TEST_CASE(splice_plan_is_never_stuck_behind_a_page_read_in_part)
{
	kprof::SplicePlan plan(milliseconds(250));
	RingModel m(60);
	kprof::SplicePlan::Clock::time_point t{};
	unsigned seed = 12345;
	auto rnd = [&](unsigned n) {
		seed = seed * 1103515245u + 12345u;
		return (seed >> 16) % n;
	};
	int bursts_spliced = 0;
	for (int round = 0; round < 200; round++) {
		const int kind = int(rnd(3));
		for (int i = 0; i < 40; i++, t += milliseconds(1 + rnd(20))) {
			const int splices = m.splices;
			m.write(kind == 0 ? 0 : kind == 1 ? int(rnd(4)) : int(60 + rnd(400)));
			const int before = m.reads;
			pass(plan, m, t);
			BOOST_TEST_REQUIRE(!m.whole_page_left());
			BOOST_TEST_REQUIRE(m.taken <= m.written);
			if (kind == 2 && i > 0)
				bursts_spliced += m.splices > splices && m.reads - before <= 2;
		}
	}
	BOOST_TEST(bursts_spliced > 1000);
	// The end: read() to the writer (the session's last drain).
	while (m.copy())
		;
	BOOST_TEST(m.taken == m.written);
}
