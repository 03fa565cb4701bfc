# The workload form and the conventions around it: kprofctl func|latency|irq
# ... -- PROGRAM ARGS collects while PROGRAM runs and exits with its status;
# one still running at -d is ended (SIGTERM, status 143); one that cannot
# start is an error. The calls counted while a program made pktproc's
# traffic equal pktproc's passes. --dma-latency holds /dev/cpu_dma_latency
# at its value while kprofctl measures, and lets it go after; -P sets
# kprofctl's own policy and priority, and its program keeps the default.
# kprof-kernels: 6.1 7.3-rt arm64-7.3
. /tests/lib.sh

ppstat() { sed -n "s/^$1: //p" "$PP/stats"; }
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 rate_pps=2000 || fail "insmod pktproc"

# A program that makes 2 s of traffic and exits 3 ends a 60 s window.
b0=$(ppstat batches)
t0=$(date +%s)
rc=0
kprofctl func -d 60 --save /tmp/w.json pktproc_poll -- \
	sh -c "echo 1 >$PP/start; sleep 2; echo 1 >$PP/stop; exit 3" >/tmp/w.txt 2>/tmp/w.err || rc=$?
took=$(($(date +%s) - t0)) passes=$(($(ppstat batches) - b0))
cat /tmp/w.txt /tmp/w.err
expect_eq "func -- PROGRAM: kprofctl's exit status is the program's" "$rc" 3
[ "$took" -lt 15 ] || fail "func -d 60 -- PROGRAM: ran $took s after the program exited"
grep -q "^program: sh -c echo 1 >$PP/start; sleep 2; echo 1 >$PP/stop; exit 3, exited with status 3$" /tmp/w.txt ||
	fail "the text report does not name the program and its status"
awk -f /tests/kprofctl_json.awk /tmp/w.json >/tmp/w.flat
calls=$(func_calls /tmp/w.flat pktproc_poll)
echo "pktproc counted $passes passes; kprofctl func counted $calls calls"
[ "$passes" -gt 100 ] || fail "the program made only $passes passes"
expect_eq "calls counted while the program ran = pktproc's passes" "$calls" "$passes"
grep -q '"status": 3' /tmp/w.json || fail "the JSON report has no program status 3"

# At -d, a program still running is ended: SIGTERM, a shell's 143.
rc=0
kprofctl latency -d 1 -- sleep 60 >/tmp/s.txt 2>&1 || rc=$?
expect_eq "latency -d 1 -- sleep 60: exit" "$rc" 143
grep -q '^program: sleep 60, killed by SIGTERM (still running when the window closed: kprofctl ended it), status 143$' \
	/tmp/s.txt || fail "latency: no 'killed by SIGTERM' line: $(cat /tmp/s.txt)"
rc=0
kprofctl irq --in-kernel -- true >/tmp/i.txt 2>&1 || rc=$?
expect_eq "irq --in-kernel -- true: exit" "$rc" 0
grep -q '^program: true, exited with status 0$' /tmp/i.txt || fail "irq: no program line: $(cat /tmp/i.txt)"
rc=0
kprofctl latency -d 1 -- /no/such/program >/tmp/n.txt 2>&1 || rc=$?
expect_eq "latency -- /no/such/program: exit" "$rc" 1
grep -q "cannot run '/no/such/program': No such file or directory" /tmp/n.txt || fail "no reason: $(cat /tmp/n.txt)"
kprofctl latency -d 200ms >/dev/null 2>/tmp/n.err || fail "a run after a failed program: $(cat /tmp/n.err)"

# --dma-latency: the request holds while kprofctl measures (the program
# reads it), and goes with kprofctl.
dma() { od -An -td4 /dev/cpu_dma_latency | tr -d ' '; }
before=$(dma)
kprofctl latency --dma-latency 0 -d 30 -- sh -c 'od -An -td4 /dev/cpu_dma_latency | tr -d " " >/tmp/dma' \
	>/dev/null 2>/tmp/dma.err || fail "--dma-latency 0: $(cat /tmp/dma.err)"
echo "cpu_dma_latency: $before before, $(cat /tmp/dma) during, $(dma) after"
expect_eq "cpu_dma_latency while --dma-latency 0 measures" "$(cat /tmp/dma)" 0
expect_eq "cpu_dma_latency after" "$(dma)" "$before"
[ "$before" != 0 ] || fail "cpu_dma_latency was 0 before: the check cannot fail"

# -P f:50: kprofctl runs SCHED_FIFO at 50 (stat fields 40, 41: rt_priority,
# policy); its program at the default, SCHED_OTHER.
kprofctl func -P f:50 -d 30 pktproc_poll -- \
	sh -c 'awk "{ print \$40, \$41 }" /proc/$PPID/stat >/tmp/prio; awk "{ print \$40, \$41 }" /proc/$$/stat >>/tmp/prio' \
	>/dev/null 2>/tmp/prio.err || fail "-P f:50: $(cat /tmp/prio.err)"
expect_eq "-P f:50: kprofctl's rt_priority and policy, then its program's" "$(xargs </tmp/prio)" "50 1 0 0"
rc=0
kprofctl latency -P f:0 -d 1 >/dev/null 2>/tmp/p.err || rc=$?
expect_eq "-P f:0: exit" "$rc" 2
rmmod kprof_pktproc
rmmod kprof
