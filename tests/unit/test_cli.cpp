// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprofctl_cli
#include <boost/test/unit_test.hpp>

#include "cli/cli.hpp"

#include <sstream>

using kprof::Cli;

namespace {

// A command line and what its error message must say.
using UsageCase = std::pair<std::vector<std::string>, std::string>;

// Each command line is a usage error: exit 2, its message on stderr
// saying why.
void expect_usage_errors(const std::vector<UsageCase> &cases)
{
	for (const auto &[args, why] : cases) {
		Cli c;
		std::ostringstream out, err;
		try {
			c.parse(args);
			BOOST_ERROR("accepted: " << why);
		} catch (const CLI::ParseError &e) {
			BOOST_TEST(c.exit(e, out, err) == 2);
		}
		BOOST_TEST(err.str().find(why) != std::string::npos, err.str());
	}
}

}  // namespace

BOOST_AUTO_TEST_CASE(status_defaults)
{
	Cli cli;
	auto cmd = cli.parse({"status"});
	BOOST_REQUIRE(std::holds_alternative<kprof::StatusOptions>(cmd));
	BOOST_TEST(!std::get<kprof::StatusOptions>(cmd).json);
}

BOOST_AUTO_TEST_CASE(status_json)
{
	Cli cli;
	auto cmd = cli.parse({"status", "--json"});
	BOOST_TEST(std::get<kprof::StatusOptions>(cmd).json);
}

BOOST_AUTO_TEST_CASE(version_flag)
{
	Cli cli;
	BOOST_TEST(std::holds_alternative<kprof::VersionRequest>(cli.parse({"--version"})));
}

BOOST_AUTO_TEST_CASE(help_exits_zero_with_text_on_stdout)
{
	Cli cli;
	std::ostringstream out, err;
	try {
		cli.parse({"--help"});
		BOOST_FAIL("--help must throw");
	} catch (const CLI::ParseError &e) {
		BOOST_TEST(cli.exit(e, out, err) == 0);
	}
	BOOST_TEST(out.str().find("status") != std::string::npos);
	BOOST_TEST(err.str().empty());
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_two)
{
	const std::vector<std::vector<std::string>> bad = {
		{},                     // no subcommand
		{"frobnicate"},         // unknown subcommand
		{"status", "--bogus"},  // unknown option
	};
	for (const auto &args : bad) {
		Cli cli;
		std::ostringstream out, err;
		try {
			cli.parse(args);
			BOOST_FAIL("usage error not detected");
		} catch (const CLI::ParseError &e) {
			BOOST_TEST(cli.exit(e, out, err) == 2);
		}
		BOOST_TEST(!err.str().empty());
	}
}

BOOST_AUTO_TEST_CASE(latency_options)
{
	Cli cli;
	auto cmd = cli.parse({"latency", "-d", "500ms", "-c", "0,2-3", "--per-cpu", "--hist", "--json", "-u", "ms",
			      "--device", "pktproc-q0", "-b", "4096", "-e", "batch", "span", "--instance", "mine"});
	const auto &o = std::get<kprof::LatencyOptions>(cmd);
	BOOST_TEST(o.duration.count() == 500000000LL);
	BOOST_TEST((o.cpus == std::vector<int>{0, 2, 3}));
	BOOST_TEST(o.per_cpu);
	BOOST_TEST(o.hist);
	BOOST_TEST(o.json);
	BOOST_TEST(!o.csv);
	BOOST_TEST(o.divisor == 1000000u);
	BOOST_TEST(*o.device == "pktproc-q0");
	BOOST_TEST(o.buffer_kb == 4096u);
	BOOST_TEST((o.events == std::vector<std::string>{"batch", "span"}));
	BOOST_TEST(o.instance == "mine");
}

BOOST_AUTO_TEST_CASE(latency_defaults)
{
	Cli cli;
	auto cmd = cli.parse({"latency"});
		const auto &o = std::get<kprof::LatencyOptions>(cmd);
	BOOST_TEST(o.duration.count() == 0);	// until Ctrl-C
	BOOST_TEST(o.events.empty());
	BOOST_TEST(o.unit == "us");
	BOOST_TEST(o.instance == "kprof");
	BOOST_TEST(o.buffer_kb == 0u);
}

