# The guest half of 'make demo': profile the packet processor per packet
# and batched, and show what kprof reports.
. /tests/lib.sh
load kprof
load kprof_pktproc
echo 1 >"$KP/enable"
for cfg in "1 1" "64 64"; do
	set -- $cfg
	echo "$1" >"$PP/batch"
	echo "$2" >"$PP/irq_coalesce"
	echo 1 >"$KP/pktproc-q0/reset"
	run_traffic 2
	echo "==== pktproc batch=$1 irq_coalesce=$2, 2 s at $(cat $PP/rate_pps) pps: kprof/pktproc-q0/latency ===="
	sed -n '/^[a-z]/p' "$KP/pktproc-q0/latency"
	set -- $(batch_stats pktproc-q0)
	echo "CPU per packet: $(($3 / $2)) ns over $1 passes"
done
echo 0 >"$KP/enable"
rmmod kprof_pktproc
rmmod kprof
