// SPDX-License-Identifier: GPL-2.0
#include "cli.hpp"

#include <algorithm>
#include <ostream>

namespace kprof {

namespace {

// Thrown when no subcommand was given: usage on stderr, exit 2.
class NoCommand : public CLI::ParseError {
public:
	NoCommand() : CLI::ParseError("NoCommand", "a subcommand is required", CLI::ExitCodes::RequiredError) {}
};

}  // namespace

Cli::Cli() : app_{"kprofctl: control kprof tracepoints and report driver latency", "kprofctl"}
{
	app_.require_subcommand(0, 1);
	app_.add_flag("-V,--version", version_, "print kprofctl's version and exit");
	app_.footer("Exit status: 0 ok, 1 runtime error, 2 usage error.\n"
		    "Run 'kprofctl COMMAND --help' for a command's options.");

	status_cmd_ = app_.add_subcommand("status", "show whether kprof.ko is loaded and where tracefs is");
	status_cmd_->add_flag("--json", status_.json, "print JSON instead of text");
}

Command Cli::parse(const std::vector<std::string> &args)
{
	// CLI11 consumes a vector in reverse order.
	std::vector<std::string> rev(args.rbegin(), args.rend());
	app_.parse(rev);
	if (version_)
		return VersionRequest{};
	if (status_cmd_->parsed())
		return status_;
	throw NoCommand();
}

int Cli::exit(const CLI::ParseError &e, std::ostream &out, std::ostream &err)
{
	if (dynamic_cast<const NoCommand *>(&e)) {
		err << app_.help();
		return 2;
	}
	// CLI11 prints the help text, or the error with a pointer to --help.
	return app_.exit(e, out, err) == 0 ? 0 : 2;
}

}  // namespace kprof
