# Not a test: captures decoder fixtures from a real guest (run with
# ci/capture-fixtures.sh). Prints a base64 tar between markers.
. /tests/lib.sh
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=3000 batch=4 irq_coalesce=2 || fail insmod
F=/tmp/fx
mkdir -p $F/formats
cp $TR/events/header_page $F/header_page
for e in $TR/events/kprof/kprof_*; do cp "$e/format" "$F/formats/$(basename $e)"; done

# A normal capture: text view first (non-consuming), then the raw pages.
I=$TR/instances/fx
mkdir $I
echo 512 >$I/buffer_size_kb
echo 1000 >$PP/rate_pps
echo 1 >$I/events/kprof/enable
run_traffic 0.5
echo 0 >$I/events/kprof/enable
echo 0 >$I/tracing_on
cat $I/trace >$F/normal.txt
for c in 0 1; do timeout 2 cat $I/per_cpu/cpu$c/trace_pipe_raw >$F/normal.cpu$c.raw || true; done
rmdir $I

# An overrun: a tiny buffer that nobody reads while traffic runs.
mkdir $I
echo 4 >$I/buffer_size_kb
echo 3000 >$PP/rate_pps
echo 1 >$I/events/kprof/enable
run_traffic 1
echo 0 >$I/events/kprof/enable
echo 0 >$I/tracing_on
cat $I/trace >$F/overrun.txt
for c in 0 1; do
	cat $I/per_cpu/cpu$c/stats >$F/overrun.cpu$c.stats
	timeout 2 cat $I/per_cpu/cpu$c/trace_pipe_raw >$F/overrun.cpu$c.raw || true
done
rmdir $I
uname -r >$F/kernel
cd /tmp && tar -czf fx.tgz fx
echo "FIXTURES-BEGIN"
base64 fx.tgz
echo "FIXTURES-END"
rmmod kprof_pktproc
rmmod kprof
