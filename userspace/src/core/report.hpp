// SPDX-License-Identifier: GPL-2.0
// The latency report: what was measured and what was lost, as text, JSON
// or CSV. Pure: built from numbers, renders strings.
#pragma once

#include "core/funcs.hpp"
#include "core/histogram.hpp"
#include "core/pagequeue.hpp"
#include "core/system.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// The percentiles every report gives, by name.
struct Percentile {
	double p;
	const char *name;
};
inline constexpr Percentile kPercentiles[] = {{50, "p50"}, {90, "p90"}, {99, "p99"}, {99.9, "p99.9"}};

struct ReportRow {
	std::string event;	// stat_label()
	std::string device;	// device, or the IRQ action's name (irq >= 0)
	int cpu = -1;		// -1: all CPUs
	const Histogram *hist = nullptr;
	int irq = -1;		// the IRQ, for the tracker's rows
};

// One IRQ action's wake requests and what became of them (kprofctl irq).
struct IrqRow {
	int irq = 0;
	std::string name;
	uint64_t handlers = 0, requests = 0, woken = 0, runs = 0, coalesced = 0, busy = 0, unserved = 0;
};

// A CPU's per_cpu/cpuN/stats of kprofctl's instance, or their movement.
struct RingStats {
	uint64_t entries = 0;		// events in the buffer, not yet read
	uint64_t overrun = 0;		// overwritten before they were read
	uint64_t commit_overrun = 0;	// lost while the writer wrapped mid-commit
	uint64_t dropped = 0;		// refused (when not overwriting)
	uint64_t read = 0;		// handed to readers
};

struct CpuLoss {
	int cpu = 0;
	uint64_t pages = 0;		// pages read
	uint64_t bad_pages = 0;		// pages whose header did not fit: not read
	uint64_t records = 0;		// records decoded: kprof, other and invalid
	uint64_t header_missed = 0;	// events lost, from page headers
	uint64_t lossy_pages = 0;	// pages flagged lost-events without a count
	RingStats ring;			// movement during the run; entries at the end

	// One page read: whether it was bad, its records, and what its header
	// says was lost before it (> 0 the count, < 0 a loss without one).
	void add_page(bool bad, uint64_t recs, int64_t missed)
	{
		pages++;
		bad_pages += bad;
		records += recs;
		if (missed > 0)
			header_missed += uint64_t(missed);
		else if (missed < 0)
			lossy_pages++;
	}
	// Records the ring buffer says it handed over that were not decoded.
	uint64_t unaccounted() const { return ring.read > records ? ring.read - records : 0; }
	// Every event this CPU's buffer took and kprofctl did not decode.
	uint64_t lost() const;
};

// One (device, event): the events read against those kprof.ko emitted
// while kprofctl was collecting (kprof/<dev>/emitted readings after the
// events were enabled and before they were disabled: the seq window).
struct CrossCheck {
	std::string device;
	std::string event;
	uint64_t read = 0;	// events read with seq in the window
	uint64_t emitted = 0;	// the window's size
	uint64_t gaps = 0;	// seq values missing between the first and last read
	uint64_t not_read() const { return emitted > read ? emitted - read : 0; }
};

// The program a run collected around (-- PROGRAM ARGS), and how it ended.
struct WorkloadEnd {
	std::vector<std::string> command;
	int status = 0;			// its exit status, or 128 + the signal that killed it, as a shell's $?
	int signal = 0;			// the signal that killed it; 0 if it exited
	bool ended_by_kprofctl = false;	// still running when the window closed: kprofctl sent SIGTERM
};

struct Report {
	std::string title = "latency";	// "kprof <title> report"
	double duration_s = 0;
	double cpu_s = 0;		// kprofctl's own CPU time over the collection window
	std::string unit = "us";
	uint64_t divisor = 1000;	// ns per unit
	bool show_hist = false;
	bool per_cpu = false;
	std::vector<ReportRow> rows;
	std::vector<CpuLoss> loss;
	// Streaming: the queue between the reading and the decoding thread.
	std::optional<QueueFigures> reader_queue;
	uint64_t events_read = 0;
	uint64_t invalid = 0;		// records that did not decode
	uint64_t other = 0;		// records of other event systems
	uint64_t unpaired = 0;		// thread runs with no IRQ to pair (module counter)
	uint64_t filtered = 0;		// excluded by --device/-e
	bool counters = false;		// the module's counters could be read
	bool checked = false;		// the seq cross-check applies
	std::string check_note;		// why it does not, if it does not
	std::vector<CrossCheck> checks;
	std::vector<IrqRow> irqs;	// kprofctl irq: per IRQ action
	nlohmann::json threshold;	// kprofctl irq -T: the analyses (JSON); null without
	// latency --in-kernel: kprof.ko's histograms, no ring buffer. Then
	// events_read counts the samples read, and overflow those of 2^36 ns
	// or more (binned with the max).
	bool in_kernel = false;
	uint64_t overflow = 0;
	// irq --in-kernel: samples of IRQ actions kprof.ko had no histogram
	// slot for on their CPU (girq_agg_slots): lost to the statistics.
	uint64_t untracked = 0;
	// kprofctl func: each function's calls (their untracked ones are in
	// untracked above), and the online CPUs, for the share of CPU time.
	std::vector<FuncCounts> funcs;
	unsigned cpus = 0;
	// The system during the window (PSI, interrupts, vmstat); none for a
	// report of a recorded file.
	std::optional<SystemContext> system;
	std::optional<WorkloadEnd> workload;

	uint64_t buffer_lost() const;	// Σ CpuLoss::lost()
	uint64_t not_read() const;	// Σ CrossCheck::not_read() + gaps outside windows
	uint64_t untimed_calls() const;	// Σ of funcs' calls lost but untracked
	uint64_t total_missed() const;	// max(buffer_lost, not_read) + untracked + untimed_calls
	bool lost_anything() const;	// any loss, invalid record, bad or lossy page
};

// "./load 2, exited with status 3", "sleep 60, killed by SIGTERM (...), status 143".
std::string describe(const WorkloadEnd &w);

// kprofctl's exit status for a report: the workload's, if it ran one.
inline int exit_status(const Report &r)
{
	return r.workload ? r.workload->status : 0;
}

// Parse per_cpu/cpuN/stats; missing lines count as 0.
RingStats parse_ring_stats(const std::string &text);
// b - a, except entries, which is b's.
RingStats ring_delta(const RingStats &a, const RingStats &b);

// The histograms' bucket layout, as the JSON report states it beside
// each row's buckets ([[index, count], ...]), for kprofctl diff to check.
nlohmann::json bucket_layout();

// "pktproc-q0", or "24 kprof_pktproc" for an IRQ's row.
std::string row_name(const ReportRow &row);

// A statistic for a text table: 1234, 56.7 or 8.90.
std::string fmt(double v);

std::string render_text(const Report &r);
nlohmann::json render_json(const Report &r);
// JSON text, indented, with bytes that are not UTF-8 (a task name cut at
// 15 bytes in the middle of a character) replaced by U+FFFD, not thrown on.
std::string dump_json(const nlohmann::json &j);
std::string render_csv(const Report &r);

}  // namespace kprof
