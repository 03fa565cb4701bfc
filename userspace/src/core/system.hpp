// SPDX-License-Identifier: GPL-2.0
// The system around a report's window: the pressure the kernel reports
// (PSI), the interrupt and context-switch rates, and the vmstat counters
// that explain latency. Pure: parsers of the /proc files' text (sys/ reads
// them at the window's two ends), the window's deltas, their renderings.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

// The PSI resources, as /proc/pressure names them. irq exists with
// CONFIG_IRQ_TIME_ACCOUNTING (6.1 and later), and has a "full" line only.
inline constexpr const char *kPsiResources[] = {"cpu", "io", "memory", "irq"};

struct PsiLine {
	double avg10 = 0;	// % of the last 10 s
	uint64_t total_us = 0;	// stall time since boot
};

// One /proc/pressure file: its "some" and "full" lines, where it has them.
struct Psi {
	std::optional<PsiLine> some, full;
};

struct SystemSnapshot {
	std::optional<std::string> psi_off;	// why there is no PSI, if there is none
	std::map<std::string, Psi> psi;		// by resource; absent: the kernel has no such file
	uint64_t interrupts = 0;		// /proc/stat intr: every IRQ since boot
	uint64_t switches = 0;			// /proc/stat ctxt
	uint64_t major_faults = 0;		// /proc/vmstat pgmajfault
	uint64_t reclaim_stalls = 0;		// the allocstall_* counters: direct reclaim entered
	uint64_t compaction_stalls = 0;		// compact_stall: direct compaction entered
};

// std::invalid_argument on text that is not a PSI file's.
Psi parse_psi(const std::string &text);
void parse_proc_stat(const std::string &text, SystemSnapshot &s);
void parse_vmstat(const std::string &text, SystemSnapshot &s);

// A resource's stall over the window (total_us: the delta) and its avg10
// at the end.
struct Pressure {
	std::string resource;
	std::optional<PsiLine> some, full;
};

struct SystemContext {
	double seconds = 0;			// the window
	std::string psi_off;			// empty: PSI is on
	std::vector<Pressure> pressure;		// the resources the kernel has, in kPsiResources' order
	std::vector<std::string> no_psi;	// those it has not
	uint64_t interrupts = 0, switches = 0;
	uint64_t major_faults = 0, reclaim_stalls = 0, compaction_stalls = 0;
};

// b - a over @seconds (counters that went backwards count 0).
SystemContext system_between(const SystemSnapshot &a, const SystemSnapshot &b, double seconds);

std::string render_system_text(const SystemContext &c);
nlohmann::json render_system_json(const SystemContext &c);

}  // namespace kprof
