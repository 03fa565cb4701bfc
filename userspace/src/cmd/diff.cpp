// SPDX-License-Identifier: GPL-2.0
// `kprofctl diff BEFORE AFTER`: two JSON reports compared (core/diff.hpp).
// Files that are not kprofctl reports are usage errors (exit 2), so that
// exit status 1 means a --fail-if rule was hit, and only that.
#include "cmd/commands.hpp"
#include "core/diff.hpp"
#include "core/export.hpp"
#include "core/report.hpp"
#include "sys/sys.hpp"

#include <iostream>

namespace kprof {

namespace {

Run read_run(const std::string &file)
{
	const auto text = sys::read_file(file);
	if (!text)
		throw UsageError("cannot read " + file);
	const auto j = nlohmann::json::parse(*text, nullptr, false);
	if (j.is_discarded())
		throw UsageError(file + ": not JSON (write the reports with --json)");
	try {
		return load_run(j, file);
	} catch (const std::invalid_argument &e) {
		throw UsageError(e.what());
	}
}

}  // namespace

int run_diff(const DiffOptions &opts)
{
	const Run before = read_run(opts.before), after = read_run(opts.after);
	CompareOptions copts;
	copts.alpha = opts.alpha;
	copts.per_cpu = opts.per_cpu;
	for (const auto &r : opts.fail_if)
		copts.rules.push_back(parse_rule(r));
	const Diff d = compare(before, after, copts);
	if (opts.json)
		std::cout << dump_json(render_diff_json(d)) << '\n';
	else
		std::cout << render_diff_text(d, opts.unit, opts.divisor);
	if (opts.svg)
		sys::replace_file(*opts.svg, render_diff_svg(d));
	return d.hits.empty() ? 0 : 1;
}

}  // namespace kprof
