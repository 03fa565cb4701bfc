# Harness self-test: the script passes but the kernel prints a WARNING.
# tests/vm/harness/vm-run.sh must exit 2 (console not clean).
. /tests/lib.sh
load kprof_test_warn
rmmod kprof_test_warn
