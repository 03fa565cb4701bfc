// SPDX-License-Identifier: GPL-2.0
#include "sys/ringmap.hpp"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kprof {

namespace {

// include/uapi/linux/trace_mmap.h (6.10), which Debian 12's headers lack:
// the meta-page at the mapping's start, and the ioctl that swaps pages.
struct TraceBufferMeta {
	uint32_t meta_page_size;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id;
		uint32_t read;
	} reader;
	uint64_t flags;
	uint64_t entries;
	uint64_t overrun;
	uint64_t read;
	uint64_t reserved1;
	uint64_t reserved2;
};
constexpr unsigned long kGetReader = _IO('R', 0x20), kWakeWaiters = 0;

const TraceBufferMeta &meta_of(const void *meta)
{
	return *static_cast<const TraceBufferMeta *>(meta);
}

}  // namespace

std::optional<RingMap> RingMap::open(int fd)
{
	const size_t page = size_t(sysconf(_SC_PAGESIZE));
	void *meta = mmap(nullptr, page, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		return std::nullopt;
	const size_t meta_len = meta_of(meta).meta_page_size;
	const size_t subbuf = meta_of(meta).subbuf_size;
	const size_t data_len = subbuf * meta_of(meta).nr_subbufs;
	munmap(meta, page);
	if (meta_len < sizeof(TraceBufferMeta) || !data_len)
		return std::nullopt;
	meta = mmap(nullptr, meta_len, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		return std::nullopt;
	void *data = mmap(nullptr, data_len, PROT_READ, MAP_SHARED, fd, off_t(meta_len));
	if (data == MAP_FAILED) {
		munmap(meta, meta_len);
		return std::nullopt;
	}
	RingMap m(fd, meta, meta_len, data, data_len, subbuf);
	// The mapping is of no use if its ioctl is refused. Command 0 only
	// wakes the descriptor's waiters (there are none): a test that leaves
	// the reader where it is.
	if (ioctl(fd, kWakeWaiters) < 0)
		return std::nullopt;
	return m;
}

RingMap::RingMap(int fd, void *meta, size_t meta_len, void *data, size_t data_len, size_t subbuf)
	: fd_(fd), meta_(meta), meta_len_(meta_len), data_(data), data_len_(data_len), subbuf_size_(subbuf)
{
}

RingMap::RingMap(RingMap &&o) noexcept
	: fd_(o.fd_), meta_(o.meta_), meta_len_(o.meta_len_), data_(o.data_), data_len_(o.data_len_),
	  subbuf_size_(o.subbuf_size_)
{
	o.meta_ = nullptr;
	o.data_ = nullptr;
}

RingMap::~RingMap()
{
	if (data_)
		munmap(data_, data_len_);
	if (meta_)
		munmap(meta_, meta_len_);
}

uint32_t RingMap::reader_id() const
{
	return __atomic_load_n(&meta_of(meta_).reader.id, __ATOMIC_RELAXED);
}

uint32_t RingMap::reader_read() const
{
	return __atomic_load_n(&meta_of(meta_).reader.read, __ATOMIC_RELAXED);
}

std::span<const uint8_t> RingMap::reader_page() const
{
	const size_t id = reader_id();
	if ((id + 1) * subbuf_size_ > data_len_)
		throw std::runtime_error("the mapped ring buffer names reader page " + std::to_string(id) +
					 " of " + std::to_string(data_len_ / subbuf_size_));
	return {static_cast<const uint8_t *>(data_) + id * subbuf_size_, subbuf_size_};
}

void RingMap::swap()
{
	if (ioctl(fd_, kGetReader) < 0)
		throw std::runtime_error(std::string("the mapped ring buffer's next page (ioctl): ") +
					 std::strerror(errno));
}

}  // namespace kprof
