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
#include <functional>
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

// The live view: a frame each interval until q, -d or a signal; @close
// ends a window of @seconds and feeds @st. The terminal is restored when
// this returns the last frame (empty if it was not a terminal, where
// every frame is printed already).
std::string live(const TopOptions &opts, TopSource src, TopState &st, const std::function<void(double)> &close)
{
	Screen screen;
	auto show = [&] {
		const auto [cols, lines] = screen.size();
		std::string f = render_top(st, src, opts.unit, opts.divisor, cols, lines);
		screen.show(f);
		return f;
	};
	const auto t0 = Clock::now();
	auto opened = t0;
	std::string last = show();
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
		const auto closed = Clock::now();
		close(std::chrono::duration<double>(closed - opened).count());
		opened = Clock::now();
		last = show();
		if (quit || closed >= end)
			break;
	}
	return screen.tty() ? last : std::string();
}

// The devices' hooks: kprof/aggregate frozen, read and started again
// each window; the gaps counted against the always-on totals.
std::string top_devices(const std::string &dbg, const TopOptions &opts)
{
	if (opts.device && chosen_devices(dbg, opts).empty())
		throw UsageError("no kprof device '" + *opts.device + "'; 'kprofctl status' lists them");
	TopState st;
	HooksOn hooks(dbg + "/" + kEnableFile);
	st.start(read_counts(dbg, opts));
	Aggregation agg(dbg + "/" + kAggregateFile);
	return live(opts, TopSource::Devices, st, [&](double seconds) {
		agg.freeze();
		auto hists = read_window(dbg, opts);
		auto counts = read_counts(dbg, opts);
		agg.restart();
		st.window(hists, seconds, counts);
	});
}

// Histograms read while they aggregate (state @on) into @st's next window.
void read_growing(TopState &st, double seconds, const KernelStats &ks, uint64_t lost, AggState on)
{
	if (ks.state != on)
		throw std::runtime_error("the in-kernel aggregation was switched by someone else meanwhile");
	st.reading(ks.totals, seconds, lost);
}

// The IRQ tracker's histograms (kprof/girq_aggregate), on for the run.
std::string top_irqs(const std::string &dbg, const TopOptions &opts)
{
	TopState st;
	st.start({});
	Aggregation agg(dbg + "/" + kGirqAggregateFile);
	const std::string file = dbg + "/" + kGirqHistFile;
	return live(opts, TopSource::Irqs, st, [&](double seconds) {
		const auto text = sys::read_file(file);
		if (!text)
			throw std::runtime_error("cannot read " + file);
		KernelStats ks;
		load_girq_hist(*text, {}, false, ks);
		read_growing(st, seconds, ks, ks.untracked, AggState::On);
	});
}

// Function probes (kprof/func) for the run, as kprofctl func puts them.
std::string top_functions(const std::string &dbg, const TopOptions &opts)
{
	FuncProbes probes(dbg);
	add_functions(probes, opts.functions, opts.module, opts.match);
	TopState st;
	st.start({});
	probes.start();
	return live(opts, TopSource::Functions, st, [&](double seconds) {
		KernelStats ks;
		std::vector<FuncCounts> funcs;
		load_func_hist(probes.read(), false, ks, funcs);
		uint64_t lost = 0;
		for (const auto &f : funcs)
			lost += f.lost();
		read_growing(st, seconds, ks, lost, AggState::On);
	});
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
	const std::string last = opts.irq			      ? top_irqs(*dbg, opts)
				 : opts.module || !opts.functions.empty() ? top_functions(*dbg, opts)
									  : top_devices(*dbg, opts);
	std::cout << last;	// the last table stays on the terminal
	return 0;
}

}  // namespace kprof
