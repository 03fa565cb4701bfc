// SPDX-License-Identifier: GPL-2.0
#include "cli/cli.hpp"

#include "core/diff.hpp"
#include "core/events.hpp"
#include "core/export.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <type_traits>

namespace kprof {

namespace {

// Thrown when no subcommand was given: usage on stderr, exit 2.
class NoCommand : public CLI::ParseError {
public:
	NoCommand() : CLI::ParseError("NoCommand", "a subcommand is required", CLI::ExitCodes::RequiredError) {}
};

const auto kNameCheck = CLI::Validator(
	[](std::string &s) { return valid_name(s) ? std::string() : "'" + s + "' is not a valid name ([A-Za-z0-9_.-])"; },
	"");	// no description: --help shows the type name

// An output file: its directory must exist, checked before collecting.
const auto kOutputFile = CLI::Validator(
	[](std::string &s) {
		const auto dir = std::filesystem::path(s).parent_path();
		std::error_code ec;
		if (s.empty() || std::filesystem::is_directory(s, ec))
			return "'" + s + "' is not a file name";
		return dir.empty() || std::filesystem::is_directory(dir, ec)
			       ? std::string()
			       : "no directory '" + dir.string() + "' for " + s;
	},
	"");

// A check that @parse accepts the value: CLI11 then names the option in
// the error ("--duration: bad duration '10x': ...").
template <class F>
CLI::Validator parses(F parse)
{
	return CLI::Validator(
		[parse](std::string &s) {
			try {
				parse(s);
				return std::string();
			} catch (const std::invalid_argument &e) {
				return std::string(e.what());
			}
		},
		"");
}
const auto kDuration = parses([](const std::string &s) { parse_duration(s); });
const auto kCpuList = parses([](const std::string &s) { parse_cpu_list(s); });

// A --prometheus file that exists must be one kprofctl wrote: its counters
// go on from there. Checked before collecting.
const auto kPrometheusFile = CLI::Validator(
	[](std::string &s) {
		std::ifstream in(s);
		if (!in)
			return std::string();
		std::ostringstream text;
		text << in.rdbuf();
		try {
			parse_prometheus(text.str());
			return std::string();
		} catch (const std::runtime_error &e) {
			return s + ": " + e.what() + " (not a file of kprofctl's; remove it to start the counters over)";
		}
	},
	"");

// The collecting commands' workload form, for their --help.
const char *const kProgramHelp =
	"With -- PROGRAM [ARGS...] after the options, kprofctl runs PROGRAM once the window is open and\n"
	"ends the window when it exits (or at -d, or on Ctrl-C: if it still runs then, kprofctl sends it SIGTERM), as perf\n"
	"does; the report names it and how it ended, and kprofctl exits with its status (a shell's: 128 +\n"
	"the signal if one killed it), unless irq -T's threshold was hit (2). E.g.\n"
	"  kprofctl func -m mydrv -- ./run-traffic.sh 10";

void add_instance(CLI::App *cmd, std::string &dest)
{
	cmd->add_option("--instance", dest, "tracefs instance to use (default: kprof)")
		->check(kNameCheck)
		->type_name("NAME");
}

}  // namespace

bool valid_name(const std::string &s)
{
	if (s.empty() || s == "." || s == ".." || s.size() > 64)
		return false;
	return std::all_of(s.begin(), s.end(), [](char c) {
		return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
	});
}

Cli::Cli() : app_{"kprofctl: control kprof tracepoints and report driver latency", "kprofctl"}
{
	app_.require_subcommand(0, 1);
	app_.failure_message([](const CLI::App *, const CLI::Error &e) {
		return "kprofctl: " + std::string(e.what()) + "\nRun with --help for more information.\n";
	});
	app_.add_flag("-V,--version", version_, "print kprofctl's version and exit");
	app_.footer("kprofctl needs root (or write access to tracefs and debugfs), tracefs and kprof.ko loaded;\n"
		    "'list --all' does without kprof.ko; 'report' and 'diff' read files and need none of these.\n"
		    "Exit status: 0 ok, 1 runtime error (diff: a --fail-if rule hit), 2 usage error (irq -T: a\n"
		    "threshold hit).\n"
		    "Run 'kprofctl COMMAND --help' for a command's options.");

	status_cmd_ = app_.add_subcommand("status", "show kprof.ko, its devices, which instances trace kprof events, buffer sizes");
	status_cmd_->add_flag("--json", status_.json, "print JSON instead of text");

	list_cmd_ = app_.add_subcommand("list", "list the kprof events (or with --all every event) the kernel offers");
	list_cmd_->add_flag("--fields", list_.fields, "also list each event's fields (type, name, offset, size)");
	list_cmd_->add_flag("--all", list_.all, "every event system, not only kprof");

	auto event_args = [](CLI::App *cmd, std::vector<std::string> &dest) {
		cmd->add_option("EVENT", dest, "SYSTEM:EVENT or EVENT; globs allowed, e.g. 'kprof:*' (quote them)")
			->required()
			->type_name("EVENT");
	};
	enable_cmd_ = app_.add_subcommand("enable", "enable events in the instance; the setting persists there");
	event_args(enable_cmd_, enable_.events);
	enable_cmd_->add_option("--filter", enable_.filter,
				"kernel event filter for each matched event, e.g. 'delta_ns > 100000'")
		->type_name("FILTER");
	add_instance(enable_cmd_, enable_.instance);

	disable_cmd_ = app_.add_subcommand("disable", "disable events in the instance and clear their filters");
	disable_.enable = false;
	event_args(disable_cmd_, disable_.events);
	add_instance(disable_cmd_, disable_.instance);

	latency_cmd_ = app_.add_subcommand("latency", "collect kprof latency events and report their statistics");
	latency_cmd_->add_option("-e,--event", latency_.events,
				 "kprof event(s) to collect (default: all): " + event_labels())
		->take_all()
		->type_name("EVENT");
	add_collect_options(latency_cmd_, latency_, latency_raw_);
	latency_cmd_->add_option("--device", latency_.device, "only this kprof device")->check(kNameCheck)->type_name("NAME");
	auto *ik = latency_cmd_->add_flag("--in-kernel", latency_.in_kernel,
					  "aggregate in kprof.ko instead of streaming events: no ring buffer, "
					  "nothing lost at any rate, constant memory");
	for (const char *o : {"--buffer-size", "--cpus", "--instance"})
		ik->excludes(latency_cmd_->get_option(o));
	latency_cmd_->footer(
		"Every report accounts for lost events: the ring buffer's own figures per CPU, and per device\n"
		"the events read against those kprof.ko emitted while collecting (the events' seq field).\n"
		"With --in-kernel, kprof.ko keeps the histograms itself (kprof/aggregate in debugfs), per CPU,\n"
		"in kprofctl's bucket layout: count, min, max, mean and percentiles are the ones streaming\n"
		"would report for the same samples; stddev is within 0.1 % of the max. No event is emitted,\n"
		"so none can be lost, and the cost does not depend on the event rate.\n"
		"Streaming maps the ring buffers on kernels from 6.10 and takes pages with the mapping's ioctl;\n"
		"elsewhere it takes whole pages with splice(), and reads a CPU's partial page when it gave no\n"
		"whole one for 250 ms. KPROFCTL_READER=mmap|splice|read in the environment chooses (read: read()\n"
		"alone); the report says which.\n"
		"Ctrl-C (or SIGTERM, SIGHUP) stops and reports; a second one abandons the report. Either way\n"
		"the instance is restored. A killed run is cleaned up by the next one (records in\n"
		"$KPROFCTL_STATE_DIR, /run/kprofctl or /tmp/kprofctl).");

	irq_cmd_ = app_.add_subcommand("irq", "IRQ-to-thread latency of any driver's IRQs, no instrumentation needed");
	irq_cmd_->add_option("--irq", irq_.irqs, "only this IRQ: its number or its name in /proc/interrupts (repeatable)")
		->take_all()
		->check(CLI::Validator(
			[](std::string &s) {
				return !s.empty() && s.find_first_of(" \t\n") == std::string::npos
					       ? std::string()
					       : "'" + s + "' is not an IRQ number or name";
			},
			""))
		->type_name("N|NAME");
	add_collect_options(irq_cmd_, irq_, irq_raw_);
	auto *thr = irq_cmd_->add_option("-T,--threshold", threshold_,
					 "analyse every entry_to_running above this (e.g. 200us, 1ms; a bare number "
					 "is in us, as rtla's -T): what ran between the hard IRQ and the thread; "
					 "exit status 2 if any")
		->check(parses([](const std::string &v) { parse_duration(v, std::chrono::microseconds(1)); }))
		->type_name("DURATION");
	irq_cmd_->add_option("--on-threshold", on_threshold_, "stop (default) or continue after the first hit")
		->check(CLI::IsMember({"stop", "continue"}))
		->type_name("MODE")
		->needs(thr);
	irq_cmd_->add_option("-t,--trace", irq_.trace_file, "write the irq and sched events around each hit to FILE")
		->type_name("FILE")
		->needs(thr);
	irq_cmd_->add_option("--context-budget", irq_.context_budget_kb,
			     "memory for -T's irq and sched events, in KiB, shared equally by the CPUs (default "
			     "262144: 256 MiB); past its share a CPU keeps less than the 2 s of context, and the "
			     "report says so")
		->check(CLI::Validator(CLI::Range(1u, 64u * 1024 * 1024)).description(""))
		->type_name("KiB")
		->needs(thr);
	auto *irq_ik = irq_cmd_->add_flag("--in-kernel", irq_.in_kernel,
					  "aggregate in kprof.ko instead of streaming events: no ring buffer, "
					  "nothing lost at any rate, constant memory");
	for (const char *o : {"--buffer-size", "--cpus", "--instance", "--threshold"})
		irq_ik->excludes(irq_cmd_->get_option(o));
	irq_cmd_->footer(
		"kprof.ko attaches to the kernel's irq and sched tracepoints and to the IRQ core's thread\n"
		"functions (kprobes) while this runs, and measures for each IRQ action: the hard handler's\n"
		"duration (handler); for a threaded IRQ whose handler asked for its thread, hard-IRQ entry to\n"
		"the thread's wakeup if it was waiting (entry_to_woken), and to the start of the thread's run\n"
		"that serves the IRQ (entry_to_running). IRQs are threaded on PREEMPT_RT, with the threadirqs\n"
		"boot parameter, or when the driver used request_threaded_irq(). Per IRQ, requests that found\n"
		"one pending are COALESCED into its run; those that found the thread in a run of its handler\n"
		"(one that sleeps in its thread, or still running) are BUSY, served by the next run.\n"
		"Rows of their own, marked in the name: NAME (forced) is a forced-threaded action's hard part\n"
		"(threadirqs, PREEMPT_RT) and its thread; NAME (forced handler) the driver's handler timed in\n"
		"that thread, and the secondary thread irq/N-s-NAME that runs its thread function; NAME (nested)\n"
		"a child IRQ of handle_nested_irq() (interrupt controllers on I2C or SPI), from its parent's\n"
		"hard-IRQ entry.\n"
		"Losses are accounted as in 'latency': the ring buffer's figures and, per CPU, the events read\n"
		"against those kprof.ko emitted (kprof/girq_emitted in debugfs).\n"
		"With -T, the irq and sched events are collected too (more events, a bigger buffer may be\n"
		"needed), and each hit is analysed after the report, like rtla timerlat --aa: the hard IRQs,\n"
		"softirqs and tasks on the IRQ's CPU and the thread's CPU in between, whether the thread was\n"
		"woken and waiting or not woken yet, and the largest culprit. Exit status 2 if any hit.\n"
		"With --in-kernel, kprof.ko keeps the histograms itself (kprof/girq_aggregate in debugfs), per\n"
		"CPU and IRQ action, for up to girq_agg_slots actions per CPU (a kprof.ko parameter, default 8):\n"
		"samples of actions beyond them are counted and reported as lost. The wake-request table\n"
		"needs the events, so it is only printed when streaming.");
	report_cmd_ = app_.add_subcommand("report", "the latency report of a file 'trace-cmd record -e kprof' wrote");
	report_cmd_->add_option("-i,--input", report_.input, "the trace-cmd data file (trace.dat)")
		->required()
		->check(CLI::Validator(CLI::ExistingFile).description(""))
		->type_name("FILE");
	report_cmd_->add_option("-e,--event", report_.events, "kprof event(s) to report (default: all): " + event_labels())
		->take_all()
		->type_name("EVENT");
	report_cmd_->add_option("--device", report_.device, "only this kprof device")->check(kNameCheck)->type_name("NAME");
	add_report_options(report_cmd_, report_, report_raw_);
	report_cmd_->add_option("-c,--cpus", report_raw_.cpus, "only events recorded on these CPUs, e.g. 0-1,3")
		->type_name("CPUS");
	report_cmd_->footer(
		"Reads the file through libtracecmd, on any machine: record on the board with\n"
		"  trace-cmd record -e kprof [-b KiB] -o trace.dat\n"
		"and report here. Losses are what the file shows: the events the ring buffer dropped before\n"
		"each page (trace-cmd's missed events) and gaps in each device's seq numbers. Spans are\n"
		"labelled by id (span:0): their names live in the board's debugfs, not in the file.");

	add_top();
	add_func();
	add_diff();

	for (auto *cmd : {latency_cmd_, irq_cmd_, func_cmd_})
		cmd->footer(cmd->get_footer() + "\n" + kProgramHelp);

	counters_cmd_ = app_.add_subcommand("counters", "show kprof's per-device counters from debugfs");
	counters_cmd_->add_flag("--json", counters_.json, "print JSON");
	counters_cmd_->add_flag("--reset", counters_.reset, "zero the counters and histograms after showing them");
	counters_cmd_->add_option("--device", counters_.device, "only this kprof device")->check(kNameCheck)->type_name("NAME");
}

void Cli::add_top()
{
	std::vector<std::string> labels;
	for (const auto &e : kEvents)
		if (e.source == Source::Device)
			labels.emplace_back(e.label);
	top_cmd_ = app_.add_subcommand("top", "a live view of every kprof device's latency (or of IRQs, or of functions), "
					      "refreshed each interval");
	top_cmd_->add_option("-d,--duration", top_duration_, "how long to run (default: until q or Ctrl-C)")
		->type_name("DURATION")
		->check(kDuration);
	top_cmd_->add_option("--interval", top_interval_, "how often to refresh (default: 1s; at least 100ms)")
		->check(kDuration)
		->type_name("DURATION");
	top_cmd_->add_option("-e,--event", top_.events, "only these events: " + event_labels())
		->take_all()
		->check(CLI::IsMember(labels))
		->type_name("EVENT");
	auto *dev = top_cmd_->add_option("--device", top_.device, "only this kprof device")->check(kNameCheck)->type_name("NAME");
	auto *irq = top_cmd_->add_flag("--irq", top_.irq,
				       "every IRQ action's latency from the IRQ tracker, as 'kprofctl irq --in-kernel' "
				       "measures it");
	auto *fn = top_cmd_->add_option("--func", top_.functions,
					"these functions' call latency, as 'kprofctl func' measures it (repeatable)")
			   ->take_all()
			   ->type_name("FUNCTION");
	auto *mod = top_cmd_->add_option("-m,--module", top_.module, "every function of this loaded module")
			    ->check(kNameCheck)
			    ->type_name("MODULE");
	top_cmd_->add_option("--match", top_.match, "with -m, only the functions whose names match this glob")
		->type_name("GLOB")
		->needs(mod);
	for (auto *o : {fn, mod})
		o->excludes(irq);
	for (auto *o : {irq, fn, mod}) {
		o->excludes(top_cmd_->get_option("--event"));
		o->excludes(dev);
	}
	top_cmd_->add_option("-u,--unit", top_.unit, "unit of the table: ns, us or ms (default: us)")
		->check(CLI::IsMember({"ns", "us", "ms"}))
		->type_name("UNIT");
	top_cmd_->footer(
		"Like rtla timerlat top: one line per device and event with the rate, and p50, p99 and max over\n"
		"the last interval and since the start (or the last reset). Keys: q quits, r resets the totals.\n"
		"It reads kprof.ko's in-kernel histograms (kprof/aggregate), which hold every sample: each\n"
		"interval they are frozen, read and started again. Samples that fall in those short read gaps\n"
		"are counted against kprof.ko's always-on totals (kprof/<dev>/latency) and shown as MISSED,\n"
		"never dropped silently. The terminal and the aggregation are restored on q, Ctrl-C, SIGTERM\n"
		"and SIGHUP, and the last table stays printed. When the output is not a terminal, each\n"
		"refresh is printed in turn, without escape sequences.\n"
		"With --irq, the IRQ tracker's histograms (kprof/girq_aggregate), one line per IRQ action and\n"
		"event; with --func or -m, kprof.ko's function probes (kprof/func), one line per function.\n"
		"Those are read while they aggregate, without pausing: each window is what the histograms\n"
		"gained since the last read, so there are no read gaps; what kprof.ko could not aggregate\n"
		"(no histogram slot, calls it could not time) is counted in the heading. E.g.\n"
		"  kprofctl top --irq\n"
		"  kprofctl top -m kprof_pktproc --match 'pktproc_*'");
}

void Cli::add_func()
{
	func_cmd_ = app_.add_subcommand("func", "calls and latency of kernel or module functions, no driver change");
	func_cmd_->add_option("FUNCTION", func_.functions, "functions to measure, as in /proc/kallsyms")
		->type_name("FUNCTION");
	func_cmd_->add_option("-m,--module", func_.module, "every function of this loaded module")
		->check(kNameCheck)
		->type_name("MODULE");
	func_cmd_->add_option("--match", func_.match, "with -m, only the functions whose names match this glob")
		->type_name("GLOB");
	func_cmd_->add_option("-d,--duration", func_raw_.duration,
			      "how long to measure: 10s, 500ms, 2m; a bare number is in seconds (default: until Ctrl-C)")
		->check(kDuration)
		->type_name("DURATION");
	add_report_options(func_cmd_, func_, func_raw_);
	add_window_options(func_cmd_, func_, func_raw_);
	func_cmd_->footer(
		"kprof.ko puts a kretprobe on each function for the run (kprof/func in debugfs) and keeps, per\n"
		"CPU, a histogram of the time from each call's entry to its return, in kprofctl's bucket layout:\n"
		"no ring buffer, nothing lost at any call rate. The report gives per function the calls that\n"
		"returned, their rate, their share of the CPUs' time (calls x mean over the window and the\n"
		"online CPUs) and the latency statistics; calls the kernel's probe could not time (more calls\n"
		"in flight than its instances, a probe hit inside another probe's handler, NMI) are reported\n"
		"as lost, exactly. A call's time includes what it waited for (a sleeping function) and the\n"
		"functions it called; a recursive call and its caller are each timed whole, and the calls\n"
		"nested in a call of the same function in the same task are counted (NESTED, DEPTH).\n"
		"Examples:\n"
		"  kprofctl func -d 10 pktproc_poll          one function for 10 s\n"
		"  kprofctl func -m kprof_pktproc -d 10      every function of a module\n"
		"  kprofctl func -m mydrv --match '*_irq*'   a module's functions that match a glob\n"
		"Functions that cannot be probed are named with the kernel's reason: not in /proc/kallsyms\n"
		"(inlined, or a typo), in the kprobes blacklist, or (x86) not traceable by ftrace. The probes\n"
		"go when kprofctl exits, however it exits.");
}

void Cli::add_diff()
{
	diff_cmd_ = app_.add_subcommand("diff", "compare two JSON reports row by row: what changed, and is it significant");
	for (auto *dest : {&diff_.before, &diff_.after})
		diff_cmd_->add_option(dest == &diff_.before ? "BEFORE" : "AFTER", *dest,
				      dest == &diff_.before ? "the report before the change (kprofctl ... --json > FILE)"
							    : "the report after it")
			->required()
			->check(CLI::ExistingFile.description(""))
			->type_name("FILE");
	diff_cmd_->add_option("--fail-if", diff_.fail_if,
			      "exit 1 if a row's METRIC is significantly slower and grew by more than this: "
			      "METRIC+N% or METRIC+DURATION, METRIC one of " + rule_metrics() + " "
			      "(e.g. p99+10%, mean+20us; repeatable)")
		->check(parses([](const std::string &v) { parse_rule(v); }))
		->type_name("RULE");
	diff_cmd_->add_option("--alpha", diff_.alpha,
			      "the chance of any false 'slower' or 'faster' in the whole diff (default 0.05)")
		->check(CLI::Validator(CLI::Range(1e-9, 0.5)).description(""))
		->type_name("P");
	diff_cmd_->add_flag("--per-cpu", diff_.per_cpu, "also compare the per-CPU rows (reports made with --per-cpu)");
	auto *json = diff_cmd_->add_flag("--json", diff_.json, "print JSON");
	diff_cmd_->add_option("-u,--unit", diff_.unit, "unit of the text: ns, us or ms (default: us)")
		->check(CLI::IsMember({"ns", "us", "ms"}))
		->type_name("UNIT")
		->excludes(json);
	diff_cmd_->add_option("--svg", diff_.svg, "also draw each row's two histograms on one log time axis to FILE")
		->check(kOutputFile)
		->type_name("FILE");
	diff_cmd_->footer(
		"Rows are matched by event, device (or IRQ action, or function) and CPU; rows in one report\n"
		"only are listed. Per row: count and rate, and for the mean and each percentile the change\n"
		"with its confidence interval, plus a Mann-Whitney U test of the two distributions, all\n"
		"computed from the reports' histograms (the buckets the JSON carries). Percentile intervals\n"
		"are distribution-free (rank bounds, combined as Price and Bonett do for a ratio of medians);\n"
		"the mean's is Welch's on the log scale. Every test is at alpha over the number of tests\n"
		"(Bonferroni). Exit status: 0 no --fail-if rule hit, 1 a rule hit (a significant regression\n"
		"past its threshold), 2 usage error or a file that is not a kprofctl JSON report.\n"
		"Example:\n"
		"  kprofctl func -d 10 pktproc_poll --json > before.json\n"
		"  (change the driver)\n"
		"  kprofctl func -d 10 pktproc_poll --json > after.json\n"
		"  kprofctl diff before.json after.json --fail-if p99+10% --svg diff.svg");
}

void Cli::finish_func()
{
	finish_collect(func_, func_raw_);
	if (func_.functions.empty() == !func_.module)
		throw CLI::ValidationError("func: name the FUNCTIONs or a module (-m), one or the other");
	if (func_.match != "*" && !func_.module)
		throw CLI::ValidationError("func: --match selects among a module's functions: add -m MODULE");
}

void Cli::finish_top()
{
	try {
		if (!top_duration_.empty())
			top_.duration = parse_duration(top_duration_);
		top_.interval = parse_duration(top_interval_);
		top_.divisor = parse_unit(top_.unit);
	} catch (const std::invalid_argument &e) {
		throw CLI::ValidationError(e.what());
	}
	if (top_.interval < std::chrono::milliseconds(100))
		throw CLI::ValidationError("--interval: at least 100ms, not " + top_interval_);
	if (top_.module && !top_.functions.empty())
		throw CLI::ValidationError("top: --func names functions, -m takes a module's: one or the other");
}

// How a report looks: what collecting and reading a file share.
void Cli::add_report_options(CLI::App *cmd, CollectOptions &o, RawCollect &)
{
	cmd->add_flag("--per-cpu", o.per_cpu, "also report each CPU separately");
	cmd->add_flag("--hist", o.hist, "add a histogram per row");
	auto *json = cmd->add_flag("--json", o.json, "print JSON");
	cmd->add_option("-o,--output", o.output,
			"write the report to FILE instead of standard output (written when the run ends; the "
			"progress line stays on the terminal)")
		->check(kOutputFile)
		->type_name("FILE");
	cmd->add_option("--save", o.save,
			"also write the report as JSON to FILE, whatever the format printed: what kprofctl diff "
			"compares")
		->check(kOutputFile)
		->type_name("FILE");
	cmd->add_flag("--csv", o.csv, "print CSV (statistics only; the loss summary goes to stderr)")->excludes(json);
	cmd->add_option("-u,--unit", o.unit, "unit of the report: ns, us or ms (default: us)")
		->check(CLI::IsMember({"ns", "us", "ms"}))
		->type_name("UNIT");
	cmd->add_option("--svg", o.svg,
			"also draw each event's histogram on a log time axis, p50/p99/p99.9/max marked, to FILE (SVG)")
		->check(kOutputFile)
		->type_name("FILE");
	cmd->add_option("--prometheus", o.prometheus,
			"also add the histograms and the loss counters to the counters in FILE, in Prometheus' text "
			"format for node_exporter's textfile collector: each run adds to what the last one wrote, so "
			"rate() and histogram_quantile() work across runs (written to FILE.tmp, then renamed)")
		->check(kOutputFile)
		->check(kPrometheusFile)
		->type_name("FILE");
	// The old name wrote per-run numbers typed as counters, in a format
	// that is not OpenMetrics: refused with the new name, not reinterpreted.
	cmd->add_option("--openmetrics", o.prometheus)
		->check(CLI::Validator([](std::string &) { return std::string("renamed --prometheus, whose counters add up across runs"); }, ""))
		->group("");
}

void Cli::add_collect_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw)
{
	cmd->add_option("-d,--duration", raw.duration,
			"how long to collect: 10s, 500ms, 2m; a bare number is in seconds, as rtla's -d "
			"(default: until Ctrl-C)")
		->check(kDuration)
		->type_name("DURATION");
	add_report_options(cmd, o, raw);
	cmd->add_option("-c,--cpus", raw.cpus, "only events recorded on these CPUs, e.g. 0-1,3")
		->check(kCpuList)
		->type_name("CPUS");
	cmd->add_option("-b,--buffer-size", o.buffer_kb, "per-CPU ring buffer of the instance, in KiB (1 to 4194304)")
		->check(CLI::Validator(CLI::Range(1u, 4u * 1024 * 1024)).description(""))
		->type_name("KiB");
	add_instance(cmd, o.instance);
	add_window_options(cmd, o, raw);
}

