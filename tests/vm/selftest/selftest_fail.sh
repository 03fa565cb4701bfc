# Harness self-test: a guest script that fails. tests/vm/harness/vm-run.sh must exit 1.
echo "this guest test fails on purpose"
false
