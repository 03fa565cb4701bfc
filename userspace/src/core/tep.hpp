// SPDX-License-Identifier: GPL-2.0
// RAII owners for libtraceevent handles.
#pragma once

#include "core/traceevent_c.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kprof {

struct TepFree {
	void operator()(tep_handle *t) const { tep_free(t); }
};
struct KbufferFree {
	void operator()(kbuffer *k) const { kbuffer_free(k); }
};
using TepPtr = std::unique_ptr<tep_handle, TepFree>;
using KbufferPtr = std::unique_ptr<kbuffer, KbufferFree>;

// A tep handle for the kprof events from a header_page file and one format
// file per event, for a kernel of the given page size and byte order; its
// long size is the header page's commit field's. Throws std::runtime_error
// on a missing or unparsable file, or a page layout kbuffer cannot read.
TepPtr tep_from_files(const std::filesystem::path &header_page, const std::vector<std::filesystem::path> &formats,
		      int page_size, tep_endian endian);

// The format files of a directory laid out like a capture: formats/<event>
// (kprof's) and events/<system>/<event>/format for each of @extra
// ("irq/irq_handler_entry").
std::vector<std::filesystem::path> capture_formats(const std::filesystem::path &dir,
						   const std::vector<std::string> &extra = {});

// A tep handle from such a directory and its header_page
// (tests/unit/fixtures; an x86_64 kernel).
TepPtr tep_from_capture(const std::filesystem::path &dir, const std::vector<std::string> &extra = {});

// The same from a live tracefs at tdir, for the running kernel: only the
// kprof formats and @extra ("sched/sched_switch"), not libtracefs's
// tracefs_local_events_system(), which also parses all of /proc/kallsyms
// (3 s per start on an arm64 TCG guest).
TepPtr tep_from_tracefs(const std::filesystem::path &tdir, const std::vector<std::string> &extra = {});

}  // namespace kprof
