// SPDX-License-Identifier: GPL-2.0
// kprofctl func's pure parts: a module's functions in /proc/kallsyms, the
// kernel's refusal of a probe in words, and what each function's calls
// came to (kprof/func). Text in, values out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// kprof.ko's function probes: a session per open file (kprof/func).
inline constexpr const char *kFuncFile = "func";
// The report's event label of a function's rows.
inline constexpr const char *kFuncLabel = "func";

// One function's calls over a session (kprof/func's "func" line and the
// sums of its untracked and backwards lines).
struct FuncCounts {
	std::string name;
	uint64_t calls = 0;		// calls timed from their entry
	uint64_t missed = 0;		// no free kretprobe instance
	uint64_t recursion = 0;		// hit while another kprobe's handler ran
	uint64_t nmi = 0;		// in NMI context: counted, not timed
	// Of the calls, those entered inside a timed call of the same function
	// in the same task (recursion, an interrupt of it), and the most in
	// flight at once in a task; unknown where the kernel hides them (5.10).
	std::optional<uint64_t> nested;
	std::optional<uint64_t> depth;
	uint64_t untracked = 0;		// timed, no histogram (the budget)
	uint64_t backwards = 0;		// the clock went back between CPUs
	uint64_t timed = 0;		// in the histograms
	double sum_ns = 0;		// their time
	// Calls entered and not returned by the stop.
	uint64_t in_flight() const;
	// Calls the probes saw and could not time: lost to the statistics.
	uint64_t lost() const { return missed + recursion + nmi + untracked + backwards; }
};

// The text functions ('t'/'T') of @module in /proc/kallsyms' @text whose
// names match the glob @match, sorted, once each; not the padding symbols
// before functions (__pfx_, __cfi_). Throws
// std::runtime_error for a line that is not "ADDR TYPE NAME [MODULE]".
std::vector<std::string> module_functions(const std::string &text, const std::string &module,
					  const std::string &match);

// Whether /proc/kallsyms' @text has a symbol named @name.
bool kallsyms_has(const std::string &text, const std::string &name);

// Why the kernel refused a probe on a function, from add's errno.
std::string func_refusal(int err);

}  // namespace kprof
