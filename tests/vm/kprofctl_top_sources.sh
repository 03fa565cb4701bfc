# kprofctl top --irq and top --func (-m): the IRQ tracker's and the
# function probes' histograms, read while they aggregate, without a
# terminal (plain frames). Traffic runs inside the view only, so the last
# frame's totals (COUNT since the start) equal pktproc's own counters:
# the pktproc IRQ's handler rows its hard IRQs, pktproc_poll's row its
# passes. Nothing is lost on the way, and top leaves nothing on.
# kprof-kernels: 6.1 7.3-rt arm64-7.3
. /tests/lib.sh

ppstat() { sed -n "s/^$1: //p" "$PP/stats"; }
# last_frame FILE: the lines of the last frame top printed
last_frame() { awk '/^kprofctl top:/ { n = 0 } { l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }' "$1"; }
# top_run NAME ARGS...: kprofctl top ARGS for 6 s, 2 s of traffic inside
# it; the pktproc counters' movement in /tmp/NAME.{irqs,passes}.
top_run() {
	name=$1
	shift
	kprofctl top --interval 500ms -d 8 "$@" >/tmp/"$name".txt 2>/tmp/"$name".err &
	pid=$!
	# (Probing a module's functions takes seconds on PREEMPT_RT under TCG.)
	n=0
	until grep -q '^kprofctl top:' /tmp/"$name".txt; do
		n=$((n + 1)); [ $n -lt 600 ] || fail "$name: no frame in 60 s: $(cat /tmp/"$name".err)"; sleep 0.1
	done
	echo "$name: the first frame after $((n / 10)) s"
	i0=$(ppstat irqs) b0=$(ppstat batches)
	run_traffic 2
	echo $(($(ppstat irqs) - i0)) >/tmp/"$name".irqs
	echo $(($(ppstat batches) - b0)) >/tmp/"$name".passes
	wait $pid || fail "kprofctl top $*: $(cat /tmp/"$name".err)"
	last_frame /tmp/"$name".txt
}

# expect_total WHAT TOTAL ORACLE: top's last TOTAL of WHAT equals pktproc's
# count in the file ORACLE, from real traffic
expect_total() {
	want=$(cat "$3")
	echo "$1: pktproc counted $want, top's total is $2"
	[ "$want" -gt 100 ] || fail "$1: pktproc counted only $want"
	expect_eq "$1: top's total = pktproc's count" "$2" "$want"
}

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" kprof_hooks=0 rate_pps=2000 batch=4 irq_coalesce=4 || fail "insmod pktproc"

top_run irq --irq
grep -q '^kprofctl top: kprof.ko.s IRQ tracker' /tmp/irq.txt || fail "--irq: not the tracker's view"
# "IRQ NAME EVENT RATE P50 P99 MAX COUNT ...": the pktproc handlers' total
handlers=$(last_frame /tmp/irq.txt | awk '$2 ~ /pktproc/ && $3 == "handler" { s += $8 } END { print s + 0 }')
expect_total "top --irq: pktproc's handler rows against its hard IRQs" "$handlers" /tmp/irq.irqs
last_frame /tmp/irq.txt | grep -q '(girq_agg_slots, the budget): 0$' || fail "--irq: samples not aggregated"
expect_eq "top --irq: the tracker's aggregation after" "$(cat "$KP/girq_aggregate")" 0

top_run func -m kprof_pktproc --match 'pktproc_*'
grep -q '^kprofctl top: kprof.ko.s function probes' /tmp/func.txt || fail "-m: not the function view"
calls=$(last_frame /tmp/func.txt | awk '$1 == "pktproc_poll" { print $7 }')
expect_total "top -m kprof_pktproc: pktproc_poll's calls against its passes" "$calls" /tmp/func.passes
last_frame /tmp/func.txt | grep -q 'could not time since the start: 0$' || fail "-m: calls not timed"
expect_eq "top -m: probes after" "$(grep -c pktproc_ /sys/kernel/debug/kprobes/list || true)" 0

# Bad input: a usage error.
rc=0
kprofctl top --irq --func pktproc_poll -d 1 >/dev/null 2>/tmp/e.err || rc=$?
expect_eq "top --irq --func: exit" "$rc" 2
rc=0
kprofctl top --func kprof_no_such_function -d 1 >/dev/null 2>/tmp/e.err || rc=$?
expect_eq "top --func NOSUCH: exit" "$rc" 1
grep -q 'no such function' /tmp/e.err || fail "top --func NOSUCH: $(cat /tmp/e.err)"
rmmod kprof_pktproc
rmmod kprof
