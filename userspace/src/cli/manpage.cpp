// SPDX-License-Identifier: GPL-2.0
#include "cli/manpage.hpp"

#include <CLI/CLI.hpp>

#include <sstream>

namespace kprof {

namespace {

// "\fB\-d\fR, \fB\-\-duration\fR \fIDURATION\fR", or "\fIEVENT\fR ...".
std::string option_head(const CLI::Option &o)
{
	std::string head;
	for (const auto &s : o.get_snames())
		head += (head.empty() ? "" : ", ") + std::string("\\fB") + troff_escape("-" + s) + "\\fR";
	for (const auto &l : o.get_lnames())
		head += (head.empty() ? "" : ", ") + std::string("\\fB") + troff_escape("--" + l) + "\\fR";
	const std::string type = o.get_type_name();
	if (!o.nonpositional())
		head = "\\fI" + troff_escape(o.get_name()) + "\\fR";
	else if (o.get_type_size() != 0 && !type.empty())
		head += " \\fI" + troff_escape(type) + "\\fR";
	if (o.get_expected_max() > 1)
		head += " ...";
	return head;
}

void write_options(std::ostringstream &m, const CLI::App &app)
{
	for (const CLI::Option *o : app.get_options()) {
		if (o->get_group().empty())
			continue;	// hidden from --help too: an old name that is refused
		m << ".TP\n" << option_head(*o) << '\n' << troff_escape(o->get_description());
		if (o->get_required())
			m << " (required)";
		m << '\n';
	}
}

// A footer: lines indented by two spaces are commands, shown as typed;
// the others are prose, filled into paragraphs.
void write_footer(std::ostringstream &m, const std::string &footer)
{
	std::istringstream in(footer);
	bool literal = false;
	m << ".PP\n";
	for (std::string line; std::getline(in, line);) {
		const bool cmd = line.rfind("  ", 0) == 0;
		if (cmd != literal)
			m << (cmd ? ".IP\n.nf\n" : ".fi\n.PP\n");
		literal = cmd;
		m << troff_escape(cmd ? line.substr(2) : line) << '\n';
	}
	if (literal)
		m << ".fi\n";
}

std::string synopsis(const CLI::App &app)
{
	std::ostringstream m;
	m << ".SY " << app.get_name() << "\n.RB [ \\-h | \\-V ]\n.YS\n";
	for (const CLI::App *sub : app.get_subcommands({}))
		m << ".SY " << app.get_name() << "\n.B " << troff_escape(sub->get_name()) << "\n.RI [ options ]\n.YS\n";
	return m.str();
}

std::string commands(const CLI::App &app)
{
	std::ostringstream m;
	m << ".SS Global options\n";
	write_options(m, app);
	for (const CLI::App *sub : app.get_subcommands({})) {
		m << ".SS \"" << app.get_name() << ' ' << troff_escape(sub->get_name()) << "\"\n"
		  << troff_escape(sub->get_description()) << ".\n";
		write_options(m, *sub);
		// A subcommand without a footer of its own inherits the app's
		// (a pointer to --help), which the page does not need.
		if (!sub->get_footer().empty() && sub->get_footer() != app.get_footer())
			write_footer(m, sub->get_footer());
	}
	return m.str();
}

void replace(std::string &s, const std::string &what, const std::string &with)
{
	const auto at = s.find(what);
	if (at == std::string::npos)
		throw std::invalid_argument("the man page template has no " + what);
	s.replace(at, what.size(), with);
}

}  // namespace

std::string troff_escape(const std::string &text)
{
	std::string out;
	for (char c : text) {
		if (c == '\\')
			out += "\\e";
		else if (c == '-')
			out += "\\-";
		else
			out += c;
	}
	if (!out.empty() && (out[0] == '.' || out[0] == '\''))
		out.insert(0, "\\&");
	return out;
}

std::string render_man(const CLI::App &app, const std::string &templ, const std::string &version,
		       const std::string &date)
{
	std::string page = templ;
	replace(page, "@VERSION@", version);
	replace(page, "@DATE@", date);
	replace(page, "@SYNOPSIS@\n", synopsis(app));
	replace(page, "@COMMANDS@\n", commands(app));
	return page;
}

}  // namespace kprof
