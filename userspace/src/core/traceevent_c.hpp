// SPDX-License-Identifier: GPL-2.0
// libtraceevent's C headers, usable from C++ (kbuffer.h has no extern "C").
#pragma once

extern "C" {
#include <event-parse.h>
#include <kbuffer.h>
}
