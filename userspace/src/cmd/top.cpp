// SPDX-License-Identifier: GPL-2.0
// `kprofctl top`: kprof.ko's in-kernel histograms, read in windows of one
// interval and shown live, like rtla timerlat top. The pure part (windows,
// totals, the table) is topview.cpp's; this file does debugfs, the
// terminal and the keys.
#include "sys/collect.hpp"
#include "cmd/commands.hpp"
#include "core/inkernel.hpp"
#include "sys/sys.hpp"
#include "core/topview.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

// The terminal while top runs: the alternate screen without a cursor, and
// keys read one at a time without echo. Restored by the destructor, so on
// q, the end of -d, signals and errors alike. Not a terminal: plain frames.
class Screen {
public:
	Screen() : tty_out_(isatty(STDOUT_FILENO)), keys_(true)
	{
		if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_) == 0) {
			termios raw = saved_;
			raw.c_lflag &= ~(ICANON | ECHO);
			raw.c_cc[VMIN] = 0;
			raw.c_cc[VTIME] = 0;
			raw.c_cc[VSUSP] = _POSIX_VDISABLE;	// a stopped top would leave the terminal raw
			raw_ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0;
		}
		if (tty_out_)
			put("\033[?1049h\033[?25l");
	}
	Screen(const Screen &) = delete;
	Screen &operator=(const Screen &) = delete;
	~Screen()
	{
		if (tty_out_)
			put("\033[?25h\033[?1049l");
		if (raw_)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
	}

	bool tty() const { return tty_out_; }
	void show(const std::string &frame) { put(tty_out_ ? "\033[H\033[2J" + frame : frame + "\n"); }

	// Columns and lines, 0 if unknown (not a terminal).
	std::pair<int, int> size() const
	{
		winsize ws{};
		if (!tty_out_ || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
			return {0, 0};
		return {ws.ws_col, ws.ws_row};
	}

	// A key pressed before @until, or 0 (also on a signal, which ends the
	// wait early).
	char key(Clock::time_point until)
	{
		const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
		pollfd p{STDIN_FILENO, POLLIN, 0};
		const int n = poll(keys_ ? &p : nullptr, keys_ ? 1 : 0, std::max<int>(0, int(left.count())));
		if (n <= 0)
			return 0;
		char c = 0;
		if (read(STDIN_FILENO, &c, 1) != 1)
			keys_ = false;	// end of input: only time and signals end the run now
		return c;
	}

private:
	void put(const std::string &s)
	{
		std::cout << s;
		std::cout.flush();
	}

	bool tty_out_;
	bool keys_;
	bool raw_ = false;
	termios saved_{};
};

// kprof/enable held on while top runs (and set back if top turned it on):
// the hooks then keep counting in kprof/<dev>/latency while a window is
// frozen and read, so MISSED holds every sample of the gaps. Without it,
// freezing the last user of the hooks' key would switch the hooks off
// for the gap, and its samples would go uncounted.
class HooksOn {
public:
	explicit HooksOn(const std::string &file) : file_(file)
	{
		const auto v = sys::read_file(file_);
		if (!v)
			throw std::runtime_error("no " + file_ + ": load the kprof.ko of this kprofctl's version");
		if (std::stoi(*v) == 0) {
			sys::write_file(file_, "1");
			set_ = true;
		}
	}
	HooksOn(const HooksOn &) = delete;
	HooksOn &operator=(const HooksOn &) = delete;
	~HooksOn()
	{
		try {
			if (set_)
				sys::write_file(file_, "0");
		} catch (const std::exception &e) {
			std::cerr << "kprofctl: " << e.what() << '\n';
		}
	}

private:
	std::string file_;
	bool set_ = false;
};

std::set<EventKind> kinds_of(const std::vector<std::string> &labels)
{
	std::set<EventKind> kinds;
	for (const auto &l : labels)
		kinds.insert(kind_of_label(l));
	return kinds;
}

std::vector<std::string> chosen_devices(const std::string &dbg, const TopOptions &opts)
{
	std::vector<std::string> out;
	for (const auto &d : sys::devices(dbg))
		if (!opts.device || *opts.device == d)
			out.push_back(d);
	return out;
}

// kprof.ko's always-on sample counts of the chosen devices and events.
TopState::Counts read_counts(const std::string &dbg, const TopOptions &opts)
{
	const auto kinds = kinds_of(opts.events);
	TopState::Counts counts;
	for (const auto &d : chosen_devices(dbg, opts))
		if (const auto text = sys::read_file(dbg + "/" + d + "/latency"))
			for (const auto &[label, n] : parse_latency_counts(*text))
				if (kinds.empty() || kinds.count(kind_of_label(label)))
					counts[d][label] = n;
	return counts;
}

// The frozen window's histograms, merged over the CPUs.
std::map<TopState::Key, Histogram> read_window(const std::string &dbg, const TopOptions &opts)
{
	KernelStats ks;
	const auto kinds = kinds_of(opts.events);
	for (const auto &d : chosen_devices(dbg, opts))
		if (const auto text = sys::read_file(dbg + "/" + d + "/hist"))
			load_kernel_hist(*text, d, kinds, false, ks);
	if (ks.samples && ks.state != AggState::Frozen)
		throw std::runtime_error("the in-kernel aggregation was switched by someone else meanwhile");
	return std::move(ks.totals);
}

std::string frame(const TopState &st, const TopOptions &opts, const Screen &screen)
{
	const auto [cols, lines] = screen.size();
	return render_top(st, opts.unit, opts.divisor, cols, lines);
}

}  // namespace

int run_top(const TopOptions &opts)
{
	sys::require_root();
	sys::require_module();
	const auto dbg = sys::kprof_debugfs();
	if (!dbg)
		throw std::runtime_error("kprofctl top reads kprof.ko's histograms from debugfs, which is not mounted "
					 "(mount -t debugfs none /sys/kernel/debug)");
	if (opts.device && chosen_devices(*dbg, opts).empty())
		throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");

	TopState st;
	std::string last;
	{
		HooksOn hooks(*dbg + "/" + kEnableFile);
		st.start(read_counts(*dbg, opts));
		Aggregation agg(*dbg + "/" + kAggregateFile);
		Screen screen;
		const auto t0 = Clock::now();
		auto opened = t0;
		screen.show(last = frame(st, opts, screen));
		const auto end = opts.duration.count() ? t0 + opts.duration : Clock::time_point::max();
		while (!g_stop) {
			const auto until = std::min(opened + opts.interval, end);
			bool quit = false;
			while (!g_stop && !quit && Clock::now() < until) {
				const char c = screen.key(until);
				quit = c == 'q' || c == 'Q';
				if (c == 'r' || c == 'R')
					st.reset();
			}
			if (g_stop)
				break;
			agg.freeze();
			const auto closed = Clock::now();
			auto hists = read_window(*dbg, opts);
			auto counts = read_counts(*dbg, opts);
			agg.restart();
			st.window(hists, std::chrono::duration<double>(closed - opened).count(), counts);
			opened = Clock::now();
			screen.show(last = frame(st, opts, screen));
			if (quit || closed >= end)
				break;
		}
		if (!screen.tty())
			return 0;	// every frame is printed already
	}	// the terminal and the aggregation restored
	std::cout << last;	// the last table stays on the terminal
	return 0;
}

}  // namespace kprof
