# Harness self-test: a guest that never reports. tests/vm/harness/vm-run.sh must exit 3.
while :; do sleep 1; done
