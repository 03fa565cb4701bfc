// SPDX-License-Identifier: GPL-2.0
// `kprofctl report -i` in a kprofctl built without libtracecmd (the static
// builds: Debian ships no static libtracecmd).
#include "cmd/commands.hpp"

#include <stdexcept>

namespace kprof {

int run_report(const ReportOptions &)
{
	throw std::runtime_error("this kprofctl was built without libtracecmd (a static build): run 'report -i' "
				 "with a kprofctl built against libtracecmd-dev, e.g. on the machine you copy the file to");
}

}  // namespace kprof
