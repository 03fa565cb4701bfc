# Harness self-test: a guest script that fails. ci/vm-run.sh must exit 1.
echo "this guest test fails on purpose"
false
