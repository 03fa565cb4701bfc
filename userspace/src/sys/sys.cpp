// SPDX-License-Identifier: GPL-2.0
#include "sys/sys.hpp"

#include "core/counters.hpp"
#include "sys/tracefs_c.hpp"

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace kprof::sys {

void require_root()
{
	// Root, or whoever tracefs lets write (mounted with gid= and mode= for
	// a tracing group, or CAP_DAC_OVERRIDE): the kernel decides each file.
	if (geteuid() == 0 || access("/sys/kernel/tracing/instances", W_OK) == 0)
		return;
	throw std::runtime_error("this needs root, or write access to tracefs (/sys/kernel/tracing) and "
				 "debugfs: try sudo");
}

namespace {

// Where kprofctl (or libtracefs for it) mounts.
const std::vector<std::pair<std::string, std::string>> kOwnMounts = {
	{"/sys/kernel/tracing", "tracefs"},
	{"/sys/kernel/debug", "debugfs"},
};

// The mount points in /proc/self/mounts and their file system types (the
// last mounted on each).
std::map<std::string, std::string> mount_table()
{
	std::map<std::string, std::string> table;
	std::ifstream in("/proc/self/mounts");
	std::string dev, point, type, rest;
	while (in >> dev >> point >> type && std::getline(in, rest))
		table[point] = type;
	return table;
}

}  // namespace

Mounts::Mounts()
{
	const auto table = mount_table();
	for (const auto &[point, type] : kOwnMounts)
		if (!table.count(point))
			absent_.push_back(point);
}

Mounts::~Mounts()
{
	const auto table = mount_table();
	for (const auto &[point, type] : kOwnMounts) {
		const auto it = table.find(point);
		if (it == table.end() || it->second != type ||
		    std::find(absent_.begin(), absent_.end(), point) == absent_.end())
			continue;
		if (umount(point.c_str()) == 0)
			std::cerr << "kprofctl: " << type << " was not mounted: mounted it on " << point
				  << " for this run, and unmounted it\n";
		else
			std::cerr << "kprofctl: " << type << " was not mounted: mounted it on " << point
				  << ", and left it mounted (" << std::strerror(errno) << ")\n";
	}
}

std::string tracing_dir()
{
	const char *path = nullptr;
	if (tracefs_tracing_dir_is_mounted(true, &path) < 0 || !path ||
	    !fs::exists(std::string(path) + "/trace"))
		throw std::runtime_error("tracefs is not mounted and mounting it failed; mount it with: "
					 "mount -t tracefs nodev /sys/kernel/tracing (kernel needs CONFIG_TRACING)");
	return path;
}

std::optional<std::string> kprof_debugfs()
{
	const std::string root = "/sys/kernel/debug";
	if (!fs::exists(root + "/kprof")) {
		if (!fs::exists(root))
			return std::nullopt;
		// Not mounted yet? Try once; harmless if it is.
		if (mount("debugfs", root.c_str(), "debugfs", 0, nullptr) != 0 && errno != EBUSY)
			return std::nullopt;
		if (!fs::exists(root + "/kprof"))
			return std::nullopt;
	}
	return root + "/kprof";
}

namespace {

std::string psi_off_reason()
{
	const auto cmdline = read_file("/proc/cmdline");
	if (cmdline && (" " + *cmdline).find(" psi=0") != std::string::npos)
		return "off: the kernel was booted with psi=0";
	return "off: no /proc/pressure (a kernel without CONFIG_PSI, or with CONFIG_PSI_DEFAULT_DISABLED: boot "
	       "it with psi=1)";
}

}  // namespace

SystemSnapshot system_snapshot()
{
	SystemSnapshot s;
	std::error_code ec;
	if (!std::filesystem::is_directory("/proc/pressure", ec))
		s.psi_off = psi_off_reason();
	for (const char *r : kPsiResources) {
		if (s.psi_off)
			break;
		// Absent, or refused (irq without IRQ time accounting): no such resource.
		if (const auto text = read_file(std::string("/proc/pressure/") + r))
			try {
				s.psi[r] = parse_psi(*text);
			} catch (const std::invalid_argument &) {
			}
	}
	if (const auto text = read_file("/proc/stat"))
		parse_proc_stat(*text, s);
	if (const auto text = read_file("/proc/vmstat"))
		parse_vmstat(*text, s);
	return s;
}

std::optional<std::string> read_file(const std::string &path)
{
	std::ifstream in(path);
	if (!in)
		return std::nullopt;
	std::ostringstream ss;
	ss << in.rdbuf();
	if (in.bad())
		return std::nullopt;
	return ss.str();
}

void write_file(const std::string &path, const std::string &value)
{
	FILE *f = std::fopen(path.c_str(), "w");
	if (!f)
		throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
	const bool ok = std::fwrite(value.data(), 1, value.size(), f) == value.size();
	const int werr = errno;
	// The kernel reports a bad value on the write or, buffered, on close.
	const bool closed = std::fclose(f) == 0;
	if (!ok || !closed)
		throw std::runtime_error("cannot write '" + value + "' to " + path + ": " +
					 std::strerror(ok ? errno : werr));
}

std::vector<std::string> holders_of(const std::string &path)
{
	namespace fs = std::filesystem;
	const std::string self = std::to_string(getpid());
	std::vector<std::string> who;
	std::error_code ec;
	for (const auto &proc : fs::directory_iterator("/proc", ec)) {
		const std::string pid = proc.path().filename();
		if (pid.find_first_not_of("0123456789") != std::string::npos || pid == self)
			continue;
		std::error_code fec;	// processes come and go meanwhile
		for (const auto &fd : fs::directory_iterator(proc.path() / "fd", fec)) {
			std::error_code lec;
			if (fs::read_symlink(fd.path(), lec) != path)
				continue;
			const auto comm = read_file(proc.path() / "comm");
			who.push_back(pid + " (" + (comm ? comm->substr(0, comm->find('\n')) : "?") + ")");
			break;
		}
	}
	return who;
}

void replace_file(const std::string &path, const std::string &content)
{
	const std::string tmp = path + ".tmp";
	{
		std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
		out << content;
		out.close();
		if (!out) {
			const int err = errno;
			std::remove(tmp.c_str());
			throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
		}
	}
	if (std::rename(tmp.c_str(), path.c_str()) != 0) {
		const int err = errno;
		std::remove(tmp.c_str());
		throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
	}
}

std::optional<std::string> module_version()
{
	auto v = read_file("/sys/module/kprof/version");
	if (!v)
		return std::nullopt;
	v->erase(v->find_last_not_of(" \n") + 1);
	return v;
}

namespace {

// kprof.ko as modprobe finds it for the running kernel (a package's or
// DKMS's, in modules.dep), or nullopt.
std::optional<std::string> installed_module()
{
	struct utsname u {};
	if (uname(&u) != 0)
		return std::nullopt;
	const std::string dir = std::string("/lib/modules/") + u.release + "/";
	std::ifstream in(dir + "modules.dep");
	for (std::string line; std::getline(in, line);) {
		const std::string path = line.substr(0, line.find(':'));
		const std::string base = path.substr(path.rfind('/') + 1);
		if (base == "kprof.ko" || base.rfind("kprof.ko.", 0) == 0)
			return path.rfind('/', 0) == 0 ? path : dir + path;
	}
	return std::nullopt;
}

}  // namespace

void require_module()
{
	if (module_version())
		return;
	if (const auto path = installed_module())
		throw std::runtime_error("kprof.ko is not loaded: modprobe kprof (installed for this kernel: " + *path +
					 "), then load the drivers that use it");
	throw std::runtime_error("kprof.ko is not loaded: insmod kprof.ko (then load the drivers that use it)");
}

std::vector<std::string> devices(const std::string &debugfs)
{
	std::vector<std::string> out;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(debugfs, ec))
		if (e.is_directory())
			out.push_back(e.path().filename());
	std::sort(out.begin(), out.end());
	return out;
}

