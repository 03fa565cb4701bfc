// SPDX-License-Identifier: GPL-2.0
// The machine: root, tracefs, debugfs, kprof.ko. Every failure is a
// std::runtime_error whose message says what to do.
#pragma once

#include "core/system.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof {
// The "device" the IRQ tracker's counters are filed under.
inline constexpr const char *kGirqScope = "girq";
}  // namespace kprof

namespace kprof::sys {

void require_root();

// The kernel file systems kprofctl mounts when they are not (tracefs by
// tracing_dir(), debugfs by kprof_debugfs()), at their standard places.
// One lives in main for the whole run: what was not mounted when it was
// made and is mounted when it goes, kprofctl mounted; it unmounts those
// and says so (or why it left one mounted).
class Mounts {
public:
	Mounts();
	Mounts(const Mounts &) = delete;
	Mounts &operator=(const Mounts &) = delete;
	~Mounts();

private:
	std::vector<std::string> absent_;	// mount points with nothing on them at the start
};
// The tracefs mount point; mounts tracefs if it is not mounted.
std::string tracing_dir();
// kprof's debugfs directory, or nullopt if debugfs is not there (and
// cannot be mounted) or kprof.ko is not loaded.
std::optional<std::string> kprof_debugfs();
// kprof.ko's version, or nullopt if it is not loaded.
std::optional<std::string> module_version();
// Throws unless kprof.ko is loaded.
void require_module();

// The registered kprof devices (debugfs directories), sorted.
std::vector<std::string> devices(const std::string &debugfs);
// Their counter totals; devices that vanish meanwhile are skipped.
std::map<std::string, std::map<std::string, uint64_t>> read_counters(const std::string &debugfs);
// The events each device has emitted (kprof/<dev>/emitted): device ->
// event -> the last seq.
std::map<std::string, std::map<std::string, uint64_t>> read_emitted(const std::string &debugfs);
// The IRQ tracker's emitted counts (kprof/girq_emitted), per CPU: "cpu<N>"
// -> event -> the last seq.
std::map<std::string, std::map<std::string, uint64_t>> read_girq_emitted(const std::string &debugfs);
// The IRQ tracker's counters (kprof/girq_counters), as the one "device"
// kGirqScope.
std::map<std::string, std::map<std::string, uint64_t>> read_girq_counters(const std::string &debugfs);

// The hook calls kprof.ko ignored (kprof/misuse: null_dev, nmi, bad_span),
// or nullopt from a kprof.ko without that file.
inline constexpr const char *kMisuseFile = "misuse";
std::optional<std::map<std::string, uint64_t>> read_misuse(const std::string &debugfs);

// Span names per device (kprof/<dev>/spans).
std::map<std::string, std::vector<std::string>> read_span_names(const std::string &debugfs);

std::optional<std::string> read_file(const std::string &path);
// Write @value; on failure throw with the kernel's errno text.
void write_file(const std::string &path, const std::string &value);
// The other processes ("pid (name)") that hold @path open, from /proc/*/fd.
std::vector<std::string> holders_of(const std::string &path);
// Write @content to a new file @path atomically: to "@path.tmp", then
// renamed over @path, so that a reader (node_exporter) never sees half.
void replace_file(const std::string &path, const std::string &content);


// The CPU time this process has used so far (user + system), in seconds.
double cpu_seconds();
// /proc/pressure, /proc/stat and /proc/vmstat now (core/system.hpp).
SystemSnapshot system_snapshot();

// Every IRQ and the names of its actions (/sys/kernel/irq/N/actions);
// nullopt where the kernel has no /sys/kernel/irq.
std::optional<std::map<int, std::vector<std::string>>> irq_actions();

// CPUs with a per-CPU buffer in this tracefs (per_cpu/cpuN), sorted.
std::vector<int> trace_cpus(const std::string &instance_dir);

}  // namespace kprof::sys
