# kprofctl must not make the kernel warn. With a watermark (buffer_percent
# above 0), poll() on trace_pipe_raw and the ring buffer's writers call the
# kernel's ring_buffer_nr_dirty_pages(), whose WARN_ON_ONCE(read > cnt + 1)
# fired in CI's 6.1 guest while kprofctl read an 8 KiB buffer that was
# overwritten during a stop of its reader (kprof_inkernel, once in 110
# tests). kprofctl now sets buffer_percent to 0 and paces its passes
# itself. This runs that scenario several times; the harness fails the
# test on the warning. kprof.watermark=P on the kernel command line
# (KPROF_VM_APPEND) puts a watermark back behind kprofctl's back, to see
# the warning come.
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 batch=1 work_ns=0 pass_overhead_ns=0 || fail insmod
wm=$(kernel_arg kprof.watermark)
BP=$TR/instances/kprof/buffer_percent
for i in 1 2 3 4 5 6; do
	kprofctl latency --json -b 8 >/tmp/s.json 2>/tmp/s.err &
	pid=$!
	wait_collecting
	expect_eq "buffer_percent while kprofctl reads" "$(cat "$BP")" 0
	[ -n "$wm" ] && echo "$wm" >"$BP"
	run_traffic_stalled $pid
	kill -INT $pid
	wait $pid || fail "run $i: $(cat /tmp/s.err)"
	awk -f /tests/kprofctl_json.awk /tmp/s.json >/tmp/s.txt
	grep -q '^lost true$' /tmp/s.txt || fail "run $i: an 8 KiB buffer with its reader stopped lost nothing"
	echo "run $i: $(sed -n 's/^missed_total //p' /tmp/s.txt) events lost, $(sed -n 's/^events_read //p' /tmp/s.txt) read"
done
rmmod kprof_pktproc
rmmod kprof