void Cli::add_window_options(CLI::App *cmd, CollectOptions &o, RawCollect &raw)
{
	cmd->add_option("--dma-latency", o.dma_latency_us,
			"hold /dev/cpu_dma_latency at US microseconds while measuring, as cyclictest and rtla do "
			"(0: no deep C-state), so that C-state exit is not taken for driver latency")
		->check(CLI::Validator(CLI::Range(0u, 2000000000u)).description(""))
		->type_name("US");
	cmd->add_option("-P,--priority", raw.priority,
			"kprofctl's own scheduling while it collects, as rtla's -P: f:N (SCHED_FIFO), r:N (SCHED_RR) "
			"or o:N (SCHED_OTHER at nice N); a program after -- keeps the default")
		->check(parses([](const std::string &v) { parse_priority(v); }))
		->type_name("PRIO");
}

void Cli::finish_collect(CollectOptions &o, const RawCollect &raw)
{
	try {
		if (!raw.duration.empty())
			o.duration = parse_duration(raw.duration);
		if (!raw.cpus.empty())
			o.cpus = parse_cpu_list(raw.cpus);
		if (!raw.priority.empty())
			o.priority = parse_priority(raw.priority);
		o.divisor = parse_unit(o.unit);
	} catch (const std::invalid_argument &e) {
		throw CLI::ValidationError(e.what());
	}
}