BOOST_AUTO_TEST_CASE(irq_options)
{
	Cli cli;
	auto cmd = cli.parse({"irq", "-d", "2s", "--irq", "3", "ttyS0", "-c", "1", "--per-cpu", "--csv", "-u", "ns",
			      "-b", "512"});
	const auto &o = std::get<kprof::IrqOptions>(cmd);
	BOOST_TEST(o.duration.count() == 2000000000LL);
	BOOST_TEST((o.irqs == std::vector<std::string>{"3", "ttyS0"}));
	BOOST_TEST((o.cpus == std::vector<int>{1}));
	BOOST_TEST(o.per_cpu);
	BOOST_TEST(o.csv);
	BOOST_TEST(o.divisor == 1u);
	BOOST_TEST(o.buffer_kb == 512u);
	BOOST_TEST(o.instance == "kprof");

	Cli cli3;
	const auto cmd3 = cli3.parse({"irq", "-T", "200us", "--on-threshold", "continue", "-t", "/tmp/hits.txt"});
	const auto &t = std::get<kprof::IrqOptions>(cmd3);
	BOOST_TEST_REQUIRE(t.threshold.has_value());
	BOOST_TEST(t.threshold->count() == 200000);
	BOOST_TEST(t.keep_going);
	BOOST_TEST(*t.trace_file == "/tmp/hits.txt");

	// rtla's units for bare numbers: -T 200 is 200 us, -d 3 is 3 s.
	const auto bare = std::get<kprof::IrqOptions>(Cli().parse({"irq", "-T", "200", "-d", "3"}));
	BOOST_TEST_REQUIRE(bare.threshold.has_value());
	BOOST_TEST(bare.threshold->count() == 200000);
	BOOST_TEST(bare.duration.count() == 3000000000LL);

	Cli cli2;
	const auto cmd2 = cli2.parse({"irq"});
	const auto &d = std::get<kprof::IrqOptions>(cmd2);
	BOOST_TEST(d.irqs.empty());
	BOOST_TEST(d.duration.count() == 0);
	BOOST_TEST(d.unit == "us");
	BOOST_TEST(!d.threshold.has_value());
	BOOST_TEST(!d.keep_going);
}

BOOST_AUTO_TEST_CASE(enable_disable_list_counters)
{
	{
		Cli cli;
		auto cmd = cli.parse({"enable", "kprof:*", "sched:sched_switch", "--filter", "delta_ns > 10"});
		const auto &o = std::get<kprof::EnableOptions>(cmd);
		BOOST_TEST(o.enable);
		BOOST_TEST(o.events.size() == 2u);
		BOOST_TEST(*o.filter == "delta_ns > 10");
	}
	{
		Cli cli;
		auto cmd = cli.parse({"disable", "kprof:*"});
		const auto &o = std::get<kprof::EnableOptions>(cmd);
		BOOST_TEST(!o.enable);
	}
	{
		Cli cli;
		auto cmd = cli.parse({"list", "--fields", "--all"});
		const auto &o = std::get<kprof::ListOptions>(cmd);
		BOOST_TEST(o.fields);
		BOOST_TEST(o.all);
	}
	{
		Cli cli;
		auto cmd = cli.parse({"counters", "--reset", "--json"});
		const auto &o = std::get<kprof::CountersOptions>(cmd);
		BOOST_TEST(o.reset);
		BOOST_TEST(o.json);
	}
}

