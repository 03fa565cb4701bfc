# Reproducer, not a test: on PREEMPT_RT under QEMU, 100 KiB written to the
# 8250 UART on ttyS1 (QEMU's null serial) raise about one IRQ per byte, and
# the kernel reports "irq 3: nobody cared" (a Call Trace on the console)
# without kprof loaded. 10 KiB do not. girq_threading stays below that.
#   tests/vm/harness/vm-run.sh 6.1-rt tool_rt_uart   -> exit 2, console not clean
# kprof-arch: amd64
# kprof-qemu: -serial mon:stdio -serial null
. /tests/lib.sh
dd if=/dev/zero of=/dev/ttyS1 bs=1k count=100 2>/dev/null
grep "^ *3:" /proc/interrupts