Command Cli::parse(const std::vector<std::string> &args)
{
	// "-- PROGRAM ARGS" is the collecting commands' workload: CLI11 sees
	// what comes before it only, in reverse order, as it consumes a vector.
	const auto dash = std::find(args.begin(), args.end(), "--");
	std::vector<std::string> rev(std::make_reverse_iterator(dash), args.rend());
	app_.parse(rev);
	Command cmd = parsed();
	if (dash == args.end())
		return cmd;
	const std::vector<std::string> program(dash + 1, args.end());
	if (program.empty())
		throw CLI::ValidationError("--: name the PROGRAM to run after it");
	std::visit(
		[&](auto &o) {
			using T = std::decay_t<decltype(o)>;
			if constexpr (std::is_same_v<T, LatencyOptions> || std::is_same_v<T, IrqOptions> ||
				      std::is_same_v<T, FuncOptions>)
				o.command = program;
			else
				throw CLI::ValidationError("-- PROGRAM: only latency, irq and func run a program");
		},
		cmd);
	return cmd;
}

Command Cli::parsed()
{
	if (version_)
		return VersionRequest{};
	if (status_cmd_->parsed())
		return status_;
	if (list_cmd_->parsed())
		return list_;
	if (enable_cmd_->parsed())
		return enable_;
	if (disable_cmd_->parsed())
		return disable_;
	if (counters_cmd_->parsed())
		return counters_;
	if (top_cmd_->parsed()) {
		finish_top();
		return top_;
	}
	if (latency_cmd_->parsed()) {
		finish_collect(latency_, latency_raw_);
		return latency_;
	}
	if (report_cmd_->parsed()) {
		finish_collect(report_, report_raw_);
		return report_;
	}
	if (func_cmd_->parsed()) {
		finish_func();
		return func_;
	}
	if (diff_cmd_->parsed()) {
		diff_.divisor = parse_unit(diff_.unit);
		return diff_;
	}
	if (irq_cmd_->parsed()) {
		finish_collect(irq_, irq_raw_);
		try {
			if (!threshold_.empty())
				irq_.threshold = parse_duration(threshold_, std::chrono::microseconds(1));
		} catch (const std::invalid_argument &e) {
			throw CLI::ValidationError(e.what());
		}
		irq_.keep_going = on_threshold_ == "continue";
		return irq_;
	}
	throw NoCommand();
}

int Cli::exit(const CLI::ParseError &e, std::ostream &out, std::ostream &err)
{
	if (dynamic_cast<const NoCommand *>(&e)) {
		err << app_.help();
		return 2;
	}
	// CLI11 prints the help text, or the error (failure_message) with a
	// pointer to --help.
	return app_.exit(e, out, err) == 0 ? 0 : 2;
}

}  // namespace kprof
