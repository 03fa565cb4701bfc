// SPDX-License-Identifier: GPL-2.0
#include "core/tracedat.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>

namespace kprof {

namespace {

constexpr std::string_view kMagic{"\x17\x08\x44tracing", 10};
constexpr uint16_t kOptionsSection = 0;
constexpr uint16_t kSectionCompressed = 1;	// the section header's flag
constexpr uint16_t kOptionDone = 0, kOptionBuffer = 3;

// A cursor over the file's bytes: every read is checked against its end.
class Reader {
public:
	Reader(std::span<const uint8_t> bytes, ByteOrder order, uint64_t at = 0) : b_(bytes), order_(order), at_(at) {}
	bool fits(uint64_t n) const { return at_ <= b_.size() && n <= b_.size() - at_; }
	uint64_t num(int size)
	{
		need(uint64_t(size));
		const uint64_t v = order_.load(b_.data() + at_, size);
		at_ += uint64_t(size);
		return v;
	}
	std::string str()
	{
		need(1);
		const auto *p = reinterpret_cast<const char *>(b_.data() + at_);
		const std::string_view rest(p, b_.size() - at_);
		const auto nul = rest.find('\0');
		if (nul == std::string_view::npos)
			throw std::runtime_error("trace.dat: a string runs past the end of the file");
		at_ += nul + 1;
		return std::string(rest.substr(0, nul));
	}
	void skip(uint64_t n)
	{
		need(n);
		at_ += n;
	}
	uint64_t at() const { return at_; }
	void set_order(ByteOrder o) { order_ = o; }

private:
	void need(uint64_t n) const
	{
		if (!fits(n))
			throw std::runtime_error("trace.dat: a field at offset " + std::to_string(at_) +
						 " runs past the end of the file");
	}
	std::span<const uint8_t> b_;
	ByteOrder order_;
	uint64_t at_;
};

// The BUFFER option of the top instance (its name ""), if @opt is one.
bool read_buffer(std::span<const uint8_t> opt, ByteOrder order, Flyrecord &fly)
{
	Reader r(opt, order);
	r.num(8);	// the BUFFER FLYRECORD section's offset
	if (!r.str().empty())
		return false;	// an instance's buffer
	r.str();	// its clock
	fly.page_size = uint32_t(r.num(4));
	const auto n = uint32_t(r.num(4));
	for (uint32_t i = 0; i < n; i++) {
		FlyrecordCpu c{};
		c.cpu = uint32_t(r.num(4));
		c.offset = r.num(8);
		c.size = r.num(8);
		fly.cpus.push_back(c);
	}
	return true;
}

// The options section at @offset: false if it is compressed; else its
// BUFFER option read into @fly, and @next set to the following section's
// offset (0: none).
bool read_options(std::span<const uint8_t> file, ByteOrder order, uint64_t offset, Flyrecord &fly, uint64_t &next,
		  bool &found)
{
	Reader r(file, order, offset);
	if (r.num(2) != kOptionsSection)
		throw std::runtime_error("trace.dat: no options section at offset " + std::to_string(offset));
	if (r.num(2) & kSectionCompressed)
		return false;
	r.num(4);
	const uint64_t size = r.num(8);
	if (!r.fits(size))
		throw std::runtime_error("trace.dat: the options section at " + std::to_string(offset) +
					 " runs past the end of the file");
	const uint64_t end = r.at() + size;
	next = 0;
	while (r.at() < end) {
		const auto id = uint16_t(r.num(2));
		const auto len = uint32_t(r.num(4));
		if (len > end - r.at())
			throw std::runtime_error("trace.dat: an option runs past its section");
		const auto data = file.subspan(r.at(), len);
		if (id == kOptionDone) {
			next = len == 8 ? Reader(data, order).num(8) : 0;
			break;
		}
		if (id == kOptionBuffer && !found)
			found = read_buffer(data, order, fly);
		r.skip(len);
	}
	return true;
}

void check_cpus(std::span<const uint8_t> file, const Flyrecord &fly)
{
	for (const auto &c : fly.cpus)
		if (c.offset > file.size() || c.size > file.size() - c.offset)
			throw std::runtime_error("trace.dat: CPU " + std::to_string(c.cpu) +
						 "'s data lies outside the file");
	if (fly.page_size < 64 || (fly.page_size & (fly.page_size - 1)))
		throw std::runtime_error("trace.dat: a page size of " + std::to_string(fly.page_size));
}

}  // namespace

std::optional<Flyrecord> parse_flyrecord(std::span<const uint8_t> file)
{
	if (file.size() < kMagic.size() || std::string_view(reinterpret_cast<const char *>(file.data()), kMagic.size()) != kMagic)
		return std::nullopt;
	Reader r(file, ByteOrder(false), kMagic.size());
	if (r.str() != "7")
		return std::nullopt;
	Flyrecord fly;
	fly.order = ByteOrder(r.num(1) != 0);
	r.set_order(fly.order);
	r.num(1);	// the kernel's long: the page header says it again
	r.num(4);	// the page size: the BUFFER option's counts
	fly.compression = r.str();
	r.str();	// its version
	std::set<uint64_t> seen;
	bool found = false;
	for (uint64_t at = r.num(8); at && !found; ) {
		if (!seen.insert(at).second)
			throw std::runtime_error("trace.dat: the options sections form a loop");
		uint64_t next = 0;
		if (!read_options(file, fly.order, at, fly, next, found))
			return std::nullopt;
		at = next;
	}
	if (!found)
		return std::nullopt;
	check_cpus(file, fly);
	return fly;
}

std::vector<Chunk> chunks_of(std::span<const uint8_t> file, const Flyrecord &fly, const FlyrecordCpu &cpu)
{
	std::vector<Chunk> out;
	if (!cpu.size)
		return out;
	// The size counts the chunks, not the count before them (as
	// trace-cmd 3.1.6 writes it).
	const auto data = file.subspan(cpu.offset, std::min<uint64_t>(cpu.size + 4, file.size() - cpu.offset));
	Reader r(data, fly.order);
	const auto count = uint32_t(r.num(4));
	for (uint32_t i = 0; i < count; i++) {
		const auto csize = uint32_t(r.num(4));
		const auto usize = uint32_t(r.num(4));
		if (!r.fits(csize))
			throw std::runtime_error("trace.dat: a chunk of CPU " + std::to_string(cpu.cpu) +
						 "'s data runs past it");
		if (usize % fly.page_size)
			throw std::runtime_error("trace.dat: a chunk of CPU " + std::to_string(cpu.cpu) +
						 " is not whole pages");
		out.push_back({data.subspan(r.at(), csize), usize});
		r.skip(csize);
	}
	return out;
}

}  // namespace kprof
