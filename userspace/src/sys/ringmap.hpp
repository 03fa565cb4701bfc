// SPDX-License-Identifier: GPL-2.0
// One CPU's ring buffer mapped into kprofctl (kernels from 6.10:
// Documentation/trace/ring-buffer-map.rst). The kernel hands the reader a
// sub-buffer, its reader page, by an ioctl that swaps it out of the ring:
// no copy on the kernel's side, and no system call per page read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace kprof {

class RingMap {
public:
	// The mapping of trace_pipe_raw's descriptor @fd; nullopt where the
	// kernel has none (before 6.10), or where its ioctl cannot be called
	// (a 32-bit process on a 64-bit kernel: the ioctl has no compat entry).
	static std::optional<RingMap> open(int fd);
	RingMap(RingMap &&o) noexcept;
	RingMap &operator=(RingMap &&) = delete;
	RingMap(const RingMap &) = delete;
	~RingMap();

	// The sub-buffer the reader holds now, header included: the kernel
	// does not write to it, but for the writer's own page, where events
	// are added behind its commit.
	std::span<const uint8_t> reader_page() const;
	// Which sub-buffer that is: another id after swap() is another page.
	uint32_t reader_id() const;
	// The bytes of the reader page read before the mapping was made.
	uint32_t reader_read() const;
	// Tell the kernel all of the reader page seen so far is read: it
	// moves its own reader past it, or, with nothing left on the page,
	// swaps in the next one if there is one. Throws on failure.
	void swap();

private:
	RingMap(int fd, void *meta, size_t meta_len, void *data, size_t data_len, size_t subbuf);
	int fd_;
	void *meta_;
	size_t meta_len_;
	void *data_;
	size_t data_len_;
	size_t subbuf_size_;
};

}  // namespace kprof
