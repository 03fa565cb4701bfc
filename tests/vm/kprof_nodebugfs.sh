# kprof without debugfs (booted with debugfs=off): kprof.ko and the sample
# load, the events work, and kprofctl latency reports, saying the counters
# are unavailable and checking by seq gaps instead.
# kprof-append: debugfs=off
. /tests/lib.sh

[ ! -d "$KP" ] || fail "debugfs is there although booted with debugfs=off"
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=1000 autostart=1 || fail "insmod pktproc without debugfs"
dmesg | grep -q 'no debugfs' || fail "kprof did not say it runs without debugfs"
kprofctl latency -d 3s --json >/tmp/l.json 2>/tmp/l.err || fail "kprofctl latency: $(cat /tmp/l.err)"
awk -f /tests/kprofctl_json.awk /tmp/l.json >/tmp/l.txt
cat /tmp/l.txt
grep -q '^stat irq_thread_latency pktproc-q0 null ' /tmp/l.txt || fail "no irq_thread_latency stats"
grep -q '^stat span:0 pktproc-q0 null ' /tmp/l.txt || fail "no span stats (unnamed without debugfs)"
grep -q '"cross_check_note": ".*debugfs is not available' /tmp/l.json || fail "the report does not say the counters are unavailable"
grep -q '"unpaired": null' /tmp/l.json || fail "unpaired shown without counters"
grep -q '^lost false$' /tmp/l.txt || fail "loss reported in a quiet run"
kprofctl latency -d 1s >/tmp/l.txt 2>&1 || fail "text report"
grep -q 'debugfs is not available' /tmp/l.txt || fail "text report does not say so"
rmmod kprof_pktproc
rmmod kprof
