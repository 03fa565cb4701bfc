// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: report -i's reader (tracefile.cpp). The input is a
// whole trace-cmd data file, handed to libtracecmd through a memfd; the
// reader must end in its records or a std::runtime_error. Seeded with the
// file trace-cmd recorded in a guest (tests/unit/fixtures/*/trace.dat).
#include "sys/tracefile.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

using namespace kprof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int fd = memfd_create("trace.dat", 0);
	static const std::string path = "/proc/self/fd/" + std::to_string(fd);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != ssize_t(size))
		return 0;
	try {
		read_trace_file(path, {}, {});
	} catch (const std::runtime_error &) {
	}
	return 0;
}
