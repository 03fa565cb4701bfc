// SPDX-License-Identifier: GPL-2.0
// kprofctl: a thin main. Parsing lives in cli.cpp, each subcommand in its
// own file; errors become one line on stderr and an exit status here.
#include "cli/cli.hpp"
#include "cmd/commands.hpp"
#include "sys/sys.hpp"

#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>

#ifndef KPROF_VERSION
#error "KPROF_VERSION must come from the build"
#endif

// The one piece of global mutable state: the signal flag.
volatile std::sig_atomic_t kprof::g_stop = 0;

namespace {

// The first signal stops collecting and reports; a second one abandons
// the report, and the instance is still restored (every event disabled)
// on the way out.
void on_signal(int)
{
	if (kprof::g_stop < 2)
		kprof::g_stop = kprof::g_stop + 1;
}

void install_signals()
{
	struct sigaction sa {};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	// SIGHUP: the terminal went away; SIGPIPE: the reader of our output
	// did. Both end the run like Ctrl-C, with the instance restored.
	for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
		sigaction(sig, &sa, nullptr);
}

template <class... F>
struct Overload : F... {
	using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

}  // namespace

int main(int argc, char **argv)
{
	kprof::Cli cli;
	kprof::Command cmd;
	try {
		cmd = cli.parse(std::vector<std::string>(argv + 1, argv + argc));
	} catch (const CLI::ParseError &e) {
		return cli.exit(e, std::cout, std::cerr);
	}

	install_signals();
	int rc;
	try {
		const kprof::sys::Mounts mounts;
		rc = std::visit(Overload{
					  [](const kprof::VersionRequest &) {
						  std::cout << "kprofctl " KPROF_VERSION "\n";
						  return 0;
					  },
					  [](const kprof::StatusOptions &o) { return kprof::run_status(o); },
					  [](const kprof::ListOptions &o) { return kprof::run_list(o); },
					  [](const kprof::EnableOptions &o) { return kprof::run_enable(o); },
					  [](const kprof::ReportOptions &o) { return kprof::run_report(o); },
					  [](const kprof::LatencyOptions &o) { return kprof::run_latency(o); },
					  [](const kprof::CountersOptions &o) { return kprof::run_counters(o); },
					  [](const kprof::IrqOptions &o) { return kprof::run_irq(o); },
					  [](const kprof::TopOptions &o) { return kprof::run_top(o); },
					  [](const kprof::FuncOptions &o) { return kprof::run_func(o); },
					  [](const kprof::DiffOptions &o) { return kprof::run_diff(o); },
				  },
				  cmd);
	} catch (const kprof::UsageError &e) {
		std::cerr << "kprofctl: " << e.what() << '\n';
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "kprofctl: error: " << e.what() << '\n';
		return 1;
	}
	// A report that did not reach its reader (a full disk, a closed pipe)
	// is a failure, whatever the command found.
	if (!std::cout.flush()) {
		std::cerr << "kprofctl: error: cannot write to standard output: " << std::strerror(errno) << '\n';
		return 1;
	}
	return rc;
}
