// SPDX-License-Identifier: GPL-2.0
// The report's JSON shape, loss accounting and the aggregation behind it.
#define BOOST_TEST_MODULE kprof_report
#include <boost/test/unit_test.hpp>

#include "core/aggregate.hpp"
#include "core/counters.hpp"
#include "core/report.hpp"

#include <fstream>
#include <iterator>

using namespace kprof;

namespace {

Sample sample(EventKind k, uint32_t dev, int cpu, uint64_t v, uint32_t aux = 0, uint64_t seq = 1)
{
	return Sample{k, dev, cpu, 0, v, aux, -1, seq};
}

}  // namespace

BOOST_AUTO_TEST_CASE(aggregation_by_event_device_and_cpu)
{
	Aggregator agg({std::nullopt, {}, true, {}});
	const std::map<std::string, std::vector<std::string>> spans = {{"nic0", {"packet"}}};
	for (int i = 1; i <= 10; i++)
		agg.add(sample(EventKind::Batch, 0, i % 2, 1000 * i), "nic0", spans);
	agg.add(sample(EventKind::Span, 0, 0, 500, 0), "nic0", spans);
	agg.add(sample(EventKind::Span, 1, 1, 700, 3), "nic1", spans);	// unnamed span id
	BOOST_TEST(agg.totals().size() == 3u);
	BOOST_TEST(agg.totals().at({"batch", "nic0", -1}).count() == 10u);
	BOOST_TEST(agg.totals().at({"span:packet", "nic0", -1}).max() == 500u);
	BOOST_TEST(agg.totals().at({"span:3", "nic1", -1}).count() == 1u);
	BOOST_TEST(agg.per_cpu().at({"batch", "nic0", -1, 0}).count() == 5u);
	BOOST_TEST(agg.per_cpu().at({"batch", "nic0", -1, 1}).min() == 1000u);
	BOOST_TEST(agg.seqs().at({"kprof_batch", "nic0"}).count == 10u);
}

BOOST_AUTO_TEST_CASE(filters_count_what_they_drop)
{
	// --device nic1 -e irq_handler: a batch event left enabled in the
	// instance (kprofctl enable) is no row of the report.
	Aggregator agg({std::string("nic1"), {EventKind::IrqHandler}, false, {}});
	const std::map<std::string, std::vector<std::string>> none;
	agg.add(sample(EventKind::IrqHandler, 0, 1, 10), "nic0", none);	// other device
	agg.add(sample(EventKind::Batch, 1, 0, 10), "nic1", none);	// other event
	agg.add(sample(EventKind::IrqHandler, 1, 1, 10), "nic1", none);
	BOOST_TEST(agg.filtered_out() == 2u);
	BOOST_TEST_REQUIRE(agg.totals().size() == 1u);
	BOOST_TEST((agg.totals().begin()->first == Aggregator::Key{"irq_handler", "nic1", -1}));
	BOOST_TEST(agg.seqs().size() == 3u);	// the cross-check sees all
	BOOST_TEST(agg.per_cpu().empty());
}

