# kprofctl_latency.sh with the armhf kprofctl on an arm64 kernel, or the
# i386 one on an amd64 kernel: a 32-bit userland on a 64-bit kernel
# (Raspberry Pi OS on a Pi 4 or 5, an i386 container on a PC) reads the
# kernel's 8-byte-long pages, held to the same oracles: every event read,
# counts and min/max equal to kprof.ko's own histogram, losses exactly the
# kernel's overrun.
# kprof-kernels: arm64-6.12 arm64-7.3 6.1
. /tests/lib.sh
use_kprofctl32
. /tests/kprofctl_latency.sh
