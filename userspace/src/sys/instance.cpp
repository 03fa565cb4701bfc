// SPDX-License-Identifier: GPL-2.0
#include "sys/instance.hpp"

#include "core/report.hpp"
#include "sys/sys.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kprof {

namespace {

// Where the lock and restore records live, in order of preference.
const char *const kStateDirs[] = {"/run/kprofctl", "/tmp/kprofctl"};
constexpr const char *kStateDirEnv = "KPROFCTL_STATE_DIR";

// A directory of ours: not a link, owned by us, writable by nobody else
// (/tmp/kprofctl could have been made by anyone).
bool ours(const std::string &dir)
{
	struct stat st;
	return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH)) && access(dir.c_str(), W_OK | X_OK) == 0;
}

// The first state directory that exists or can be made, and is ours.
std::optional<std::string> state_dir()
{
	std::vector<std::string> dirs;
	if (const char *env = std::getenv(kStateDirEnv); env && *env)
		dirs.emplace_back(env);
	dirs.insert(dirs.end(), std::begin(kStateDirs), std::end(kStateDirs));
	for (const auto &d : dirs) {
		mkdir(d.c_str(), 0700);
		if (ours(d))
			return d;
	}
	return std::nullopt;
}

std::string escape(const std::string &s)
{
	std::string o;
	for (char c : s)
		o += c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
	return o;
}

std::string unescape(const std::string &s)
{
	std::string o;
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 1 < s.size()) {
			o += s[i + 1] == 'n' ? '\n' : s[i + 1];
			i++;
		} else {
			o += s[i];
		}
	}
	return o;
}

// What to write back so that a tracefs file reads as @old did.
std::string restore_value(const std::string &rel, std::string old)
{
	while (!old.empty() && old.back() == '\n')
		old.pop_back();
	const auto slash = rel.rfind('/');
	const std::string file = slash == std::string::npos ? rel : rel.substr(slash + 1);
	if (file == "filter" && old == "none")
		return "0";	// "none" reads back for no filter; "0" clears
	if (file == "buffer_size_kb")
		return old.substr(0, old.find(' '));	// "7 (expanded: 1408)"
	return old;
}

}  // namespace

Instance::Instance(const std::string &name, Mode mode) : name_(name), mode_(mode)
{
	const std::string tdir = sys::tracing_dir();
	dir_ = tdir + "/instances/" + name;
	lock();
	try {
		cleanup_stale();
		const bool existed = tracefs_instance_exists(name.c_str());
		if (!existed && mode == Mode::Session && lock_fd_ >= 0) {
			// Mark it ours before it exists: a kill in between leaves
			// an owner file and no instance, which cleans up fine.
			std::ofstream(owner_path_) << "session " << getpid() << "\n";
		}
		inst_.reset(tracefs_instance_create(name.c_str()));
		if (!inst_)
			throw std::runtime_error("cannot create tracefs instance '" + name + "': " + std::strerror(errno));
		created_ = !existed;
		if (created_ && mode == Mode::Session)
			set("tracing_on", "0", false);	// tracing stays off until configured
	} catch (...) {
		if (lock_fd_ >= 0)
			close(lock_fd_);
		throw;
	}
}

void Instance::lock()
{
	const auto dir = state_dir();
	if (!dir) {
		std::cerr << "kprofctl: warning: no writable state directory of root's own ($" << kStateDirEnv
			  << ", /run/kprofctl, /tmp/kprofctl): a concurrent kprofctl on this instance is not"
			     " detected, and a killed run is not cleaned up by the next\n";
		return;
	}
	lock_path_ = *dir + "/" + name_ + ".lock";
	owner_path_ = *dir + "/" + name_ + ".owner";
	restore_path_ = *dir + "/" + name_ + ".restore";
	lock_fd_ = open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd_ < 0)
		throw std::runtime_error("cannot create " + lock_path_ + ": " + std::strerror(errno));
	if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
		std::string pid = sys::read_file(lock_path_).value_or("?");
		close(lock_fd_);
		throw std::runtime_error("instance '" + name_ + "' is busy: another kprofctl (pid " +
					 pid.substr(0, pid.find('\n')) + ") is using it; wait or pick --instance");
	}
	if (ftruncate(lock_fd_, 0) == 0) {
		const std::string me = std::to_string(getpid()) + "\n";
		if (write(lock_fd_, me.data(), me.size()) < 0) {
			// The pid is only informative.
		}
	}
}

