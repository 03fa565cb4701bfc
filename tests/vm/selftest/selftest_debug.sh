# Harness self-test on the debug kernel: the script passes, but the module
# commits the bug that kprof.bug= on the kernel command line names (leak,
# atomic, shift, uaf; KPROF_VM_APPEND), which the kernel's checkers report.
# tests/vm/harness/vm-run.sh must exit 2 (console not clean).
. /tests/lib.sh
bug=$(kernel_arg kprof.bug)
[ -n "$bug" ] || fail "no kprof.bug= on the kernel command line"
insmod "$KPROF_MODDIR/kprof_test_debug.ko" bug="$bug" || fail "insmod kprof_test_debug bug=$bug"
rmmod kprof_test_debug
