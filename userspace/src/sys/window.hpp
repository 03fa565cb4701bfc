// SPDX-License-Identifier: GPL-2.0
// A collection window and what holds while it lasts: its length, kprofctl's
// CPU time and the system's counters over it; --dma-latency, -P, and a
// program that runs within it and ends it (-- PROGRAM ARGS).
#pragma once

#include "cli/options.hpp"
#include "core/report.hpp"
#include "core/system.hpp"

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kprof {

// A file descriptor, closed when it goes.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
	Fd &operator=(Fd &&o) noexcept
	{
		std::swap(fd_, o.fd_);
		return *this;
	}
	~Fd();
	int get() const { return fd_; }

private:
	int fd_ = -1;
};

// The program of -- PROGRAM ARGS, started by posix_spawnp in kprofctl's
// process group (Ctrl-C reaches both), with the default scheduling: -P is
// set with SCHED_RESET_ON_FORK, so the program does not inherit it.
class Workload {
public:
	// Throws if it cannot be started (not found, not executable).
	explicit Workload(const std::vector<std::string> &argv);
	Workload(const Workload &) = delete;
	Workload &operator=(const Workload &) = delete;
	// Killed (SIGKILL) and reaped if it is still running.
	~Workload();
	// It has exited (and is reaped).
	bool exited();
	// How it ended; if it still runs: SIGTERM, and SIGKILL after kGrace.
	WorkloadEnd end();

private:
	static constexpr std::chrono::seconds kGrace{5};
	std::vector<std::string> argv_;
	pid_t pid_ = -1;
	std::optional<int> status_;	// waitpid()'s, once reaped
	bool ended_by_us_ = false;
};

// -P for the calling thread (sched_setscheduler() is per thread); the
// threads and processes it starts begin at the default (reset on fork).
void set_priority(const Priority &p);

// A collection window, from construction to close().
class Window {
public:
	using Clock = std::chrono::steady_clock;
	struct End {
		double duration_s = 0, cpu_s = 0;	// the window's length; kprofctl's CPU time in it
		SystemContext system;
		std::optional<WorkloadEnd> workload;
		void into(Report &rep) const;
	};
	// Sets -P, holds --dma-latency, takes the first readings, then starts
	// the program. Throws, with nothing left held, if one of them fails.
	explicit Window(const CollectOptions &opts);
	Clock::time_point start() const { return start_; }
	// A signal came, the duration is over, or the program exited.
	bool over();
	// @want, cut to the duration's end and, while a program runs, to
	// kProgramPoll: how long a reader may wait before asking over().
	Clock::duration wait_at_most(Clock::duration want) const;
	// Sleeps until over().
	void wait();
	// The readings at the end; the program ended if it still runs.
	End close();

private:
	static constexpr std::chrono::milliseconds kProgramPoll{100}, kSleep{20};
	std::chrono::nanoseconds duration_;	// 0: none
	Fd dma_;
	Clock::time_point start_;
	double cpu0_;
	SystemSnapshot sys0_;
	std::optional<Workload> workload_;
};

}  // namespace kprof