void Instance::refuse_unread() const
{
	if (created_)
		return;
	uint64_t entries = 0;
	for (int cpu : sys::trace_cpus(dir_))
		entries += parse_ring_stats(cpu_stats(cpu)).entries;
	if (entries)
		throw std::runtime_error("instance '" + name_ + "' holds " + std::to_string(entries) +
					 " unread events that this run would discard: read or clear them (echo > " +
					 dir_ + "/trace), or pick another --instance");
}

std::string Instance::cpu_stats(int cpu) const
{
	const std::string path = dir_ + "/per_cpu/cpu" + std::to_string(cpu) + "/stats";
	auto text = sys::read_file(path);
	if (!text)
		throw std::runtime_error("cannot read " + path);
	return *text;
}

uint64_t Instance::cpu_buffer_kb(int cpu) const
{
	const ssize_t kb = tracefs_instance_get_buffer_size(inst_.get(), cpu);
	if (kb < 0)
		throw std::runtime_error("cannot read " + dir_ + "/per_cpu/cpu" + std::to_string(cpu) + "/buffer_size_kb");
	return uint64_t(kb);
}

void Instance::cleanup_stale()
{
	if (lock_fd_ < 0)
		return;
	// We hold the lock, so whoever left these files is gone.
	std::ostringstream what;
	if (auto text = sys::read_file(restore_path_)) {
		std::istringstream in(*text);
		int n = 0;
		for (std::string line; std::getline(in, line);) {
			const auto tab = line.find('\t');
			if (tab == std::string::npos)
				continue;
			try {
				sys::write_file(dir_ + "/" + line.substr(0, tab), unescape(line.substr(tab + 1)));
				n++;
			} catch (const std::exception &) {
				// The instance may be gone; the owner check below decides.
			}
		}
		what << "restored " << n << " setting(s) left changed by a killed kprofctl";
		unlink(restore_path_.c_str());
	}
	if (sys::read_file(owner_path_)) {
		if (tracefs_instance_exists(name_.c_str())) {
			std::unique_ptr<tracefs_instance, Free> stale(tracefs_instance_alloc(nullptr, name_.c_str()));
			if (!stale || tracefs_instance_destroy(stale.get()) != 0)
				throw std::runtime_error("a killed kprofctl left instance '" + name_ +
							 "' behind and it cannot be removed (busy? " +
							 std::strerror(errno) + ")");
			what << (what.tellp() > 0 ? "; " : "") << "removed the instance left by a killed kprofctl";
		}
		unlink(owner_path_.c_str());
	}
	recovered_ = what.str();
}

void Instance::save(const std::string &rel)
{
	for (const auto &s : saved_)
		if (s.first == rel)
			return;
	std::optional<std::string> old;
	if (rel == kTraceClockFile) {
		// The file lists every clock, the current one in brackets:
		// libtracefs picks it out.
		std::unique_ptr<char, decltype(&free)> clock(tracefs_get_clock(inst_.get()), free);
		if (clock)
			old = clock.get();
	} else {
		old = sys::read_file(dir_ + "/" + rel);
	}
	if (!old)
		throw std::runtime_error("cannot read " + dir_ + "/" + rel);
	saved_.emplace_back(rel, restore_value(rel, *old));
	if (lock_fd_ >= 0)
		std::ofstream(restore_path_, std::ios::app) << rel << '\t' << escape(saved_.back().second) << '\n';
}

void Instance::set(const std::string &rel, const std::string &value, bool restore)
{
	if (restore)
		save(rel);
	sys::write_file(dir_ + "/" + rel, value);
}