namespace {

std::map<std::string, std::map<std::string, uint64_t>> read_each(const std::string &debugfs, const char *file)
{
	std::map<std::string, std::map<std::string, uint64_t>> out;
	for (const auto &d : devices(debugfs))
		if (auto text = read_file(debugfs + "/" + d + "/" + file))
			out[d] = parse_counters(*text);
	return out;
}

}  // namespace

std::map<std::string, std::map<std::string, uint64_t>> read_counters(const std::string &debugfs)
{
	return read_each(debugfs, "counters");
}

std::map<std::string, std::map<std::string, uint64_t>> read_emitted(const std::string &debugfs)
{
	return read_each(debugfs, "emitted");
}

std::map<std::string, std::map<std::string, uint64_t>> read_girq_emitted(const std::string &debugfs)
{
	const std::string path = debugfs + "/girq_emitted";
	const auto text = read_file(path);
	if (!text)
		throw std::runtime_error("cannot read " + path + ": is this kprof.ko older than kprofctl?");
	return parse_girq_emitted(*text);
}

std::map<std::string, std::map<std::string, uint64_t>> read_girq_counters(const std::string &debugfs)
{
	const std::string path = debugfs + "/girq_counters";
	const auto text = read_file(path);
	if (!text)
		throw std::runtime_error("cannot read " + path + ": is this kprof.ko older than kprofctl?");
	return {{kGirqScope, parse_counters(*text)}};
}

