# Harness self-test: a test that prints "WARNING:" itself (as kprofctl does
# for lost events) passes; only the kernel's messages make a console dirty.
echo "WARNING: this line is the test's, not the kernel's"
echo "INFO: neither is this"