// The seq window: events emitted between the two kprof/<dev>/emitted
// readings must all be read; one missing is counted, exactly.
BOOST_AUTO_TEST_CASE(seq_window_counts_exactly)
{
	Aggregator agg({std::nullopt, {}, false, {}});
	const std::map<std::string, std::vector<std::string>> none;
	agg.window_open({{"nic0", {{"kprof_batch", 10}}}});
	agg.add(sample(EventKind::Batch, 0, 0, 5, 1, 9), "nic0", none);	// before the window
	for (uint64_t seq = 11; seq <= 20; seq++)
		if (seq != 15)
			agg.add(sample(EventKind::Batch, 0, seq % 2, 5, 1, seq), "nic0", none);
	const Aggregator::Emitted e0 = {{"nic0", {{"kprof_batch", 10}, {"kprof_span", 3}}}};
	const Aggregator::Emitted e1 = {{"nic0", {{"kprof_batch", 20}, {"kprof_span", 3}}}};
	agg.window_close(e1);
	agg.add(sample(EventKind::Batch, 0, 0, 5, 1, 21), "nic0", none);	// after it
	const auto &t = agg.seqs().at({"kprof_batch", "nic0"});
	BOOST_TEST(t.count == 11u);
	BOOST_TEST(t.in_window == 9u);
	BOOST_TEST(t.gaps() == 2u);	// 10 and 15

	const std::set<std::string> all = {"kprof_batch", "kprof_span"};
	auto checks = cross_checks(agg, all, std::nullopt, &e0, &e1);
	BOOST_TEST_REQUIRE(checks.size() == 1u);	// kprof_span: nothing emitted, nothing read
	BOOST_TEST(checks[0].read == 9u);
	BOOST_TEST(checks[0].emitted == 10u);
	BOOST_TEST(checks[0].not_read() == 1u);
	BOOST_TEST(cross_checks(agg, {"kprof_span"}, std::nullopt, &e0, &e1).empty());
	BOOST_TEST(cross_checks(agg, all, std::string("nic9"), &e0, &e1).empty());
	// Without debugfs: the span of seq values read, 9..21.
	checks = cross_checks(agg, all, std::nullopt, nullptr, nullptr);
	BOOST_TEST_REQUIRE(checks.size() == 1u);
	BOOST_TEST(checks[0].emitted == 13u);
	BOOST_TEST(checks[0].not_read() == 2u);

	Report r;
	r.checked = true;
	r.checks = checks;
	BOOST_TEST(r.lost_anything());
	BOOST_TEST(r.total_missed() == 2u);
	const std::string text = render_text(r);
	BOOST_TEST(text.find("2 NOT READ") != std::string::npos);
	BOOST_TEST(text.find("expected") == std::string::npos);
}

// Slots are told apart by device, kind, IRQ and CPU whatever their
// numbers: device 256 on CPU 0 is not device 0 on CPU 1 (a packed key let
// them share a slot).
BOOST_AUTO_TEST_CASE(many_devices_and_cpus_keep_their_slots)
{
	Aggregator agg({std::nullopt, {}, false, {}});
	const std::map<std::string, std::vector<std::string>> none;
	for (uint32_t dev = 0; dev < 600; dev += 1)
		for (int cpu = 0; cpu < 4; cpu++) {
			Sample s = sample(EventKind::GirqHandler, dev, cpu, 100 + dev);
			s.irq = 5;
			agg.add(s, "irq" + std::to_string(dev), none);
		}
	BOOST_TEST(agg.totals().size() == 600u);
	for (const auto &[key, h] : agg.totals()) {
		BOOST_TEST_INFO(std::get<1>(key));
		BOOST_TEST(h.count() == 4u);
		BOOST_TEST(h.min() == 100 + std::stoull(std::get<1>(key).substr(3)));
	}
	BOOST_TEST(agg.seqs().size() == 4u);	// tracker seqs count per CPU
}

// A device whose first event is read after the window closed (the events
// still in the buffers are drained then): its window ends at the closing
// reading too, so an event after it cannot stand in for one lost in it.
BOOST_AUTO_TEST_CASE(seq_window_of_a_device_first_read_after_the_close)
{
	Aggregator agg({std::nullopt, {}, false, {}});
	const std::map<std::string, std::vector<std::string>> none;
	const Aggregator::Emitted e0 = {{"nic1", {{"kprof_batch", 10}}}};
	const Aggregator::Emitted e1 = {{"nic1", {{"kprof_batch", 12}}}};
	agg.window_open(e0);
	agg.window_close(e1);
	agg.add(sample(EventKind::Batch, 0, 0, 5, 1, 11), "nic1", none);	// 12 is lost
	agg.add(sample(EventKind::Batch, 0, 0, 5, 1, 13), "nic1", none);	// after the window
	const auto checks = cross_checks(agg, {"kprof_batch"}, std::nullopt, &e0, &e1);
	BOOST_TEST_REQUIRE(checks.size() == 1u);
	BOOST_TEST(checks[0].read == 1u);
	BOOST_TEST(checks[0].emitted == 2u);
	BOOST_TEST(checks[0].not_read() == 1u);
}

