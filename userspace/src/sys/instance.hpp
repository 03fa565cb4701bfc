// SPDX-License-Identifier: GPL-2.0
// A tracefs instance kprofctl works in, owned for the life of the object.
//
// Get/set/restore: every file set() changes is read first; the destructor
// writes the old values back in reverse order and then, if this object
// created the instance for a session, removes it. The old values are also
// kept in STATE/NAME.restore as they are saved, and a session marks the
// instance as its own in STATE/NAME.owner, so that the run after a SIGKILL
// finds the leftovers and cleans them up. STATE/NAME.lock (flock) tells a
// live run from a dead one: a second kprofctl on the same instance gets
// "busy". STATE is the first usable of $KPROFCTL_STATE_DIR, /run/kprofctl,
// /tmp/kprofctl (kStateDirs); with none, kprofctl runs without that record
// and says so.
#pragma once

#include "core/pagequeue.hpp"
#include "sys/ringmap.hpp"
#include "sys/tracefs_c.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kprof {

class Instance {
public:
	enum class Mode {
		Session,	// latency: create if absent, remove at the end
		Persistent,	// enable/disable: create if absent, leave it
	};

	Instance(const std::string &name, Mode mode);
	~Instance();
	Instance(const Instance &) = delete;
	Instance &operator=(const Instance &) = delete;

	tracefs_instance *get() const { return inst_.get(); }
	const std::string &name() const { return name_; }
	const std::string &dir() const { return dir_; }
	bool created() const { return created_; }
	// What the constructor cleaned up from an earlier, killed run.
	const std::string &recovered() const { return recovered_; }

	// Write @value to @rel (relative to the instance), saving the old value
	// first (once per file) unless @restore is false.
	void set(const std::string &rel, const std::string &value, bool restore = true);
	// Remember @rel's value for restore() without writing it (before a
	// write to a file that changes it as a side effect).
	void save(const std::string &rel);
	// Undo every set() now (also done by the destructor).
	void restore();
	// Persistent mode: the changes are done; without this the destructor
	// undoes them and removes an instance it created, so that a command
	// that fails half-way changes nothing.
	void keep();
	// Throw if the instance existed before and its buffer holds events
	// nobody has read: a session would discard them.
	void refuse_unread() const;
	// per_cpu/cpuN/stats of this instance.
	std::string cpu_stats(int cpu) const;
	// per_cpu/cpuN/buffer_size_kb of this instance.
	uint64_t cpu_buffer_kb(int cpu) const;

private:
	struct Free {
		void operator()(tracefs_instance *i) const { tracefs_instance_free(i); }
	};
	void cleanup_stale();
	void lock();

	std::string name_, dir_, lock_path_, owner_path_, restore_path_;
	Mode mode_;
	int lock_fd_ = -1;
	bool created_ = false;
	bool kept_ = false;
	std::string recovered_;
	std::unique_ptr<tracefs_instance, Free> inst_;
	std::vector<std::pair<std::string, std::string>> saved_;	// rel, old value
};

// The instance's clock, which kprofctl irq -T sets to "mono" and restores.
inline constexpr const char *kTraceClockFile = "trace_clock";

// One CPU's raw ring buffer, read in whole sub-buffer pages.
class CpuReader {
public:
	// @want: Mmap where the kernel allows it (map()), else Splice.
	CpuReader(const Instance &inst, int cpu, ReaderWay want);
	~CpuReader();
	CpuReader(const CpuReader &) = delete;
	CpuReader &operator=(const CpuReader &) = delete;

	int cpu() const { return cpu_; }
	// The trace_pipe_raw descriptor, for poll(): readable once the buffer
	// holds data (buffer_percent is 0 in kprofctl's instance).
	int fd() const { return fd_; }
	// The bytes a read takes: a sub-buffer (a page, or buffer_subbuf_size_kb).
	size_t page_size() const { return page_size_; }
	ReaderWay way() const { return way_; }
	// The next page into @into (page_size() bytes), without blocking,
	// by read(): a page the writers have left, swapped out of the buffer
	// whole, else what the writer's page holds, copied (a page read in
	// part is taken to its end first). Pages splice() took come first.
	// The bytes the kernel gave; 0 when there is none.
	size_t read(std::span<uint8_t> into);
	// The next whole page, by splice() through a pipe (libtracefs takes up
	// to 64 KiB at a time): 0 when the pipe is empty and the kernel has
	// no page the writers have left. Throws on an error.
	size_t splice(std::span<uint8_t> into);
	// The buffer's mapping, if it has one: then pages are taken from it,
	// not read (a read would copy them).
	RingMap *map() { return map_ ? &*map_ : nullptr; }

private:
	int cpu_;
	int fd_;
	tracefs_cpu *tcpu_;
	std::optional<RingMap> map_;	// unmapped before tcpu_ and fd_ go
	ReaderWay way_;
	// What a libtracefs read of a page (@n bytes, or < 0 with errno) left
	// in a buffer of @room bytes: 0 for nothing; throws on an error.
	size_t got(int n, size_t room, bool spliced) const;
	size_t page_size_ = 0;
};

}  // namespace kprof
