// SPDX-License-Identifier: GPL-2.0
// kprofctl(8), generated from the command line itself: every subcommand,
// option, argument type and footer comes from the CLI11 app that parses
// them, so the page cannot drift from --help. The prose around them
// (DESCRIPTION, EXIT STATUS, FILES, ...) is a troff template with
// placeholders, doc/kprofctl.8.in.
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace kprof {

// @text escaped for troff: backslashes, hyphens as \- (so that options
// render as ASCII and can be searched and pasted), a leading . or '.
std::string troff_escape(const std::string &text);

// The template with @VERSION@, @DATE@, @SYNOPSIS@ and @COMMANDS@ filled
// in from @app.
std::string render_man(const CLI::App &app, const std::string &templ, const std::string &version,
		       const std::string &date);

}  // namespace kprof
