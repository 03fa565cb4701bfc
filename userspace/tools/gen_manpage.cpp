// SPDX-License-Identifier: GPL-2.0
// Build tool: kprofctl(8) from kprofctl's own command line and the prose
// template. gen_manpage TEMPLATE VERSION DATE OUT
#include "cli/cli.hpp"
#include "cli/manpage.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <sstream>

int main(int argc, char **argv)
{
	if (argc != 5) {
		std::cerr << "usage: gen_manpage TEMPLATE VERSION DATE OUT\n";
		return 2;
	}
	std::ifstream in(argv[1]);
	std::stringstream templ;
	templ << in.rdbuf();
	if (!in) {
		std::cerr << "gen_manpage: cannot read " << argv[1] << '\n';
		return 1;
	}
	try {
		const kprof::Cli cli;
		const std::string page = kprof::render_man(cli.app(), templ.str(), argv[2], argv[3]);
		std::ofstream out(argv[4], std::ios::trunc);
		out << page;
		out.close();
		if (!out)
			throw std::runtime_error(std::string("cannot write ") + argv[4]);
	} catch (const std::exception &e) {
		std::cerr << "gen_manpage: " << e.what() << '\n';
		return 1;
	}
	return 0;
}