BOOST_AUTO_TEST_CASE(more_usage_errors)
{
	const std::vector<std::vector<std::string>> bad = {
		{"latency", "-d", "0"},         {"latency", "-d", "1x"},      {"latency", "-c", "2-1"},
		{"latency", "--json", "--csv"}, {"latency", "-u", "s"},       {"latency", "-b", "0"},
		{"latency", "--instance", "../x"}, {"enable"},                {"enable", "x", "--filter"},
		{"counters", "--device", "a/b"},
		{"irq", "-d", "x"},             {"irq", "--json", "--csv"},   {"irq", "--irq"},
		{"irq", "-e", "batch"},         {"irq", "--device", "x"},     {"irq", "--irq", ""},
		{"irq", "--irq", "a b"},         {"irq", "-T", "0"},           {"irq", "-T", "1x"},
		{"irq", "--on-threshold", "continue"}, {"irq", "-T", "1ms", "--on-threshold", "later"},
		{"irq", "-t", "/tmp/x"},
	};
	for (const auto &args : bad) {
		Cli cli;
		std::ostringstream out, err;
		BOOST_TEST_CONTEXT(args[0] << " " << (args.size() > 1 ? args[1] : ""))
		{
			try {
				cli.parse(args);
				BOOST_FAIL("usage error not detected");
			} catch (const CLI::ParseError &e) {
				BOOST_TEST(cli.exit(e, out, err) == 2);
			}
		}
	}
}

// --in-kernel reads no ring buffer: the options about one are refused,
// and so is irq's threshold analysis, which needs the events.
BOOST_AUTO_TEST_CASE(in_kernel)
{
	Cli cli;
	const auto cmd = cli.parse({"latency", "--in-kernel", "-d", "1s", "--device", "q0", "-e", "batch", "--json"});
	BOOST_TEST(std::get<kprof::LatencyOptions>(cmd).in_kernel);
	BOOST_TEST(!std::get<kprof::LatencyOptions>(Cli().parse({"latency"})).in_kernel);
	const auto irq = Cli().parse({"irq", "--in-kernel", "--irq", "24", "--per-cpu"});
	BOOST_TEST(std::get<kprof::IrqOptions>(irq).in_kernel);
	BOOST_TEST(!std::get<kprof::IrqOptions>(Cli().parse({"irq"})).in_kernel);
	std::vector<std::vector<std::string>> refused;
	for (const char *command : {"latency", "irq"})
		for (const auto &opt : std::vector<std::vector<std::string>>{{"-b", "64"}, {"-c", "0"}, {"--instance", "x"}})
			refused.push_back({command, "--in-kernel", opt[0], opt[1]});
	refused.push_back({"irq", "--in-kernel", "-T", "1ms"});
	for (const auto &args : refused) {
		Cli c;
		std::ostringstream out, err;
		try {
			c.parse(args);
			BOOST_FAIL(args[0] << " --in-kernel " << args[2] << " accepted");
		} catch (const CLI::ParseError &e) {
			BOOST_TEST(c.exit(e, out, err) == 2);
		}
		BOOST_TEST(err.str().find("excludes") != std::string::npos);
	}
}

BOOST_AUTO_TEST_CASE(report_options)
{
	Cli cli;
	const auto cmd = cli.parse({"report", "-i", KPROF_FIXTURES "/6.1.0-57-amd64/header_page", "-e", "batch", "--per-cpu",
				    "--json", "-c", "1", "-u", "ns", "--device", "q0"});
	const auto &o = std::get<kprof::ReportOptions>(cmd);
	BOOST_TEST(o.input == KPROF_FIXTURES "/6.1.0-57-amd64/header_page");
	BOOST_TEST((o.events == std::vector<std::string>{"batch"}));
	BOOST_TEST(o.per_cpu);
	BOOST_TEST(o.json);
	BOOST_TEST((o.cpus == std::vector<int>{1}));
	BOOST_TEST(o.divisor == 1u);
	BOOST_TEST(*o.device == "q0");
	// -i is required and must exist; collecting options do not apply.
	for (const auto &args : std::vector<std::vector<std::string>>{
		     {"report"}, {"report", "-i", "/nonexistent/trace.dat"}, {"report", "-i", KPROF_FIXTURES "/6.1.0-57-amd64/header_page", "-d", "1s"},
		     {"report", "-i", KPROF_FIXTURES "/6.1.0-57-amd64/header_page", "-b", "64"}}) {
		Cli c;
		std::ostringstream out, err;
		try {
			c.parse(args);
			BOOST_FAIL("accepted: report " << (args.size() > 1 ? args[1] : ""));
		} catch (const CLI::ParseError &e) {
			BOOST_TEST(c.exit(e, out, err) == 2);
		}
	}
}

