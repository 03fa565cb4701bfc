// SPDX-License-Identifier: GPL-2.0
#include "core/counters.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace kprof {

uint64_t kernel_u64(std::string_view s, const std::string &line)
{
	uint64_t v;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (s.empty() || ec != std::errc() || p != s.data() + s.size())
		throw std::runtime_error("bad number '" + std::string(s.substr(0, 40)) + "' in '" + line.substr(0, 80) +
					 "'");
	return v;
}

std::map<std::string, uint64_t> parse_counters(const std::string &text)
{
	std::map<std::string, uint64_t> out;
	std::istringstream in(text);
	bool header = true;
	for (std::string line; std::getline(in, line);) {
		if (header) {	// "cpu irqs thread_runs ..."
			header = false;
			if (line.rfind("cpu ", 0) == 0)
				continue;
		}
		const auto colon = line.find(": ");
		if (colon == std::string::npos) {
			if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])))
				continue;	// a per-CPU row
			throw std::runtime_error("unexpected line in kprof counters: '" + line + "'");
		}
		out[line.substr(0, colon)] = kernel_u64(std::string_view(line).substr(colon + 2), line);
	}
	return out;
}

std::map<std::string, std::map<std::string, uint64_t>> parse_girq_emitted(const std::string &text)
{
	std::map<std::string, std::map<std::string, uint64_t>> out;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		std::istringstream l(line);
		std::string cpu, event, rest;
		uint64_t seq;
		if (!(l >> cpu >> event >> seq) || (l >> rest) || cpu.rfind("cpu", 0) != 0)
			throw std::runtime_error("unexpected line in kprof/girq_emitted: '" + line + "'");
		out[cpu][event] = seq;
	}
	return out;
}

std::map<std::string, uint64_t> counters_delta(const std::map<std::string, uint64_t> &a,
					       const std::map<std::string, uint64_t> &b)
{
	std::map<std::string, uint64_t> d;
	for (const auto &[k, v] : b) {
		const auto it = a.find(k);
		const uint64_t before = it == a.end() ? 0 : it->second;
		d[k] = v >= before ? v - before : v;	// reset in between: count from 0
	}
	return d;
}

uint64_t counter_moved(const DeviceCounters &c0, const DeviceCounters &c1, const std::string &name,
		       const std::optional<std::string> &device)
{
	uint64_t n = 0;
	for (const auto &[dev, v1] : c1) {
		if (device && *device != dev)
			continue;
		const auto it = c0.find(dev);
		const auto d = counters_delta(it == c0.end() ? std::map<std::string, uint64_t>{} : it->second, v1);
		const auto c = d.find(name);
		n += c == d.end() ? 0 : c->second;
	}
	return n;
}

std::string tracker_probe_note(const std::map<std::string, uint64_t> &c)
{
	const auto off = [&](const char *probe) { return c.count(probe) && c.at(probe) == 0; };
	std::string note;
	if (off("attached"))
		return note;	// the probes are not there to be seen
	if (off("run_probes"))
		note = "kprof.ko could not put its run probes (kprobes) on the IRQ core (see dmesg): "
		       "IRQ threads' runs are not measured, no entry_to_running";
	if (off("nested_probe"))
		note += std::string(note.empty() ? "" : "; ") +
			"kprof.ko could not probe handle_nested_irq() (see dmesg): child IRQs of "
			"interrupt controllers on slow buses (nested) are not measured";
	return note;
}

}  // namespace kprof