BOOST_AUTO_TEST_CASE(json_shape)
{
	Histogram h;
	for (uint64_t v : {1000, 2000, 3000, 40000})
		h.record(v);
	Report r;
	r.duration_s = 2.5;
	r.rows.push_back({"irq_thread_latency", "nic0", -1, &h});
	r.rows.push_back({"irq_thread_latency", "nic0", 1, &h});
	r.loss.resize(2);
	r.loss[0].cpu = 0;
	r.loss[0].pages = 10;
	r.loss[1].cpu = 1;
	r.loss[1].pages = 12;
	r.loss[1].header_missed = 5;
	r.loss[1].lossy_pages = 1;
	r.loss[1].ring.overrun = 6;
	r.loss[1].ring.commit_overrun = 1;
	r.events_read = 4;
	r.counters = true;
	r.checked = true;
	r.checks.push_back({"nic0", "kprof_irq_thread_latency", 4, 4, 0});
	r.show_hist = true;
	const auto j = render_json(r);

	BOOST_TEST(j.at("duration_s").get<double>() == 2.5);
	BOOST_TEST(j.at("percentile_relative_error").get<double>() <= 0.01);
	const auto &s = j.at("stats");
	BOOST_TEST_REQUIRE(s.size() == 2u);
	BOOST_TEST(s[0].at("event") == "irq_thread_latency");
	BOOST_TEST(s[0].at("device") == "nic0");
	BOOST_TEST(s[0].at("cpu").is_null());
	BOOST_TEST(s[1].at("cpu") == 1);
	BOOST_TEST(s[0].at("count") == 4);
	BOOST_TEST(s[0].at("min_ns") == 1000);
	BOOST_TEST(s[0].at("max_ns") == 40000);
	BOOST_TEST(s[0].at("mean_ns").get<double>() == 11500.0);
	for (const char *p : {"p50", "p90", "p99", "p99.9"})
		BOOST_TEST(s[0].at("percentiles_ns").contains(p));
	BOOST_TEST(s[0].at("histogram").is_array());
	BOOST_TEST(!s[1].contains("histogram"));	// only on all-CPU rows

	const auto &loss = j.at("loss");
	BOOST_TEST(loss.at("events_read") == 4);
	// Page headers (5) and overrun + commit overrun (7) see the same losses.
	BOOST_TEST(loss.at("missed_total") == 7);
	BOOST_TEST(loss.at("buffer_lost") == 7);
	BOOST_TEST(loss.at("not_read") == 0);
	BOOST_TEST(loss.at("lost") == true);
	BOOST_TEST(loss.at("per_cpu").size() == 2u);
	BOOST_TEST(loss.at("per_cpu")[1].at("lossy_pages") == 1);
	for (const char *k : {"invalid", "other", "filtered", "unpaired"})
		BOOST_TEST(loss.contains(k));
	BOOST_TEST(j.at("cross_check")[0].at("emitted") == 4);
	BOOST_TEST(j.at("cross_check")[0].at("not_read") == 0);
	r.checked = false;
	BOOST_TEST(render_json(r).at("cross_check").is_null());
	BOOST_TEST(!loss.contains("reader_queue"));	// none: not a streaming run
}

// The queue between the reading and decoding threads, as reports show it.
BOOST_AUTO_TEST_CASE(reader_queue_in_json_and_text)
{
	Report r;
	r.loss.resize(1);
	r.reader_queue = kprof::QueueFigures{2 << 20, 106496, 3};
	const auto q = render_json(r).at("loss").at("reader_queue");
	BOOST_TEST(q.at("limit_bytes") == 2 << 20);
	BOOST_TEST(q.at("high_water_bytes") == 106496);
	BOOST_TEST(q.at("waits") == 3);
	BOOST_TEST(q.at("reader") == "read");
	BOOST_TEST(!q.contains("spliced_pages"));
	BOOST_TEST(render_text(r).find("pages queued for decoding (read): at most 104 of 2048 KiB, 3 waits for room\n") !=
		   std::string::npos);
	r.reader_queue->reader = kprof::ReaderWay::Mmap;
	BOOST_TEST(render_json(r).at("loss").at("reader_queue").at("reader") == "mmap");
	BOOST_TEST(render_text(r).find("pages queued for decoding (mmap): at most") != std::string::npos);
	// splice() says how many pages it took whole and read() copied.
	r.reader_queue->reader = kprof::ReaderWay::Splice;
	r.reader_queue->spliced = 1200;
	r.reader_queue->copied = 34;
	const auto s = render_json(r).at("loss").at("reader_queue");
	BOOST_TEST(s.at("reader") == "splice");
	BOOST_TEST(s.at("spliced_pages") == 1200);
	BOOST_TEST(s.at("copied_pages") == 34);
	BOOST_TEST(render_text(r).find("pages queued for decoding (splice: 1200 whole, 34 copied by read()): at most") !=
		   std::string::npos);
}

