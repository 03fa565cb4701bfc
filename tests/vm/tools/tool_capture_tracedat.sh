# Not a test: records a small trace.dat with trace-cmd (x86 guests carry
# it) for report -i's unit test and fuzz target (run with
# ci/capture-fixtures.sh KERNEL tracedat). Prints a base64 tar between
# markers: fx/trace.dat, fx/trace.txt (trace-cmd report's text of it),
# fx/kernel.
. /tests/lib.sh
command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=500 batch=4 irq_coalesce=2 || fail insmod
F=/tmp/fx
mkdir -p $F
trace-cmd record -e kprof -b 64 -o $F/trace.dat >/tmp/rec.log 2>&1 &
rpid=$!
wait_for "$TR"/events/kprof/kprof_batch/enable 1 "trace-cmd did not start recording"
run_traffic 0.3
kill -INT $rpid
wait $rpid || fail "trace-cmd record failed: $(cat /tmp/rec.log)"
trace-cmd report -i $F/trace.dat >$F/trace.txt 2>/dev/null
uname -r >$F/kernel
ls -la $F
print_fixtures
