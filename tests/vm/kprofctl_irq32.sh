# kprofctl_irq.sh with the armhf kprofctl on an arm64 kernel, or the i386
# one on an amd64 kernel (see kprofctl_latency32.sh): the IRQ tracker's
# events, read by a 32-bit kprofctl, against pktproc's own counters and a
# 32-bit kprofctl latency.
# kprof-kernels: arm64-6.12 arm64-7.3 6.1
. /tests/lib.sh
use_kprofctl32
. /tests/kprofctl_irq.sh
