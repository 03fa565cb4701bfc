# kprofctl_report.sh with a 32-bit userland on a 64-bit kernel, i386 on
# amd64 and armhf on arm64: the 32-bit kprofctl, dynamically linked to
# Debian's libtracecmd of that userland (report -i; no static libtracecmd
# exists), reads the 64-bit kernel's trace.dat that trace-cmd recorded,
# held to the same oracles: trace-cmd report's counts, min and max exact,
# and the dropped events counted exactly. The static 32-bit kprofctl stands
# in for kprofctl (its refusal of report -i).
# kprof-kernels: 6.1 arm64-6.12
. /tests/lib.sh
use_kprofctl32
use_kprofctl32_dyn
. /tests/kprofctl_report.sh
