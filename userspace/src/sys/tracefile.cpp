// SPDX-License-Identifier: GPL-2.0
#include "sys/tracefile.hpp"

#include "core/tracedat.hpp"
#include "sys/tracecmd_shim.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef KPROF_HAVE_ZSTD
#include <zstd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace kprof {

namespace {

struct InputClose {
	void operator()(kprof_tc *tc) const { kprof_tc_close(tc); }
};
using InputPtr = std::unique_ptr<kprof_tc, InputClose>;

// One pass over the file: the decoder and the samples of one page.
struct Pass {
	TraceFile &f;
	Decoder decoder;
	std::vector<Sample> samples;
};

// A page of @cpu, decoded whole as the live path decodes it: its records,
// and what the ring buffer dropped before it, from its header.
void on_page(Pass &p, const kprof_tc_page &page, int cpu)
{
	TraceFile &f = p.f;
	CpuLoss &l = f.cpus[cpu];
	l.cpu = cpu;
	p.samples.clear();
	const PageResult r = p.decoder.decode_page(page.data, size_t(page.size), cpu, p.samples);
	l.add_page(r.bad_page, r.events + r.other + r.invalid, r.missed);
	if (r.first_ts <= r.last_ts) {
		f.first_ts = std::min(f.first_ts, r.first_ts);
		f.last_ts = std::max(f.last_ts, r.last_ts);
	}
	f.events += r.events;
	f.invalid += r.invalid;
	f.other += r.other;
	static const std::map<std::string, std::vector<std::string>> kNoSpanNames;
	for (const auto &s : p.samples)
		f.agg.add(s, p.decoder.device_name(s.dev), kNoSpanNames);
}

// The file's bytes, mapped read-only for the life of the object.
class Mapped {
public:
	explicit Mapped(const std::string &path)
	{
		const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
		struct stat st{};
		if (fd < 0 || fstat(fd, &st) != 0) {
			const int err = errno;
			if (fd >= 0)
				::close(fd);
			throw std::runtime_error("cannot read " + path + ": " + std::strerror(err));
		}
		size_ = size_t(st.st_size);
		void *p = size_ ? mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
		::close(fd);
		addr_ = p == MAP_FAILED ? nullptr : p;
	}
	~Mapped()
	{
		if (addr_)
			munmap(addr_, size_);
	}
	Mapped(const Mapped &) = delete;
	Mapped &operator=(const Mapped &) = delete;
	std::span<const uint8_t> bytes() const
	{
		return addr_ ? std::span<const uint8_t>(static_cast<const uint8_t *>(addr_), size_)
			     : std::span<const uint8_t>();
	}

private:
	void *addr_ = nullptr;
	size_t size_ = 0;
};

// Whether this build decompresses @algo's chunks itself.
bool decompresses(const std::string &algo)
{
#ifdef KPROF_HAVE_ZSTD
	return algo == "none" || algo == "zstd";
#else
	return algo == "none";
#endif
}

// @c's pages into @out.
void decompress(const Chunk &c, std::vector<uint8_t> &out)
{
	out.resize(c.size);
#ifdef KPROF_HAVE_ZSTD
	const size_t n = ZSTD_decompress(out.data(), out.size(), c.data.data(), c.data.size());
	if (!ZSTD_isError(n) && n == c.size)
		return;
#endif
	throw std::runtime_error("trace.dat: a chunk of trace data does not decompress to its " +
				 std::to_string(c.size) + " bytes");
}

// Every page of @cpu's data, uncompressed, to on_page().
void read_cpu(Pass &p, std::span<const uint8_t> file, const Flyrecord &fly, const FlyrecordCpu &cpu)
{
	const size_t page = fly.page_size;
	auto pages = [&](std::span<const uint8_t> data) {
		for (size_t at = 0; at + page <= data.size(); at += page)
			on_page(p, {data.data() + at, int(page)}, int(cpu.cpu));
	};
	if (fly.compression == "none") {
		pages(file.subspan(cpu.offset, cpu.size));
		return;
	}
	std::vector<uint8_t> buf;
	for (const auto &c : chunks_of(file, fly, cpu)) {
		decompress(c, buf);
		pages(buf);
	}
}

// The pages of a version-7 file straight from its bytes (tracedat.hpp):
// false, having read nothing, if the file is another version or its data
// is compressed with what this build cannot decompress.
bool read_directly(const std::string &path, Pass &p, const std::vector<int> &cpus)
{
	const Mapped file(path);
	const auto fly = parse_flyrecord(file.bytes());
	if (!fly || !decompresses(fly->compression))
		return false;
	for (const auto &c : fly->cpus)
		if (cpus.empty() || std::find(cpus.begin(), cpus.end(), int(c.cpu)) != cpus.end())
			read_cpu(p, file.bytes(), *fly, c);
	return true;
}

}  // namespace

// Every record of the file, a CPU at a time: the statistics need no order
// across CPUs, and merging them by time (tracecmd_iterate_events) made
// libtracecmd's share of report -i 3x slower on a file of 10^7 events.
std::unique_ptr<TraceFile> read_trace_file(const std::string &path, const std::vector<int> &cpus,
					   const AggregateOptions &aopts, PagesFrom from)
{
	InputPtr in(kprof_tc_open(path.c_str()));
	if (!in)
		throw std::runtime_error("cannot read " + path + " as a trace-cmd data file");
	tep_handle *tep = kprof_tc_tep(in.get());
	auto f = std::make_unique<TraceFile>(aopts);
	std::unique_ptr<Pass> p;
	try {
		p.reset(new Pass{*f, Decoder(tep), {}});
	} catch (const std::runtime_error &e) {
		throw std::runtime_error(path + ": " + e.what() + " (record with: trace-cmd record -e kprof)");
	}
	if (from == PagesFrom::File && read_directly(path, *p, cpus)) {
		f->direct = true;
		return f;
	}
	const int ncpus = kprof_tc_cpus(in.get());
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!cpus.empty() && std::find(cpus.begin(), cpus.end(), cpu) == cpus.end())
			continue;
		kprof_tc_page page;
		for (int first = 1; kprof_tc_next_page(in.get(), cpu, first, &page); first = 0)
			on_page(*p, page, cpu);
	}
	return f;
}

}  // namespace kprof
