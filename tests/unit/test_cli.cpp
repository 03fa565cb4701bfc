// SPDX-License-Identifier: GPL-2.0
#define BOOST_TEST_MODULE kprofctl_cli
#include <boost/test/unit_test.hpp>

#include "cli.hpp"

#include <sstream>

using kprof::Cli;

BOOST_AUTO_TEST_CASE(status_defaults)
{
	Cli cli;
	auto cmd = cli.parse({"status"});
	BOOST_REQUIRE(std::holds_alternative<kprof::StatusOptions>(cmd));
	BOOST_TEST(!std::get<kprof::StatusOptions>(cmd).json);
}

BOOST_AUTO_TEST_CASE(status_json)
{
	Cli cli;
	auto cmd = cli.parse({"status", "--json"});
	BOOST_TEST(std::get<kprof::StatusOptions>(cmd).json);
}

BOOST_AUTO_TEST_CASE(version_flag)
{
	Cli cli;
	BOOST_TEST(std::holds_alternative<kprof::VersionRequest>(cli.parse({"--version"})));
}

BOOST_AUTO_TEST_CASE(help_exits_zero_with_text_on_stdout)
{
	Cli cli;
	std::ostringstream out, err;
	try {
		cli.parse({"--help"});
		BOOST_FAIL("--help must throw");
	} catch (const CLI::ParseError &e) {
		BOOST_TEST(cli.exit(e, out, err) == 0);
	}
	BOOST_TEST(out.str().find("status") != std::string::npos);
	BOOST_TEST(err.str().empty());
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_two)
{
	const std::vector<std::vector<std::string>> bad = {
		{},                     // no subcommand
		{"frobnicate"},         // unknown subcommand
		{"status", "--bogus"},  // unknown option
	};
	for (const auto &args : bad) {
		Cli cli;
		std::ostringstream out, err;
		try {
			cli.parse(args);
			BOOST_FAIL("usage error not detected");
		} catch (const CLI::ParseError &e) {
			BOOST_TEST(cli.exit(e, out, err) == 2);
		}
		BOOST_TEST(!err.str().empty());
	}
}
