// SPDX-License-Identifier: GPL-2.0
#include "core/funcs.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace kprof {

uint64_t FuncCounts::in_flight() const
{
	const uint64_t ended = timed + untracked + backwards;
	return calls > ended ? calls - ended : 0;
}

namespace {

// The padding before a function that newer kernels name (__pfx_NAME:
// call thunks' room; __cfi_NAME: kCFI's type hash), never called.
bool padding(const std::string &name)
{
	return name.rfind("__pfx_", 0) == 0 || name.rfind("__cfi_", 0) == 0;
}

}  // namespace

std::vector<std::string> module_functions(const std::string &text, const std::string &module,
					  const std::string &match)
{
	const std::string tag = "[" + module + "]";
	std::vector<std::string> out;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		std::istringstream f(line);
		std::string addr, type, name, mod;
		if (!(f >> addr >> type >> name))
			throw std::runtime_error("/proc/kallsyms: malformed line '" + line.substr(0, 80) + "'");
		f >> mod;
		if (mod == tag && (type == "t" || type == "T") && !padding(name) &&
		    fnmatch(match.c_str(), name.c_str(), 0) == 0)
			out.push_back(name);
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

bool kallsyms_has(const std::string &text, const std::string &name)
{
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		std::istringstream f(line);
		std::string addr, type, sym;
		if (f >> addr >> type >> sym && sym == name)
			return true;
	}
	return false;
}

std::string func_refusal(int err)
{
	switch (err) {
	case ENOENT:
		return "no such function in the kernel's symbols (/proc/kallsyms): a typo, a module not loaded, "
		       "or a function the compiler inlined";
	case EINVAL:
		return "kprobes refuse to probe it (it is in /sys/kernel/debug/kprobes/blacklist, or not a "
		       "function's entry)";
	case EOPNOTSUPP:
		return "its probe would not be on ftrace (notrace, or no ftrace entry): on x86 that is an int3, "
		       "whose handler runs in NMI context, where kprof cannot take its locks";
	case EEXIST:
		return "given twice";
	case E2BIG:
		return "more functions than kprof.ko takes in one run (256)";
	case EBUSY:
		return "the run had started";
	case EILSEQ:
		return "the address is not on an instruction boundary";
	case ENOMEM:
		return "kprof.ko's memory budget is spent (kprof/memory; kprof.ko's agg_budget_kib parameter sets it)";
	default:
		return std::strerror(err);
	}
}

}  // namespace kprof