// A value the option refuses is reported with kprofctl's prefix and the
// option's name, whichever command has it.
BOOST_AUTO_TEST_CASE(errors_name_the_option)
{
	const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
		{{"latency", "-d", "10x"}, "kprofctl: --duration: bad duration '10x'"},
		{{"irq", "-c", "3-1"}, "kprofctl: --cpus: bad CPU list '3-1'"},
		{{"top", "--interval", "5q"}, "kprofctl: --interval: bad duration '5q'"},
		{{"irq", "-T", "1x"}, "kprofctl: --threshold: bad duration '1x'"},
		{{"report", "-i", "/nonexistent", "-d", "1"}, "kprofctl: "},
	};
	for (const auto &[args, want] : cases) {
		Cli cli;
		std::ostringstream out, err;
		BOOST_TEST_CONTEXT(args[0] << " " << args[1])
		{
			try {
				cli.parse(args);
				BOOST_FAIL("usage error not detected");
			} catch (const CLI::ParseError &e) {
				BOOST_TEST(cli.exit(e, out, err) == 2);
			}
			BOOST_TEST(err.str().rfind(want, 0) == 0u, err.str());
		}
	}
}

BOOST_AUTO_TEST_CASE(diff_options)
{
	Cli cli;
	const auto cmd = cli.parse({"diff", "/dev/null", "/dev/null", "--fail-if", "p99+10%", "--fail-if", "mean+20us",
				    "--alpha", "0.01", "--per-cpu", "-u", "ms", "--svg", "/tmp/d.svg"});
	BOOST_REQUIRE(std::holds_alternative<kprof::DiffOptions>(cmd));
	const auto &o = std::get<kprof::DiffOptions>(cmd);
	BOOST_TEST(o.before == "/dev/null");
	BOOST_TEST(o.fail_if == (std::vector<std::string>{"p99+10%", "mean+20us"}));
	BOOST_TEST(o.alpha == 0.01);
	BOOST_TEST(o.per_cpu);
	BOOST_TEST(o.divisor == 1000000u);
	BOOST_TEST(*o.svg == "/tmp/d.svg");
	const auto d = std::get<kprof::DiffOptions>(Cli().parse({"diff", "/dev/null", "/dev/null"}));
	BOOST_TEST(d.alpha == 0.05);
	BOOST_TEST(d.fail_if.empty());
	BOOST_TEST(!d.json);
	const std::vector<UsageCase> bad = {
		{{"diff", "/dev/null"}, "AFTER is required"},
		{{"diff", "/dev/null", "/no/such/file"}, "/no/such/file"},
		{{"diff", "/dev/null", "/dev/null", "--fail-if", "max+10%"}, "no interval"},
		{{"diff", "/dev/null", "/dev/null", "--fail-if", "p99+10"}, "give the threshold a unit"},
		{{"diff", "/dev/null", "/dev/null", "--alpha", "0.9"}, "--alpha"},
		{{"diff", "/dev/null", "/dev/null", "--json", "-u", "ms"}, "excludes"},
	};
	expect_usage_errors(bad);
}

BOOST_AUTO_TEST_CASE(output_and_save)
{
	for (const char *cmd : {"latency", "irq", "func"}) {
		std::vector<std::string> args{cmd, "-o", "/tmp/r.txt", "--save", "/tmp/r.json"};
		if (std::string(cmd) == "func")
			args.push_back("pktproc_poll");
		const auto c = Cli().parse(args);
		const auto &o = std::visit(
			[](const auto &v) -> const kprof::CollectOptions & {
				if constexpr (std::is_base_of_v<kprof::CollectOptions, std::decay_t<decltype(v)>>)
					return v;
				else
					throw std::logic_error("not a collecting command");
			},
			c);
		BOOST_TEST(*o.output == "/tmp/r.txt");
		BOOST_TEST(*o.save == "/tmp/r.json");
	}
	Cli cli;
	std::ostringstream out, err;
	try {
		cli.parse({"latency", "-o", "/no/such/dir/r.txt"});
		BOOST_ERROR("-o into a missing directory accepted");
	} catch (const CLI::ParseError &e) {
		BOOST_TEST(cli.exit(e, out, err) == 2);
	}
	BOOST_TEST(err.str().find("no directory '/no/such/dir'") != std::string::npos, err.str());
}

