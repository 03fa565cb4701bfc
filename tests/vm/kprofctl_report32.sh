# kprofctl_report.sh with an i386 userland on an amd64 kernel: the 32-bit
# kprofctl, dynamically linked to Debian's i386 libtracecmd (report -i; no
# static libtracecmd exists), reads the 64-bit kernel's trace.dat that
# trace-cmd recorded, held to the same oracles: trace-cmd report's counts,
# min and max exact, and the dropped events counted exactly. The static i386
# kprofctl stands in for kprofctl (its refusal of report -i).
# kprof-kernels: 6.1
. /tests/lib.sh
use_kprofctl32
use_kprofctl32_dyn
. /tests/kprofctl_report.sh
