// SPDX-License-Identifier: GPL-2.0
// `kprofctl func`: how often kernel or module functions are called and how
// long each call takes, on a driver nobody instrumented. kprof.ko probes
// them (kretprobes, kprof/func) and keeps the histograms; kprofctl names
// the functions, opens the window and reports.
#include "cmd/commands.hpp"
#include "core/funcs.hpp"
#include "core/inkernel.hpp"
#include "sys/collect.hpp"
#include "sys/sys.hpp"

#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <optional>

namespace kprof {

namespace {

// The functions asked for: named, or those of @module matching @match.
std::vector<std::string> functions_of(const std::vector<std::string> &functions,
				      const std::optional<std::string> &module, const std::string &match)
{
	if (!module)
		return functions;
	const auto text = sys::read_file("/proc/kallsyms");
	if (!text)
		throw std::runtime_error("cannot read /proc/kallsyms");
	auto fns = module_functions(*text, *module, match);
	if (fns.empty())
		throw UsageError("no function of module '" + *module + "' matches '" + match +
				 "' in /proc/kallsyms (is the module loaded? 'lsmod' lists them)");
	return fns;
}

// Probe each of @fns; returns how many. A function named on the command
// line that cannot be probed is an error; of a module's, the others are
// measured and the refused ones listed.
size_t add_all(FuncProbes &probes, const std::vector<std::string> &fns, bool named)
{
	std::string refused;
	size_t added = 0;
	std::optional<std::string> kallsyms;
	for (const auto &f : fns) {
		int err = probes.add(f);
		// x86's kprof.ko asks ftrace first, which has no word for a
		// name the kernel does not know at all.
		if (err == EOPNOTSUPP) {
			if (!kallsyms)
				kallsyms = sys::read_file("/proc/kallsyms").value_or("");
			if (!kallsyms_has(*kallsyms, f))
				err = ENOENT;
		}
		if (err)
			refused += "  " + f + ": " + func_refusal(err) + "\n";
		else
			added++;
	}
	if (refused.empty())
		return added;
	if (named || !added)
		throw std::runtime_error("cannot probe:\n" + refused.substr(0, refused.size() - 1));
	std::cerr << "kprofctl: not probed (the other " << added << " are):\n" << refused;
	return added;
}

}  // namespace

size_t add_functions(FuncProbes &probes, const std::vector<std::string> &functions,
		     const std::optional<std::string> &module, const std::string &match)
{
	return add_all(probes, functions_of(functions, module, match), !module);
}

int run_func(const FuncOptions &opts)
{
	const Plan plan = base_plan(Source::Device, opts);
	if (!plan.dbg)
		throw std::runtime_error("kprofctl func reads kprof.ko's function probes in debugfs, which is not "
					 "mounted (mount -t debugfs none /sys/kernel/debug)");
	FuncProbes probes(*plan.dbg);
	const size_t n = add_functions(probes, opts.functions, opts.module, opts.match);
	Report rep;
	rep.title = "func";
	probes.start();
	Window window(opts);	// after start: the program's first call is counted
	std::cerr << "kprofctl: measuring " << n << (n == 1 ? " function" : " functions")
		  << (!opts.command.empty() ? " while " + opts.command[0] + " runs"
		      : opts.duration.count() ? ""
					      : "; Ctrl-C to stop")
		  << "\n";
	window.wait();
	probes.stop();
	window.close().into(rep);
	KernelStats ks;
	load_func_hist(probes.read(), opts.per_cpu, ks, rep.funcs);
	rep.in_kernel = true;
	rep.events_read = ks.samples;
	rep.overflow = ks.overflow;
	rep.untracked = ks.untracked;
	rep.cpus = unsigned(sysconf(_SC_NPROCESSORS_ONLN));
	rep.check_note = "function probes: no events, nothing to cross-check";
	fill_rows(opts, ks.totals, ks.per_cpu, rep);
	render(opts, rep);
	return exit_status(rep);
}

}  // namespace kprof
