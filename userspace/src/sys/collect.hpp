// SPDX-License-Identifier: GPL-2.0
// Collecting kprof events in kprofctl's own instance, for latency and irq:
// a Plan (what to collect, checked against the machine before anything
// changes) and a Session (the instance set up, the events read, every loss
// counted). The commands turn what it collected into a Report.
#pragma once

#include "core/aggregate.hpp"
#include "cli/options.hpp"
#include "core/counters.hpp"
#include "core/decoder.hpp"
#include "core/inkernel.hpp"
#include "sys/instance.hpp"
#include "core/pace.hpp"
#include "core/pagequeue.hpp"
#include "core/report.hpp"
#include "core/tep.hpp"
#include "sys/window.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace kprof {

struct Plan {
	Source source = Source::Device;		// whose events
	std::vector<std::string> context;	// other events to collect ("sched/sched_switch")
	std::string tdir;
	std::set<std::string> events;		// tracepoint names
	std::set<EventKind> kinds;		// the same, as kinds
	std::vector<int> cpus;			// the CPUs read
	bool some_cpus = false;			// -c: tracing_cpumask restricts them
	std::optional<std::string> dbg;		// kprof's debugfs, if there is one
	std::map<std::string, std::vector<std::string>> span_names;
};

// An in-kernel aggregation switch (kprof/aggregate, kprof/girq_aggregate)
// turned on for one run: on (zeroed) at construction, frozen for reading,
// off (freed) at destruction, also on errors and signals. The switch stays
// open meanwhile: kprof.ko refuses every other file's writes while this
// one owns it, so a second run fails at its start with the holder's pid,
// instead of zeroing or freeing this run's histograms.
class Aggregation {
public:
	explicit Aggregation(const std::string &file);
	Aggregation(const Aggregation &) = delete;
	Aggregation &operator=(const Aggregation &) = delete;
	~Aggregation();
	void freeze() { set(AggState::Frozen); }
	// On again, with fresh zeroed histograms (kprofctl top's next window).
	void restart() { set(AggState::On); }

private:
	void set(AggState s);
	std::string file_;
	int fd_ = -1;
};

// kprof.ko's function probes for one run (kprof/func): a session that
// lives as long as its open file, so that the kernel removes the probes
// however kprofctl ends.
class FuncProbes {
public:
	explicit FuncProbes(const std::string &dbg);
	FuncProbes(const FuncProbes &) = delete;
	FuncProbes &operator=(const FuncProbes &) = delete;
	~FuncProbes();
	// Probe @name: 0, or the errno the kernel refused it with.
	int add(const std::string &name);
	void start() { command("start"); }
	// Returns once no probe adds a sample: the histograms are final.
	void stop() { command("stop"); }
	std::string read() const;

private:
	void command(const std::string &cmd);
	std::string path_;
	int fd_ = -1;
};

// The machine checks every plan makes (root, tracefs, kprof.ko, -c) and
// the debugfs directory. Throws UsageError for a CPU that does not exist.
Plan base_plan(Source source, const CollectOptions &opts);

// Everything a collection saw, for the loss accounting.
struct Collected {
	std::vector<CpuLoss> loss;		// pages, records, page headers
	std::vector<RingStats> ring0, ring1;
	std::optional<DeviceCounters> counters0, counters1;
	std::optional<Aggregator::Emitted> e0, e1;
	uint64_t events = 0, invalid = 0, other = 0;
	QueueFigures queue;			// between the reading and decoding threads
	Window::End window;
	std::string note;			// something the report should say
};

// Sees a collection's records besides the aggregator (the threshold
// analysis) and may end it early.
class Watcher {
public:
	virtual ~Watcher() = default;
	virtual void sample(const Sample &s, const std::string &name) = 0;
	// A record of a Plan::context event; valid during the call only.
	virtual void other(const OtherRecord &r) = 0;
	// Every CPU has been drained once more.
	virtual void pass_done() = 0;
	// The collection window opened (the tracker attached, the events on)
	// at this CLOCK_MONOTONIC time; what happened before is setup.
	virtual void window_open(uint64_t mono_ns) = 0;
	// Asked by the reading thread: the answer must be safe to read there
	// (an atomic); the other calls come from the decoding thread.
	virtual bool stop() const = 0;
};

