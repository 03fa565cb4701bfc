// SPDX-License-Identifier: GPL-2.0
#include "sys/window.hpp"

#include "cmd/commands.hpp"
#include "sys/sys.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char **environ;

namespace kprof {

namespace {

inline constexpr const char *kDmaLatencyFile = "/dev/cpu_dma_latency";


// /dev/cpu_dma_latency held at @us, as cyclictest and rtla do: the
// request lasts while the file is open.
Fd hold_dma_latency(unsigned us)
{
	Fd fd(::open(kDmaLatencyFile, O_WRONLY | O_CLOEXEC));
	if (fd.get() < 0)
		throw std::runtime_error(std::string("--dma-latency: cannot open ") + kDmaLatencyFile + ": " +
					 std::strerror(errno));
	const int32_t v = int32_t(us);
	if (::write(fd.get(), &v, sizeof(v)) != ssize_t(sizeof(v)))
		throw std::runtime_error(std::string("--dma-latency: writing ") + kDmaLatencyFile + ": " +
					 std::strerror(errno));
	return fd;
}

}  // namespace

void set_priority(const Priority &p)
{
	using P = Priority::Policy;
	const int policy = p.policy == P::Fifo ? SCHED_FIFO : p.policy == P::Rr ? SCHED_RR : SCHED_OTHER;
	sched_param sp{};
	sp.sched_priority = p.policy == P::Other ? 0 : p.value;
	if (sched_setscheduler(0, policy | SCHED_RESET_ON_FORK, &sp) != 0)
		throw std::runtime_error(std::string("-P: sched_setscheduler: ") + std::strerror(errno));
	if (p.policy == P::Other && setpriority(PRIO_PROCESS, 0, p.value) != 0)
		throw std::runtime_error(std::string("-P: setpriority: ") + std::strerror(errno));
}

Fd::~Fd()
{
	if (fd_ >= 0)
		::close(fd_);
}

Workload::Workload(const std::vector<std::string> &argv) : argv_(argv)
{
	std::vector<char *> args;
	for (auto &a : argv_)
		args.push_back(a.data());
	args.push_back(nullptr);
	const int err = posix_spawnp(&pid_, args[0], nullptr, nullptr, args.data(), environ);
	if (err)
		throw std::runtime_error("cannot run '" + argv_[0] + "': " + std::strerror(err));
}

Workload::~Workload()
{
	if (status_)
		return;
	::kill(pid_, SIGKILL);
	while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR)
		;
}

bool Workload::exited()
{
	if (status_)
		return true;
	int st = 0;
	pid_t r;
	while ((r = ::waitpid(pid_, &st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == pid_)
		status_ = st;
	return status_.has_value();
}

WorkloadEnd Workload::end()
{
	if (!exited()) {
		ended_by_us_ = true;
		::kill(pid_, SIGTERM);
		const auto until = Window::Clock::now() + kGrace;
		while (!exited() && Window::Clock::now() < until)
			std::this_thread::sleep_for(std::chrono::milliseconds(20));
		if (!exited()) {
			::kill(pid_, SIGKILL);
			int st = 0;
			while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR)
				;
			status_ = st;
		}
	}
	WorkloadEnd w;
	w.command = argv_;
	w.ended_by_kprofctl = ended_by_us_;
	if (WIFSIGNALED(*status_)) {
		w.signal = WTERMSIG(*status_);
		w.status = 128 + w.signal;
	} else {
		w.status = WEXITSTATUS(*status_);
	}
	return w;
}

void Window::End::into(Report &rep) const
{
	rep.duration_s = duration_s;
	rep.cpu_s = cpu_s;
	rep.system = system;
	rep.workload = workload;
}

Window::Window(const CollectOptions &opts) : duration_(opts.duration)
{
	if (opts.priority)
		set_priority(*opts.priority);
	if (opts.dma_latency_us)
		dma_ = hold_dma_latency(*opts.dma_latency_us);
	start_ = Clock::now();
	cpu0_ = sys::cpu_seconds();
	sys0_ = sys::system_snapshot();
	if (!opts.command.empty())
		workload_.emplace(opts.command);
}

bool Window::over()
{
	return g_stop || (duration_.count() && Clock::now() - start_ >= duration_) || (workload_ && workload_->exited());
}

Window::Clock::duration Window::wait_at_most(Clock::duration want) const
{
	if (duration_.count())
		want = std::min<Clock::duration>(want, start_ + duration_ - Clock::now());
	if (workload_)
		want = std::min<Clock::duration>(want, kProgramPoll);
	return std::max<Clock::duration>(want, Clock::duration::zero());
}

void Window::wait()
{
	while (!over())
		std::this_thread::sleep_for(wait_at_most(kSleep));
}

Window::End Window::close()
{
	End e;
	e.duration_s = std::chrono::duration<double>(Clock::now() - start_).count();
	e.cpu_s = sys::cpu_seconds() - cpu0_;
	e.system = system_between(sys0_, sys::system_snapshot(), e.duration_s);
	if (workload_)
		e.workload = workload_->end();
	return e;
}

}  // namespace kprof
