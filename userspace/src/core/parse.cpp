// SPDX-License-Identifier: GPL-2.0
#include "core/parse.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace kprof {

namespace {

bool parse_u64(std::string_view s, uint64_t &out)
{
	if (s.empty())
		return false;
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::chrono::nanoseconds parse_duration(const std::string &s, std::chrono::nanoseconds bare)
{
	using namespace std::chrono;
	static const std::pair<const char *, uint64_t> units[] = {
		{"ns", 1ULL}, {"us", 1000ULL}, {"ms", 1000000ULL}, {"s", 1000000000ULL}, {"m", 60000000000ULL},
		{"h", 3600000000000ULL},
	};
	std::string_view num = s;
	uint64_t mult = uint64_t(bare.count());
	for (const auto &[suffix, m] : units) {
		std::string_view suf = suffix;
		if (num.size() > suf.size() && num.substr(num.size() - suf.size()) == suf &&
		    std::isdigit(static_cast<unsigned char>(num[num.size() - suf.size() - 1]))) {
			num.remove_suffix(suf.size());
			mult = m;
			break;
		}
	}
	uint64_t v;
	if (!parse_u64(num, v) || v == 0)
		throw std::invalid_argument("bad duration '" + s + "': want a positive number with ns, us, ms, s, m or h (e.g. 5s)");
	if (v > UINT64_MAX / mult / 2)
		throw std::invalid_argument("duration '" + s + "' is too long");
	return nanoseconds(int64_t(v * mult));
}

std::vector<int> parse_cpu_list(const std::string &s, int ncpus)
{
	std::vector<int> cpus;
	auto bad = [&](const std::string &why) {
		return std::invalid_argument("bad CPU list '" + s + "': " + why);
	};
	if (s.empty())
		throw bad("empty");
	std::string_view rest = s;
	while (!rest.empty()) {
		const size_t comma = rest.find(',');
		std::string_view item = rest.substr(0, comma);
		rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
		if (comma != std::string_view::npos && rest.empty())
			throw bad("trailing comma");
		const size_t dash = item.find('-');
		uint64_t lo, hi;
		if (dash == std::string_view::npos) {
			if (!parse_u64(item, lo))
				throw bad("'" + std::string(item) + "' is not a CPU number");
			hi = lo;
		} else if (!parse_u64(item.substr(0, dash), lo) || !parse_u64(item.substr(dash + 1), hi)) {
			throw bad("'" + std::string(item) + "' is not a range like 0-3");
		}
		if (lo > hi)
			throw bad("range '" + std::string(item) + "' runs backwards");
		if (hi > 4095 || (ncpus > 0 && hi >= uint64_t(ncpus)))
			throw bad("CPU " + std::to_string(hi) + " does not exist" +
				  (ncpus > 0 ? " (this machine has " + std::to_string(ncpus) + ")" : ""));
		for (uint64_t c = lo; c <= hi; c++)
			cpus.push_back(int(c));
	}
	std::sort(cpus.begin(), cpus.end());
	cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
	return cpus;
}

uint64_t parse_unit(const std::string &s)
{
	if (s == "ns")
		return 1;
	if (s == "us")
		return 1000;
	if (s == "ms")
		return 1000000;
	throw std::invalid_argument("bad unit '" + s + "': want ns, us or ms");
}

Priority parse_priority(const std::string &s)
{
	using P = Priority::Policy;
	static const struct {
		const char *name, *abbrev;
		P policy;
		int lo, hi;
	} policies[] = {{"fifo", "f", P::Fifo, 1, 99}, {"rr", "r", P::Rr, 1, 99}, {"other", "o", P::Other, -20, 19}};
	const auto colon = s.find(':');
	const std::string name = s.substr(0, colon), value = colon == std::string::npos ? "" : s.substr(colon + 1);
	for (const auto &p : policies) {
		if (name != p.name && name != p.abbrev)
			continue;
		int v = 0;
		const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
		if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < p.lo || v > p.hi)
			throw std::invalid_argument("bad priority '" + s + "': " + p.name + " takes " +
						    (p.policy == P::Other ? "a nice value" : "a priority") + " from " +
						    std::to_string(p.lo) + " to " + std::to_string(p.hi));
		return {p.policy, v};
	}
	throw std::invalid_argument("bad priority '" + s + "': f:N (SCHED_FIFO), r:N (SCHED_RR) or o:N (SCHED_OTHER at nice N)");
}

}  // namespace kprof