// The instance set up for one collection, its readers and the decoder.
// Collecting takes two threads: the caller's reads pages off the per-CPU
// buffers and queues them (PageQueue); a decoding thread decodes and
// aggregates them, and alone touches the aggregator, the decoder's state,
// the watcher (but its stop()) and the collection's counts.
class Session {
public:
	// @watcher, if any, must outlive the session.
	Session(const Plan &plan, const CollectOptions &opts, Watcher *watcher = nullptr);
	~Session();
	Session(const Session &) = delete;
	Session &operator=(const Session &) = delete;
	Collected collect(const CollectOptions &opts, Aggregator &agg);
	tep_handle *tep() const { return tep_.get(); }

private:
	// What the decoding thread does with a queued item besides decoding
	// it (PageQueue::Item::mark).
	enum Mark : uint32_t { kPage = 0, kPassDone, kWindowClose };
	std::optional<Aggregator::Emitted> read_emitted() const;
	std::optional<DeviceCounters> read_counters() const;
	void switch_events(const char *on);
	void wait_attached(Collected &c);
	void read_window(const CollectOptions &opts, Aggregator &agg, Collected &c);
	void start_decoding(const CollectOptions &opts, Aggregator &agg, Collected &c);
	void decode_loop(const CollectOptions &opts, Aggregator &agg, Collected &c);
	void stop_decoding();
	void queue_mark(Mark m);
	enum class Drain { Pass, All, Flush };
	// What one drain read: the most bytes of records from one CPU, and
	// whether a CPU's reading stopped at kPassPages.
	struct Drained {
		uint64_t busiest = 0;
		bool capped = false;
	};
	Drained drain(Drain how);
	static ReaderWay wanted_reader();
	PageRead read_page(size_t i, Drain how);
	PageRead take_mapped(size_t i, RingMap &map, Drain how);
	PageRead take_spliced(size_t i);
	PageRead queue_page(size_t i, std::vector<uint8_t> &&buf, size_t n, bool partial_ok);
	void consume(const PageQueue::Item &it, Aggregator &agg, Collected &c);
	void progress(std::chrono::steady_clock::duration elapsed) const;
	void wait_for_data(std::chrono::steady_clock::duration most);
	uint64_t buffer_bytes() const;

	// How the reading loop paces itself (pacer_, wait_for_data()).
	static constexpr std::chrono::milliseconds kIdleWait{1000}, kWatchedWait{100}, kProgressEvery{500};
	// A pass reads the CPUs kRoundPages at a time, each at most kPassPages.
	static constexpr size_t kRoundPages = 16, kPassPages = 256;
	static constexpr PassPace kPace{};
	// The queue holds as much as the instance's buffers together, within
	// these bounds: a burst the decoder lags behind costs memory first.
	static constexpr uint64_t kQueueMin = 1 << 20, kQueueMax = 256 << 20;
	// The decoding thread's name (15 characters at most).
	static constexpr const char *kDecoderThread = "kprof-decode";
	// How the buffers are taken (reader_name(): "mmap", the default, falls
	// back to "splice" where the kernel has no mapping).
	static constexpr const char *kReaderEnv = "KPROFCTL_READER";
	// A CPU that gave no whole page for this long has its writer's page
	// read (SplicePlan).
	static constexpr std::chrono::milliseconds kQuiet{250};

	const Plan &plan_;
	TepPtr tep_;
	Decoder decoder_;
	Instance inst_;
	std::vector<std::unique_ptr<CpuReader>> readers_;
	// Where a mapped buffer's reader page was handed out up to: its id and
	// the bytes of records (take_mapped()).
	struct MapCursor {
		uint32_t id = 0;
		uint64_t done = 0;
	};
	// The reading thread's state of each reader's taking.
	struct Taking {
		MapCursor cursor;
		SplicePlan plan{kQuiet};
	};
	std::vector<Taking> taking_;
	uint64_t spliced_ = 0, copied_ = 0;	// pages of ReaderWay::Splice readers
	std::vector<Sample> samples_;		// the decoding thread's
	Watcher *watcher_;
	uint64_t buffer_bytes_ = 0;		// the smallest per-CPU buffer
	Pacer pacer_{0};
	bool woke_on_data_ = false;
	std::unique_ptr<PageQueue> queue_;
	std::thread decoding_;
	std::exception_ptr decode_error_;	// the decoding thread's, read after the join
	// The decoding thread's counts, for the progress line.
	std::atomic<uint64_t> shown_events_{0}, shown_missed_{0};
};

// The ring-buffer and seq-window accounting every report shares; @device
// narrows the cross-check (latency --device).
void account_loss(const Plan &plan, const Collected &c, const Aggregator &agg, const std::optional<std::string> &device,
		  Report &rep);

// One window of kprof.ko's in-kernel aggregation, switched by @file in
// kprof's debugfs (kAggregateFile, kGirqAggregateFile): on, with fresh
// histograms; after @opts' duration or a signal, frozen, when @read loads
// them into @ks; then off, also on errors and signals. Fills @rep's
// duration, CPU time and sample counts.
void in_kernel_window(const Plan &plan, const char *file, const CollectOptions &opts, KernelStats &ks, Report &rep,
		      const std::function<void()> &read);

// Print @rep as the options ask, with the loss warning on stderr for
// JSON and CSV.
void render(const CollectOptions &opts, const Report &rep);

// The report's presentation from @opts (unit, histograms, per CPU) and
// its rows: the histograms, each total followed by its CPUs.
void fill_rows(const CollectOptions &opts, const std::map<Aggregator::Key, Histogram> &totals,
	       const std::map<Aggregator::CpuKey, Histogram> &per_cpu, Report &rep);

}  // namespace kprof
