// SPDX-License-Identifier: GPL-2.0
// Test helper: a version 6 trace.dat of a 64-bit little-endian kernel
// (trace-cmd convert --file-version 6 --compression none of a capture)
// rewritten as trace-cmd on a 64-bit big-endian board writes one: every
// number of the header in big-endian order, each CPU's pages through
// relayout() (tests/unit/relayout.hpp). The options, which hold numbers of
// their own, are left out: none is needed to read the events.
// Format: trace-cmd's Documentation/trace-cmd/trace-cmd.dat.v6.5.txt.
#pragma once

#include "relayout.hpp"

#include <stdexcept>
#include <string>

namespace kprof::test {

class BigEndianWriter {
public:
	BigEndianWriter(const std::string &in, tep_handle *tep) : in_(in), tep_(tep) {}

	std::string run()
	{
		copy(10);				// magic, "tracing"
		copy_cstr();				// "6"
		expect(in_.at(at_) == 0, "not a little-endian file");
		out_ += char(1);			// big endian
		at_++;
		copy(1);				// the long's size
		page_ = size_t(number(4));
		copy(12);				// "header_page"
		copy(number(8));
		copy(13);				// "header_event"
		copy(number(8));
		for (uint64_t n = number(4); n; n--)	// ftrace formats
			copy(number(8));
		for (uint64_t s = number(4); s; s--) {	// event systems
			copy_cstr();
			for (uint64_t n = number(4); n; n--)
				copy(number(8));
		}
		copy(number(4));			// kallsyms
		copy(number(4));			// trace_printk formats
		copy(number(8));			// saved_cmdlines
		const uint64_t cpus = number(4);
		skip_options();
		expect(in_.compare(at_, 10, std::string("flyrecord", 10)) == 0, "no flyrecord section");
		copy(10);
		std::vector<std::pair<uint64_t, uint64_t>> data;
		for (uint64_t c = 0; c < cpus; c++) {
			const uint64_t off = number(8);
			data.emplace_back(off, number(8));
		}
		out_.resize(in_.size(), '\0');
		for (const auto &[off, size] : data)
			for (uint64_t p = off; p + page_ <= off + size; p += page_) {
				const auto page = relayout(tep_, reinterpret_cast<const uint8_t *>(in_.data()) + p, page_,
							   PageLayout{8, true});
				out_.replace(p, page_, reinterpret_cast<const char *>(page.data()), page_);
			}
		return out_;
	}

private:
	static void expect(bool ok, const char *what)
	{
		if (!ok)
			throw std::runtime_error(std::string("tracedat_to_big: ") + what);
	}
	void copy(uint64_t n)
	{
		expect(at_ + n <= in_.size(), "truncated");
		out_.append(in_, at_, n);
		at_ += n;
	}
	void copy_cstr() { copy(in_.find('\0', at_) - at_ + 1); }
	// A little-endian number of @n bytes, written big endian.
	uint64_t number(size_t n)
	{
		expect(at_ + n <= in_.size(), "truncated");
		const uint64_t v = get_le(reinterpret_cast<const uint8_t *>(in_.data()) + at_, n);
		std::string b(n, '\0');
		put(reinterpret_cast<uint8_t *>(b.data()), v, n, true);
		out_ += b;
		at_ += n;
		return v;
	}
	// "options  \0", then (id u16, size u32, data) up to id 0: dropped.
	void skip_options()
	{
		if (in_.compare(at_, 10, std::string("options  ", 10)) != 0)
			return;
		at_ += 10;
		for (;;) {
			expect(at_ + 2 <= in_.size(), "truncated options");
			const uint64_t id = get_le(reinterpret_cast<const uint8_t *>(in_.data()) + at_, 2);
			at_ += 2;
			if (!id)
				return;
			at_ += 4 + get_le(reinterpret_cast<const uint8_t *>(in_.data()) + at_, 4);
		}
	}

	const std::string &in_;
	tep_handle *tep_;
	std::string out_;
	size_t at_ = 0;
	size_t page_ = 0;
};

inline std::string tracedat_to_big(const std::string &v6, tep_handle *tep)
{
	return BigEndianWriter(v6, tep).run();
}

}  // namespace kprof::test
