# kprofctl_latency.sh with the armhf kprofctl on an arm64 kernel: a 32-bit
# userland on a 64-bit kernel (Raspberry Pi OS on a Pi 4 or 5) reads the
# kernel's 8-byte-long pages, held to the same oracles: every event read,
# counts and min/max equal to kprof.ko's own histogram, losses exactly the
# kernel's overrun.
# kprof-kernels: arm64-6.12 arm64-7.3
. /tests/lib.sh
use_kprofctl32
. /tests/kprofctl_latency.sh
