# Harness self-test: the script passes but the kernel prints a WARNING.
# tests/vm/harness/vm-run.sh must exit 2 (console not clean), and still
# show what the test printed (make bench keeps such a boot's figures).
. /tests/lib.sh
echo "selftest_warn: printed before the warning"
load kprof_test_warn
rmmod kprof_test_warn