// KPROFCTL_READER's names, one way each, both ways round.
BOOST_AUTO_TEST_CASE(reader_names)
{
	for (auto w : {kprof::ReaderWay::Mmap, kprof::ReaderWay::Splice, kprof::ReaderWay::Read})
		BOOST_TEST((kprof::reader_way(kprof::reader_name(w)) == w));
	BOOST_TEST(std::string(kprof::reader_name(kprof::ReaderWay::Splice)) == "splice");
	BOOST_TEST(!kprof::reader_way("mapped").has_value());
	BOOST_TEST(!kprof::reader_way("").has_value());
}

BOOST_AUTO_TEST_CASE(loss_is_loud_in_text)
{
	Histogram h;
	h.record(5);
	Report r;
	r.rows.push_back({"batch", "nic0", -1, &h});
	r.loss.resize(1);
	r.loss[0].pages = 1;
	r.loss[0].records = 3;
	r.loss[0].ring.read = 3;
	BOOST_TEST(!r.lost_anything());
	BOOST_TEST(render_text(r).find("WARNING") == std::string::npos);
	r.loss[0].lossy_pages = 1;	// a flagged loss without a count still counts
	BOOST_TEST(r.lost_anything());
	BOOST_TEST(render_text(r).find("WARNING: events were lost") != std::string::npos);
	r.loss[0].lossy_pages = 0;
	r.invalid = 1;
	BOOST_TEST(r.lost_anything());
	r.invalid = 0;
	// Every other way a CPU's buffer can lose is a loss too.
	for (auto member : {&RingStats::overrun, &RingStats::commit_overrun, &RingStats::dropped, &RingStats::entries}) {
		r.loss[0].ring.*member = 2;
		BOOST_TEST(r.buffer_lost() == 2u);
		r.loss[0].ring.*member = 0;
	}
	r.loss[0].ring.read = 5;	// the buffer handed over 5 records, 3 decoded
	BOOST_TEST(r.loss[0].unaccounted() == 2u);
	BOOST_TEST(r.lost_anything());
	r.loss[0].ring.read = 3;
	r.loss[0].bad_pages = 1;
	BOOST_TEST(r.lost_anything());
}

