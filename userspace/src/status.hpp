// SPDX-License-Identifier: GPL-2.0
#pragma once

#include "cli.hpp"

namespace kprof {

int run_status(const StatusOptions &opts);

}  // namespace kprof
