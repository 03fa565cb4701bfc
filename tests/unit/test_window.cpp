// SPDX-License-Identifier: GPL-2.0
// The collection window's program (-- PROGRAM ARGS): it ends the window
// when it exits, its status is kept as a shell's, and one still running
// when the window closes is ended. Runs real processes; needs no root.
#define BOOST_TEST_MODULE kprof_window
#include <boost/test/unit_test.hpp>

#include "cmd/commands.hpp"
#include "sys/window.hpp"

#include <chrono>

volatile std::sig_atomic_t kprof::g_stop = 0;

using namespace kprof;
using namespace std::chrono;

namespace {

CollectOptions with_program(std::vector<std::string> argv, nanoseconds duration = {})
{
	CollectOptions o;
	o.command = std::move(argv);
	o.duration = duration;
	return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_window_ends_when_the_program_exits)
{
	Window w(with_program({"sh", "-c", "sleep 0.3; exit 3"}, seconds(60)));
	BOOST_TEST(!w.over());
	BOOST_TEST(w.wait_at_most(seconds(1)) <= milliseconds(100));
	w.wait();
	const auto end = w.close();
	BOOST_TEST(end.duration_s >= 0.29);
	BOOST_TEST(end.duration_s < 30);
	BOOST_REQUIRE(end.workload);
	BOOST_TEST(end.workload->status == 3);
	BOOST_TEST(end.workload->signal == 0);
	BOOST_TEST(!end.workload->ended_by_kprofctl);
	BOOST_TEST((end.workload->command == std::vector<std::string>{"sh", "-c", "sleep 0.3; exit 3"}));
}

BOOST_AUTO_TEST_CASE(a_program_still_running_at_the_duration_is_ended)
{
	Window w(with_program({"sleep", "60"}, milliseconds(200)));
	w.wait();
	const auto end = w.close();
	BOOST_TEST(end.duration_s < 5);
	BOOST_REQUIRE(end.workload);
	BOOST_TEST(end.workload->signal == SIGTERM);
	BOOST_TEST(end.workload->status == 128 + SIGTERM);
	BOOST_TEST(end.workload->ended_by_kprofctl);
}

BOOST_AUTO_TEST_CASE(a_program_killed_by_a_signal_has_a_shells_status)
{
	Window w(with_program({"sh", "-c", "kill -KILL $$"}));
	w.wait();
	const auto end = w.close();
	BOOST_TEST(end.workload->signal == SIGKILL);
	BOOST_TEST(end.workload->status == 137);
	BOOST_TEST(!end.workload->ended_by_kprofctl);
}

BOOST_AUTO_TEST_CASE(a_program_that_cannot_start_is_an_error)
{
	try {
		Window w(with_program({"/no/such/program"}));
		BOOST_ERROR("started a program that does not exist");
	} catch (const std::runtime_error &e) {
		BOOST_TEST(std::string(e.what()) == "cannot run '/no/such/program': No such file or directory");
	}
}

BOOST_AUTO_TEST_CASE(without_a_program_the_duration_ends_it)
{
	Window w(with_program({}, milliseconds(150)));
	BOOST_TEST(w.wait_at_most(seconds(10)) <= milliseconds(150));
	w.wait();
	const auto end = w.close();
	BOOST_TEST(end.duration_s >= 0.149);
	BOOST_TEST(!end.workload);
}
