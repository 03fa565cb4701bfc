// SPDX-License-Identifier: GPL-2.0
// libtracefs's C header, usable from C++.
//
// tracefs.h has no extern "C" guard, and its inline helpers pass an int
// where C++ wants enum tracefs_hist_command: valid C, a permerror in C++.
// Only the sources of sys/ and cmd/ (kprof_sys, kprof_cmd) include it; they
// build with -fpermissive against the header as a system header, which
// silences exactly that. The pure units never see tracefs.h.
#pragma once

#include "core/traceevent_c.hpp"

extern "C" {
#include <tracefs.h>
}