namespace {

const kprof::CollectOptions &collect_options(const kprof::Command &c)
{
	return std::visit(
		[](const auto &v) -> const kprof::CollectOptions & {
			if constexpr (std::is_base_of_v<kprof::CollectOptions, std::decay_t<decltype(v)>>)
				return v;
			else
				throw std::logic_error("not a collecting command");
		},
		c);
}

}  // namespace

// -- PROGRAM ARGS: everything after the first "--" is the program, options
// of its own included; before it, kprofctl's options as usual.
BOOST_AUTO_TEST_CASE(program_after_dashes)
{
	const auto func = Cli().parse({"func", "-m", "kprof_pktproc", "-d", "60", "--", "sh", "-c", "exit 3", "--", "-d"});
	const auto &o = collect_options(func);
	BOOST_TEST((o.command == std::vector<std::string>{"sh", "-c", "exit 3", "--", "-d"}));
	BOOST_TEST(o.duration.count() == 60000000000LL);
	BOOST_TEST(std::get<kprof::FuncOptions>(func).module.value() == "kprof_pktproc");
	for (const char *cmd : {"latency", "irq"}) {
		const auto parsed = Cli().parse({cmd, "--json", "--", "true"});
		BOOST_TEST((collect_options(parsed).command == std::vector<std::string>{"true"}));
	}
	const auto plain = Cli().parse({"latency", "-d", "1"});
	BOOST_TEST(collect_options(plain).command.empty());

	const std::vector<UsageCase> bad = {
		{{"latency", "--"}, "name the PROGRAM"},
		{{"status", "--", "true"}, "only latency, irq and func run a program"},
		{{"report", "-i", "/dev/null", "--", "true"}, "only latency, irq and func run a program"},
		{{"diff", "/dev/null", "/dev/null", "--", "true"}, "only latency, irq and func run a program"},
	};
	expect_usage_errors(bad);
}

BOOST_AUTO_TEST_CASE(dma_latency_and_priority)
{
	using P = kprof::Priority::Policy;
	for (const char *cmd : {"latency", "irq", "func"}) {
		std::vector<std::string> args{cmd, "--dma-latency", "0", "-P", "f:50"};
		if (std::string(cmd) == "func")
			args.push_back("pktproc_poll");
		const auto parsed = Cli().parse(args);
		const auto &o = collect_options(parsed);
		BOOST_TEST(o.dma_latency_us.value() == 0u);
		BOOST_TEST((o.priority.value() == kprof::Priority{P::Fifo, 50}));
	}
	const auto plain = Cli().parse({"latency"});
	BOOST_TEST(!collect_options(plain).dma_latency_us);
	BOOST_TEST(!collect_options(plain).priority);
	const std::vector<UsageCase> bad = {
		{{"latency", "-P", "f:0"}, "--priority: bad priority 'f:0': fifo takes a priority from 1 to 99"},
		{{"irq", "--priority", "x:1"}, "bad priority 'x:1'"},
		{{"latency", "--dma-latency", "-1"}, "--dma-latency"},
		{{"report", "-i", "/dev/null", "-P", "f:1"}, "-P"},
	};
	expect_usage_errors(bad);
	std::ostringstream help;
	Cli cli;
	try {
		cli.parse({"func", "--help"});
	} catch (const CLI::ParseError &e) {
		std::ostringstream err;
		cli.exit(e, help, err);
	}
	BOOST_TEST(help.str().find("-- PROGRAM [ARGS...]") != std::string::npos, help.str());
}