std::optional<std::map<std::string, uint64_t>> read_misuse(const std::string &debugfs)
{
	if (const auto text = read_file(debugfs + "/" + kMisuseFile))
		return parse_counters(*text);
	return std::nullopt;
}

std::map<std::string, std::vector<std::string>> read_span_names(const std::string &debugfs)
{
	std::map<std::string, std::vector<std::string>> out;
	for (const auto &d : devices(debugfs)) {
		auto text = read_file(debugfs + "/" + d + "/spans");
		if (!text)
			continue;
		std::istringstream in(*text);
		unsigned id;
		std::string name;
		while (in >> id >> name) {
			auto &v = out[d];
			if (v.size() <= id)
				v.resize(id + 1);
			v[id] = name;
		}
	}
	return out;
}

std::vector<int> trace_cpus(const std::string &instance_dir)
{
	std::vector<int> cpus;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(instance_dir + "/per_cpu", ec)) {
		const std::string n = e.path().filename();
		if (n.rfind("cpu", 0) == 0)
			cpus.push_back(std::stoi(n.substr(3)));
	}
	std::sort(cpus.begin(), cpus.end());
	return cpus;
}

std::optional<std::map<int, std::vector<std::string>>> irq_actions()
{
	std::error_code ec;
	fs::directory_iterator it("/sys/kernel/irq", ec);
	if (ec)
		return std::nullopt;
	std::map<int, std::vector<std::string>> irqs;
	for (const auto &e : it) {
		const std::string n = e.path().filename();
		const auto text = read_file(e.path() / "actions");
		if (!text || n.empty() || !std::all_of(n.begin(), n.end(), ::isdigit))
			continue;
		auto &names = irqs[std::stoi(n)];
		std::istringstream in(*text);
		for (std::string name; std::getline(in, name, ',');) {
			while (!name.empty() && (name.back() == '\n' || name.back() == ' '))
				name.pop_back();
			if (!name.empty())
				names.push_back(name);
		}
	}
	return irqs;
}

double cpu_seconds()
{
	rusage ru{};
	getrusage(RUSAGE_SELF, &ru);
	auto s = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
	return s(ru.ru_utime) + s(ru.ru_stime);
}

}  // namespace kprof::sys
