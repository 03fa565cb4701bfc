// SPDX-License-Identifier: GPL-2.0
// RAII owners for libtraceevent handles.
#pragma once

#include "traceevent_c.hpp"

#include <filesystem>
#include <memory>

namespace kprof {

struct TepFree {
	void operator()(tep_handle *t) const { tep_free(t); }
};
struct KbufferFree {
	void operator()(kbuffer *k) const { kbuffer_free(k); }
};
using TepPtr = std::unique_ptr<tep_handle, TepFree>;
using KbufferPtr = std::unique_ptr<kbuffer, KbufferFree>;

// A tep handle for the kprof events from a directory laid out like a
// capture: header_page and formats/<event> (tests/unit/fixtures). Throws
// std::runtime_error on a missing or unparsable file.
TepPtr tep_from_capture(const std::filesystem::path &dir);

}  // namespace kprof