// Numbers a kernel file should never hold: a clean runtime_error, not
// std::stoull's invalid_argument (which kprofctl would take for a usage
// error). The fuzzer's crasher (tests/fuzz/crashers/text: its first byte picked
// this parser) among them.
BOOST_AUTO_TEST_CASE(kernel_numbers)
{
	std::ifstream f(KPROF_FIXTURES "/../../fuzz/crashers/text/ring_stats-stoull", std::ios::binary);
	const std::string crasher((std::istreambuf_iterator<char>(f)), {});
	BOOST_REQUIRE(crasher.size() > 1);
	BOOST_CHECK_THROW(parse_ring_stats(crasher.substr(1)), std::runtime_error);
	for (const char *bad : {"entries: x\n", "overrun: \n", "read events: 99999999999999999999999\n", "entries: 3 4\n"})
		BOOST_CHECK_THROW(parse_ring_stats(bad), std::runtime_error);
	BOOST_TEST(kernel_u64("18446744073709551615", "") == UINT64_MAX);
	BOOST_CHECK_THROW(parse_counters("irqs: -1\n"), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(ring_stats_file)
{
	const std::string text =
		"entries: 3\noverrun: 120\ncommit overrun: 2\nbytes: 4000\noldest event ts: 1.0\n"
		"now ts: 2.0\ndropped events: 7\nread events: 55\n";
	const RingStats s = parse_ring_stats(text);
	BOOST_TEST(s.entries == 3u);
	BOOST_TEST(s.overrun == 120u);
	BOOST_TEST(s.commit_overrun == 2u);
	BOOST_TEST(s.dropped == 7u);
	BOOST_TEST(s.read == 55u);
	const RingStats d = ring_delta({1, 100, 1, 0, 50}, s);
	BOOST_TEST(d.entries == 3u);	// the end's, not a difference
	BOOST_TEST(d.overrun == 20u);
	BOOST_TEST(d.commit_overrun == 1u);
	BOOST_TEST(d.dropped == 7u);
	BOOST_TEST(d.read == 5u);
}

BOOST_AUTO_TEST_CASE(csv_rows_and_units)
{
	Histogram h;
	h.record(1500);
	Report r;
	r.unit = "us";
	r.divisor = 1000;
	r.rows.push_back({"span:packet", "nic,0", -1, &h});
	const std::string csv = render_csv(r);
	BOOST_TEST(csv.find("event,device,cpu,count,min_us,mean_us,stddev_us,p50_us,p90_us,p99_us,p99.9_us,max_us\n") == 0u);
	BOOST_TEST(csv.find("span:packet,\"nic,0\",all,1,1.500,1.500,0.000,1.500,1.500,1.500,1.500,1.500\n") !=
		   std::string::npos);
}

// Numbers in fixed point to the nanosecond, never in the stream's six
// significant digits ("1.2503e+06" with -u ns).
BOOST_AUTO_TEST_CASE(csv_numbers_are_fixed_point)
{
	Histogram h;
	h.record(1250300);
	h.record(1250302);
	Report r;
	r.unit = "ns";
	r.divisor = 1;
	r.rows.push_back({"batch", "nic", -1, &h});
	std::string csv = render_csv(r);
	BOOST_TEST(csv.find("e+") == std::string::npos);
	BOOST_TEST(csv.find("batch,nic,all,2,1250300,1250301,1,") != std::string::npos, csv);
	r.unit = "ms";
	r.divisor = 1000000;
	csv = render_csv(r);
	BOOST_TEST(csv.find("batch,nic,all,2,1.250300,1.250301,0.000001,") != std::string::npos, csv);
}

// Device rows and tracker rows in one report: the irq column stays, empty
// for the devices, so that two IRQs of one name stay apart.
BOOST_AUTO_TEST_CASE(csv_keeps_the_irq_column_for_mixed_rows)
{
	Histogram h;
	h.record(1000);
	Report r;
	r.rows.push_back({"irq_handler", "pktproc-q0", -1, &h});
	r.rows.push_back({"entry_to_running", "eth0", -1, &h, 30});
	r.rows.push_back({"entry_to_running", "eth0", -1, &h, 31});
	const std::string csv = render_csv(r);
	BOOST_TEST(csv.rfind("event,irq,name,cpu,", 0) == 0u, csv);
	BOOST_TEST(csv.find("\nirq_handler,,pktproc-q0,all,1,") != std::string::npos, csv);
	BOOST_TEST(csv.find("\nentry_to_running,30,eth0,all,1,") != std::string::npos, csv);
	BOOST_TEST(csv.find("\nentry_to_running,31,eth0,all,1,") != std::string::npos, csv);
}

// A task name cut in the middle of a UTF-8 character (-T puts them in the
// JSON) is replaced, not the whole report lost to an exception.
BOOST_AUTO_TEST_CASE(json_survives_names_that_are_not_utf8)
{
	Histogram h;
	h.record(1000);
	Report r;
	r.rows.push_back({"batch", "nic\xc3", -1, &h});
	r.threshold = nlohmann::json{{"task", "kworker/\xe2\x82"}};
	std::string text;
	BOOST_REQUIRE_NO_THROW(text = dump_json(render_json(r)));
	BOOST_TEST(text.find("nic\xef\xbf\xbd") != std::string::npos);
	BOOST_TEST(text.find("kworker/\xef\xbf\xbd") != std::string::npos);
	BOOST_TEST(nlohmann::json::parse(text)["stats"][0]["device"] == "nic\xef\xbf\xbd");
}

// What the tracker cannot measure is said: run probes, nested probe, both;
// nothing while detached (its probe lines say 0 then) or with all probes.
BOOST_AUTO_TEST_CASE(tracker_probe_notes)
{
	const auto note = [](uint64_t attached, uint64_t run, uint64_t nested) {
		return tracker_probe_note(
			parse_counters("attached: " + std::to_string(attached) + "\nrun_probes: " + std::to_string(run) +
				       "\nnested_probe: " + std::to_string(nested) + "\n"));
	};
	BOOST_TEST(note(1, 1, 1).empty());
	BOOST_TEST(note(0, 0, 0).empty());
	BOOST_TEST(note(1, 0, 1).find("no entry_to_running") != std::string::npos);
	BOOST_TEST(note(1, 0, 1).find("nested") == std::string::npos);
	BOOST_TEST(note(1, 1, 0).find("handle_nested_irq()") != std::string::npos);
	BOOST_TEST(note(1, 1, 0).find("run probes") == std::string::npos);
	BOOST_TEST(note(1, 0, 0).find("; ") != std::string::npos);
	BOOST_TEST(tracker_probe_note(parse_counters("attached: 1\n")).empty());	// an older kprof.ko
}

BOOST_AUTO_TEST_CASE(counters_file)
{
	const std::string text = "cpu irqs thread_runs spans\n0 3 2 1\n1 4 4 0\nirqs: 7\nthread_runs: 6\nspans: 1\n";
	const auto c = parse_counters(text);
	BOOST_TEST(c.at("irqs") == 7u);
	BOOST_TEST(c.at("thread_runs") == 6u);
	BOOST_TEST(c.size() == 3u);
	BOOST_CHECK_THROW(parse_counters("cpu irqs\nirqs: x\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_counters("cpu irqs\ngarbage\n"), std::runtime_error);
	const auto d = counters_delta({{"irqs", 5}, {"spans", 9}}, {{"irqs", 7}, {"spans", 2}, {"new", 3}});
	BOOST_TEST(d.at("irqs") == 2u);
	BOOST_TEST(d.at("spans") == 2u);	// reset in between: counted from 0
	BOOST_TEST(d.at("new") == 3u);
}

// --device filters the unpaired thread runs too.
BOOST_AUTO_TEST_CASE(counter_movement_by_device)
{
	const DeviceCounters c0 = {{"nic0", {{"unpaired_runs", 1}}}, {"nic1", {{"unpaired_runs", 5}}}};
	const DeviceCounters c1 = {{"nic0", {{"unpaired_runs", 4}}}, {"nic1", {{"unpaired_runs", 6}}}, {"nic2", {}}};
	BOOST_TEST(counter_moved(c0, c1, "unpaired_runs", std::nullopt) == 4u);
	BOOST_TEST(counter_moved(c0, c1, "unpaired_runs", std::string("nic0")) == 3u);
	BOOST_TEST(counter_moved(c0, c1, "unpaired_runs", std::string("nic1")) == 1u);
	BOOST_TEST(counter_moved(c0, c1, "unpaired_runs", std::string("nic2")) == 0u);
}

namespace {

Sample girq(EventKind k, uint32_t name, int irq, int cpu, uint64_t v, uint32_t aux, uint64_t seq)
{
	Sample s{k, name, cpu, 0, v, aux, -1, seq};
	s.irq = irq;
	return s;
}

}  // namespace

// The tracker's rows are per (interval, IRQ, action name); its seqs count
// per CPU, and the tally says what became of every wake request.
BOOST_AUTO_TEST_CASE(tracker_rows_seqs_and_tally)
{
	Aggregator agg({std::nullopt, {}, true, {}});
	const std::map<std::string, std::vector<std::string>> none;
	// IRQ 24 "nic": 4 handler runs, 3 wake requests; one woke the thread,
	// whose run served it and one more (coalesced=1); the third found the
	// thread in that run (busy), and the run that serves it had not come
	// when the collection ended (unserved). IRQ 4 "ttyS0": the same name
	// under another number would be another row.
	agg.window_open({{"cpu0", {{"kprof_girq_handler", 0}}}, {"cpu1", {{"kprof_girq_thread", 7}}}});
	agg.add(girq(EventKind::GirqHandler, 0, 24, 0, 900, 1, 1), "nic", none);
	for (uint64_t seq = 2; seq <= 4; seq++)
		agg.add(girq(EventKind::GirqHandler, 0, 24, 0, 1000 * seq, kIrqWakeThread, seq), "nic", none);
	agg.add(girq(EventKind::GirqWake, 0, 24, 0, 3000, 0, 1), "nic", none);
	agg.add(girq(EventKind::GirqThread, 0, 24, 1, 40000, 1, 8), "nic", none);
	// A busy run of another IRQ's thread.
	Sample busy = girq(EventKind::GirqThread, 0, 26, 1, 9000, 0, 9);
	busy.flag = true;
	agg.add(busy, "pmic", none);
	agg.add(girq(EventKind::GirqHandler, 1, 4, 1, 500, 1, 1), "ttyS0", none);
	agg.add(girq(EventKind::GirqHandler, 0, 25, 0, 500, 1, 5), "nic", none);

	BOOST_TEST(agg.totals().at({"handler", "nic", 24}).count() == 4u);
	BOOST_TEST(agg.totals().at({"handler", "nic", 24}).max() == 4000u);
	BOOST_TEST(agg.totals().at({"handler", "nic", 25}).count() == 1u);
	BOOST_TEST(agg.totals().at({"entry_to_running", "nic", 24}).min() == 40000u);
	BOOST_TEST(agg.per_cpu().at({"entry_to_running", "nic", 24, 1}).count() == 1u);
	// Seqs per CPU, across IRQs: cpu0's handler events 1..5 have no gap.
	BOOST_TEST(agg.seqs().at({"kprof_girq_handler", "cpu0"}).count == 5u);
	BOOST_TEST(agg.seqs().at({"kprof_girq_handler", "cpu0"}).gaps() == 0u);
	BOOST_TEST(agg.seqs().at({"kprof_girq_thread", "cpu1"}).lo == 7u);
	const auto &t = agg.irqs().at({24, "nic"});
	BOOST_TEST(t.handlers == 4u);
	BOOST_TEST(t.requests == 3u);
	BOOST_TEST(t.woken == 1u);
	BOOST_TEST(t.runs == 1u);
	BOOST_TEST(t.coalesced == 1u);
	BOOST_TEST(t.busy == 0u);
	BOOST_TEST(t.unserved() == 1u);
	BOOST_TEST(agg.irqs().at({26, "pmic"}).busy == 1u);
	BOOST_TEST(agg.irqs().at({4, "ttyS0"}).requests == 0u);
}

// --irq takes numbers and names; other IRQs are filtered (and counted)
// but still checked for loss.
BOOST_AUTO_TEST_CASE(irq_filter_by_number_or_name)
{
	BOOST_TEST(irq_wanted({}, 3, "ttyS1"));
	BOOST_TEST(irq_wanted({"3"}, 3, "ttyS1"));
	BOOST_TEST(irq_wanted({"ttyS1"}, 3, "ttyS1"));
	BOOST_TEST(!irq_wanted({"4", "ttyS0"}, 3, "ttyS1"));
	BOOST_TEST(!irq_wanted({"33"}, 3, "ttyS1"));

	Aggregator agg({std::nullopt, {}, false, {"ttyS1"}});
	const std::map<std::string, std::vector<std::string>> none;
	agg.add(girq(EventKind::GirqHandler, 0, 3, 0, 100, 2, 1), "ttyS1", none);
	agg.add(girq(EventKind::GirqHandler, 1, 4, 0, 100, 2, 2), "ttyS0", none);
	BOOST_TEST(agg.totals().size() == 1u);
	BOOST_TEST(agg.irqs().size() == 1u);
	BOOST_TEST(agg.filtered_out() == 1u);
	BOOST_TEST(agg.seqs().at({"kprof_girq_handler", "cpu0"}).count == 2u);
}

BOOST_AUTO_TEST_CASE(irq_report_json_names_the_irq)
{
	Histogram h;
	h.record(1500);
	Report r;
	r.title = "irq";
	r.rows.push_back({"entry_to_running", "ttyS1", -1, &h, 3});
	r.irqs.push_back({3, "ttyS1", 10, 8, 5, 5, 1, 1, 2});
	const auto j = render_json(r);
	BOOST_TEST(j["stats"][0]["irq"] == 3);
	BOOST_TEST(j["stats"][0]["name"] == "ttyS1");
	BOOST_TEST(!j["stats"][0].contains("device"));
	BOOST_TEST(j["stats"][0]["percentiles_ns"].contains("p99.9"));
	BOOST_TEST(j["irqs"][0]["busy"] == 1);
	BOOST_TEST(j["irqs"][0]["unserved"] == 2);
	const std::string text = render_text(r);
	BOOST_TEST(text.find("kprof irq report") != std::string::npos);
	BOOST_TEST(text.find("3 ttyS1") != std::string::npos);
	BOOST_TEST(render_csv(r).rfind("event,irq,name,cpu,", 0) == 0);
	BOOST_TEST(render_csv(r).find("entry_to_running,3,ttyS1,all,1,") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(girq_emitted_parses_and_refuses_garbage)
{
	const auto e = parse_girq_emitted("cpu0 kprof_girq_handler 12\ncpu1 kprof_girq_thread 3\n");
	BOOST_TEST(e.at("cpu0").at("kprof_girq_handler") == 12u);
	BOOST_TEST(e.at("cpu1").at("kprof_girq_thread") == 3u);
	BOOST_CHECK_THROW(parse_girq_emitted("cpu0 kprof_girq_handler\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_girq_emitted("cpu0 kprof_girq_handler 1 2\n"), std::runtime_error);
	BOOST_CHECK_THROW(parse_girq_emitted("x kprof_girq_handler 1\n"), std::runtime_error);
}

// --irq against the kernel's actions: a name no action has is refused, a
// number without an action is only noted, shared IRQs match any of theirs.
BOOST_AUTO_TEST_CASE(irq_selection_against_the_actions)
{
	const std::map<int, std::vector<std::string>> actions = {
		{4, {"ttyS0"}}, {24, {"kprof_pktproc"}}, {30, {"eth0", "eth0-tx"}}, {31, {}}};
	auto sel = check_irq_selection({"24", "ttyS0", "eth0-tx", "30"}, actions);
	BOOST_TEST(sel.unknown_names.empty());
	BOOST_TEST(sel.idle_numbers.empty());
	sel = check_irq_selection({"nosuch", "31", "99", "eth"}, actions);
	BOOST_TEST(sel.unknown_names == (std::vector<std::string>{"nosuch", "eth"}), boost::test_tools::per_element());
	BOOST_TEST(sel.idle_numbers == (std::vector<std::string>{"31", "99"}), boost::test_tools::per_element());
}

// The program of -- PROGRAM ARGS: named with how it ended, in text and
// JSON, and its status is kprofctl's.
BOOST_AUTO_TEST_CASE(program_and_exit_status)
{
	Report r;
	BOOST_TEST(exit_status(r) == 0);
	BOOST_TEST(render_json(r).count("program") == 0u);
	r.workload = WorkloadEnd{{"sh", "-c", "exit 3"}, 3, 0, false};
	BOOST_TEST(exit_status(r) == 3);
	BOOST_TEST(render_text(r).find("program: sh -c exit 3, exited with status 3\n") != std::string::npos,
		   render_text(r));
	auto j = render_json(r);
	BOOST_TEST(j.at("program").at("status") == 3);
	BOOST_TEST(j.at("program").at("signal").is_null());
	BOOST_TEST(j.at("program").at("command").size() == 3u);
	r.workload = WorkloadEnd{{"sleep", "60"}, 143, 15, true};
	BOOST_TEST(exit_status(r) == 143);
	BOOST_TEST(describe(*r.workload) ==
		   "sleep 60, killed by SIGTERM (still running when the window closed: kprofctl ended it), status 143");
	j = render_json(r);
	BOOST_TEST(j.at("program").at("signal") == 15);
	BOOST_TEST(j.at("program").at("ended_by_kprofctl") == true);
}

// A function's nested calls and depth in text and JSON; "-" and null
// where the kernel hides them (5.10), never a made-up 0.
BOOST_AUTO_TEST_CASE(func_nesting_shown_or_unknown)
{
	Report r;
	r.duration_s = 2;
	r.cpus = 2;
	FuncCounts known;
	known.name = "pktproc_rx_one";
	known.calls = known.timed = 10;
	known.nested = 2;
	known.depth = 2;
	FuncCounts hidden;
	hidden.name = "pktproc_poll";
	r.funcs = {known, hidden};
	const std::string text = render_text(r);
	BOOST_TEST(text.find("NESTED DEPTH\n") != std::string::npos, text);
	BOOST_TEST(text.find("         2     2\n") != std::string::npos, text);
	BOOST_TEST(text.find("         -     -\n") != std::string::npos, text);
	const auto j = render_json(r).at("functions");
	BOOST_TEST(j.at(0).at("nested") == 2);
	BOOST_TEST(j.at(0).at("max_depth") == 2);
	BOOST_TEST(j.at(1).at("nested").is_null());
	BOOST_TEST(j.at(1).at("max_depth").is_null());
}
