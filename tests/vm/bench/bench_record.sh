# kprof-arch: amd64
# make bench, P4a (not part of make check): a trace-cmd file of at least
# BENCH_EVENTS kprof events, for ci/bench_p4a.sh to analyse on the host.
# The hooks of kprof_stress's device race from a kthread per CPU while
# trace-cmd record writes kprof's four latency events; the file goes out
# through the virtio disk bench_p4a.sh attaches (KPROF_VM_QEMU), raw from
# its first byte.
# Prints:
#   P4a bytes SIZE
. /tests/lib.sh

BENCH_EVENTS=10000000
BENCH_MAX_S=120

command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
load_virtio_blk
load kprof
insmod "$KPROF_MODDIR/kprof_stress.ko" burst=2000 sleep_us=50 timer_us=1000 || fail "insmod stress"
# shellcheck disable=SC2086 # the -e arguments, one word each
trace-cmd record $DEVICE_RECORD_ARGS -b 65536 -o /tmp/big.dat >/tmp/rec.log 2>&1 &
rpid=$!
wait_for "$TR"/events/kprof/kprof_batch/enable 1 "trace-cmd did not start recording"
# In rounds of 5 s, until the ring buffers have held BENCH_EVENTS events
# that trace-cmd read or still can (read events + entries, per CPU).
s=0
n=0
while [ $s -lt $BENCH_MAX_S ] && [ "$n" -lt $BENCH_EVENTS ]; do
	echo 5 >/sys/kernel/debug/kprof_stress/run
	s=$((s + 5))
	n=$(cat "$TR"/per_cpu/cpu*/stats | awk '/^entries:/ || /^read events:/ { e += $NF } END { print e + 0 }')
	echo "after $s s: $n events recorded"
done
[ "$n" -ge $BENCH_EVENTS ] || fail "only $n events in $s s"
kill -INT $rpid
wait $rpid || fail "trace-cmd record: $(tail -n 5 /tmp/rec.log)"
tail -n 12 /tmp/rec.log
size=$(wc -c </tmp/big.dat)
dd if=/tmp/big.dat of=/dev/vda bs=1M conv=fsync 2>/dev/null || fail "cannot write the file to /dev/vda"
echo "P4a bytes $size"
rm /tmp/big.dat
rmmod kprof_stress
rmmod kprof
