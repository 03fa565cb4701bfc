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

// The functions asked for: named, or those of -m's module matching --match.
std::vector<std::string> functions_of(const FuncOptions &opts)
{
	if (!opts.module)
		return opts.functions;
	const auto text = sys::read_file("/proc/kallsyms");
	if (!text)
		throw std::runtime_error("cannot read /proc/kallsyms");
	auto fns = module_functions(*text, *opts.module, opts.match);
	if (fns.empty())
		throw UsageError("no function of module '" + *opts.module + "' matches '" + opts.match +
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

int run_func(const FuncOptions &opts)
{
	const Plan plan = base_plan(Source::Device, opts);
	if (!plan.dbg)
		throw std::runtime_error("kprofctl func reads kprof.ko's function probes in debugfs, which is not "
					 "mounted (mount -t debugfs none /sys/kernel/debug)");
	FuncProbes probes(*plan.dbg);
	const size_t n = add_all(probes, functions_of(opts), !opts.module);
	Report rep;
	rep.title = "func";
	const Window window;
	probes.start();
	std::cerr << "kprofctl: measuring " << n << (n == 1 ? " function" : " functions")
		  << (opts.duration.count() ? "" : "; Ctrl-C to stop") << "\n";
	wait_for_end(opts.duration);
	probes.stop();
	window.close(rep);
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
	return 0;
}

}  // namespace kprof