void Instance::restore()
{
	for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
		try {
			sys::write_file(dir_ + "/" + it->first, it->second);
		} catch (const std::exception &e) {
			// Say so, and keep restoring the rest.
			std::cerr << "kprofctl: warning: instance '" << name_ << "': cannot restore " << it->first
				  << " to '" << it->second << "': " << e.what() << '\n';
		}
	}
	saved_.clear();
	if (lock_fd_ >= 0)
		unlink(restore_path_.c_str());
}

void Instance::keep()
{
	saved_.clear();
	if (lock_fd_ >= 0)
		unlink(restore_path_.c_str());
	kept_ = true;
}

Instance::~Instance()
{
	// Restore first: if the instance cannot be removed (a reader holds it
	// open), it is at least left as it was.
	restore();
	const bool remove = mode_ == Mode::Session || !kept_;
	if (created_ && remove && tracefs_instance_destroy(inst_.get()) == 0 && lock_fd_ >= 0)
		unlink(owner_path_.c_str());
	inst_.reset();
	if (lock_fd_ >= 0)
		close(lock_fd_);	// releases the flock
}

namespace {

// The ring buffer's sub-buffer size: buffer_subbuf_size_kb (kernels from
// 6.8), else the page size.
int subbuf_size(const Instance &inst)
{
	if (const auto kb = sys::read_file(inst.dir() + "/buffer_subbuf_size_kb"))
		return std::stoi(*kb) * 1024;
	return int(sysconf(_SC_PAGESIZE));
}

}  // namespace

// trace_pipe_raw is opened here, not by tracefs_cpu_open(), so that the
// descriptor can be polled; libtracefs reads it without blocking.
CpuReader::CpuReader(const Instance &inst, int cpu, ReaderWay want)
	: cpu_(cpu),
	  fd_(open((inst.dir() + "/per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw").c_str(),
		   O_RDONLY | O_NONBLOCK | O_CLOEXEC)),
	  tcpu_(fd_ < 0 ? nullptr : tracefs_cpu_alloc_fd(fd_, subbuf_size(inst), true)),
	  map_(want == ReaderWay::Mmap && tcpu_ ? RingMap::open(fd_) : std::nullopt),
	  way_(map_ ? ReaderWay::Mmap : want == ReaderWay::Read ? ReaderWay::Read : ReaderWay::Splice)
{
	if (!tcpu_) {
		const int err = errno;
		if (fd_ >= 0)
			close(fd_);
		throw std::runtime_error("cannot open the ring buffer of CPU " + std::to_string(cpu) + " in instance '" +
					 inst.name() + "': " + std::strerror(err));
	}
	const int size = tracefs_cpu_read_size(tcpu_);
	page_size_ = size > 0 ? size_t(size) : 4096;
}

CpuReader::~CpuReader()
{
	map_.reset();
	tracefs_cpu_free_fd(tcpu_);
	close(fd_);
}

// A nonblocking read finds nothing with EAGAIN; EINTR is a signal, seen
// by the reading loop.
size_t CpuReader::got(int n, size_t room, bool spliced) const
{
	if (n > 0)
		return std::min(size_t(n), room);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		throw std::runtime_error(std::string(spliced ? "splice()" : "read()") + " of CPU " +
					 std::to_string(cpu_) + "'s ring buffer: " + std::strerror(errno) +
					 (spliced ? " (KPROFCTL_READER=read reads it with read() alone)" : ""));
	return 0;
}

// tracefs_cpu_flush() reads what splice() left in the pipe first, then
// the file: pages keep their order.
size_t CpuReader::read(std::span<uint8_t> into)
{
	return into.size() < page_size_ ? 0 : got(tracefs_cpu_flush(tcpu_, into.data()), into.size(), false);
}

size_t CpuReader::splice(std::span<uint8_t> into)
{
	if (into.size() < page_size_)
		return 0;
	return got(tracefs_cpu_buffered_read(tcpu_, into.data(), true), into.size(), true);
}

}  // namespace kprof
