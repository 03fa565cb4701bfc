// SPDX-License-Identifier: GPL-2.0
// Where a trace-cmd data file of version 7 (trace-cmd.dat.v7(5)) keeps
// each CPU's ring-buffer pages, read from its bytes: the file's header,
// the chain of options sections, the top instance's BUFFER option and,
// for a compressed file, the chunks of each CPU's data. Pure: it takes the
// file's bytes and returns offsets. report -i decodes those pages itself;
// libtracecmd (3.1.6) keeps every chunk it decompressed in a list it walks
// on each page (free_zpage() never matches), so a file of 10^7 events
// took 6 s and 500 MB through it. Anything this does not know (version 6,
// compressed options, an instance's buffer only) is left to libtracecmd.
#pragma once

#include "core/decoder.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kprof {

struct FlyrecordCpu {
	uint32_t cpu;
	uint64_t offset;	// in the file
	uint64_t size;		// bytes there (compressed: the chunks, after their count)
};

struct Flyrecord {
	ByteOrder order;
	uint32_t page_size = 0;
	std::string compression;	// "none", "zstd", ...
	std::vector<FlyrecordCpu> cpus;
};

// The top instance's flyrecord data of the version-7 file @file; nullopt
// if it is another version or keeps its options compressed. Throws
// std::runtime_error for a version-7 file whose offsets lie outside it.
std::optional<Flyrecord> parse_flyrecord(std::span<const uint8_t> file);

// One compressed chunk of a CPU's data: its bytes in the file and the size
// they uncompress to (whole pages).
struct Chunk {
	std::span<const uint8_t> data;
	uint32_t size;
};

// The chunks of @cpu's data in @file. Throws std::runtime_error if they do
// not fit the CPU's data or a chunk is not whole pages of @fly's size.
std::vector<Chunk> chunks_of(std::span<const uint8_t> file, const Flyrecord &fly, const FlyrecordCpu &cpu);

}  // namespace kprof
