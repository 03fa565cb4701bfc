# The guest half of 'make demo': the packet processor, profiled with
# kprofctl per packet and then batched.
. /tests/lib.sh
load kprof
load kprof_pktproc
for cfg in "1 1" "64 64"; do
	set -- $cfg
	echo "$1" >"$PP/batch"
	echo "$2" >"$PP/irq_coalesce"
	echo 1 >"$PP/start"
	echo
	echo "### pktproc at $(cat $PP/rate_pps) packets/s, batch=$1 irq_coalesce=$2: kprofctl latency -d 5s"
	kprofctl latency -d 5s | cat	# not a TTY: no progress line in the log
	echo 1 >"$PP/stop"
done
rmmod kprof_pktproc
rmmod kprof
