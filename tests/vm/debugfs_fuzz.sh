# kprof-timeout: 600
# debugfs fuzzing (issue #12, R2): at least 10,000 writes to every writable
# file of kprof and kprof_pktproc, from two writers at once (kprof-wfuzz:
# random bytes and lengths, partial writes, huge, negative and non-numeric
# values, writes at offsets), while traffic runs. Every write is accepted or
# fails with a documented errno (doc/module.md, "Writing to kprof's files"). Then the
# state must be consistent: every file readable, the knobs set back, traffic
# measured without loss and the counters agreeing, and both modules unload.
# No module parameter is writable at run time. The harness scans dmesg.
# kprof-sets: debug
. /tests/lib.sh

# Under the debug kernel's checkers a write costs about 12 ms of TCG time
# (open, write, close), so there a tenth: 1,000 writes per file, and 10 to
# bench. The generic full entries take the 10,000 the issue asks for.
writes=10000 bench_writes=30
# The debug kernel fuzzes bench's parser in round 1 only: a fuzzed valid
# count (up to 10^8 iterations) is a run of many minutes under its checkers
# and TCG (CI, 4 December 2026: one still running after 1,000 s).
! debug_kernel || { writes=1000 bench_writes=0; }
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=500 || fail "insmod pktproc"
kprofctl enable 'kprof:*' >/dev/null	# every kprof event on, in kprofctl's instance

# Module parameters: all read-only at run time; a write is refused.
params=$(ls /sys/module/kprof/parameters/* /sys/module/kprof_pktproc/parameters/*)
for p in $params; do
	if (echo 1 >"$p") 2>/dev/null; then
		fail "module parameter $p took a write"
	fi
done
echo "ok: $(echo "$params" | wc -l) module parameters, none writable"

files=$(find "$KP" "$PP" -type f -perm -u+w | sort)
nfiles=$(echo "$files" | wc -l)
[ "$nfiles" -ge 10 ] || fail "only $nfiles writable files: $files"
# Round 1, kprof in use (every event on, traffic running): WRITES writes
# to every file. kprof/bench refuses to run then (EBUSY, after parsing).
# Round 2, idle: a tenth as many again, where bench does run (BENCH_WRITES
# only: each accepted one is a benchmark of about 2 s under TCG).
fuzz() {
	out=$1
	shift
	kprof-wfuzz "$@" >"$out" 2>/tmp/wfuzz.err || {
		cat "$out"
		head -n 20 /tmp/wfuzz.err
		fail "kprof-wfuzz: a write ended other than accepted or a documented error"
	}
	cat "$out"
}
# kprof's switches off, as each round after the first starts and as the
# consistency check starts (a fuzzed write may have left any of them on).
knobs_off() {
	for f in enable aggregate girq_aggregate; do echo 0 >"$KP/$f"; done
}
start=$(date +%s)
seed=$(date +%s)
echo "seed $seed"
echo 1 >"$PP/start"
# shellcheck disable=SC2086 # one argument per file
fuzz /tmp/busy.out -n "$writes" -s "$seed" $files
kprofctl disable 'kprof:*' >/dev/null
echo >"$TR/instances/kprof/trace"	# that round's events: nobody reads them
echo 1 >"$PP/stop"
knobs_off
# shellcheck disable=SC2086 # one argument per file
fuzz /tmp/idle.out -n $((writes / 10)) -s $((seed + 1)) $(echo "$files" | grep -v "^$KP/bench$")
knobs_off	# as round 2 left them
: >/tmp/bench.out
[ "$bench_writes" = 0 ] || fuzz /tmp/bench.out -n "$bench_writes" -s $((seed + 2)) "$KP/bench"
took=$(($(date +%s) - start))
total=$(cat /tmp/busy.out /tmp/idle.out /tmp/bench.out | sed -n 's/^wfuzz: \([0-9]*\) writes.*/\1/p' |
	awk '{ s += $1 } END { print s }')
expect_eq "writes made" "$total" "$((nfiles * (writes / 2) * 2 + (nfiles - 1) * (writes / 20) * 2 + bench_writes))"
# Each file took writes, and refused some.
for f in $files; do
	acc=$(cat /tmp/busy.out /tmp/idle.out /tmp/bench.out | awk -v f="$f" '$1 == f { sub("accepted=", "", $2); s += $2 } END { print s + 0 }')
	inval=$(cat /tmp/busy.out /tmp/idle.out /tmp/bench.out | awk -v f="$f" '$1 == f { sub("EINVAL=", "", $3); s += $3 } END { print s + 0 }')
	# kprof/bench takes few writes (each is a benchmark): none of them may be valid.
	[ "$f" = "$KP/bench" ] && [ "$acc" = 0 ] && { echo 10 >"$KP/bench" || fail "a valid write to kprof/bench failed"; acc=1; }
	# kprof/func takes commands (add NAME, start, stop), which the fuzzer's inputs never are.
	[ "$f" = "$KP/func" ] && [ "$acc" = 0 ] && { echo "add pktproc_poll" >"$KP/func" || fail "a valid write to kprof/func failed"; acc=1; }
	[ "$acc" -gt 0 ] && [ "$inval" -gt 0 ] || fail "$f: $acc writes accepted, $inval refused"
done

# Consistent afterwards: everything readable, the knobs set back, traffic
# measured without loss, the counters agreeing with the events.
echo 1 >"$PP/stop"
knobs_off
echo 1 >"$KP/enable"
find "$KP" "$PP" -type f -perm -u+r -exec cat {} + >/dev/null ||
	fail "a file is not readable after the fuzzing (above)"
for kv in batch=4 irq_coalesce=1 rx_budget=0 work_ns=2000 pass_overhead_ns=20000 nowake_every=0; do
	echo "${kv#*=}" >"$PP/${kv%=*}" || fail "cannot set ${kv%=*} back"
done
echo 500 >"$PP/rate_pps"
for d in pktproc-q0 pktproc-q1; do echo 1 >"$KP/$d/reset"; done
kprofctl latency -d 2s --json >/tmp/l.json 2>/tmp/l.err &
pid=$!
(wait_collecting) || fail "kprofctl latency after the fuzzing did not start: $(cat /tmp/l.err)"
run_traffic 1
wait $pid || fail "kprofctl latency after the fuzzing: $(cat /tmp/l.err)"
awk -f /tests/kprofctl_json.awk /tmp/l.json >/tmp/l.txt
grep -q '^lost false$' /tmp/l.txt || fail "events lost after the fuzzing: $(cat /tmp/l.txt)"
n=$(sed -n 's/^events_read //p' /tmp/l.txt)
[ "$n" -gt 100 ] || fail "only $n events measured after the fuzzing"
batches=$(($(counter pktproc-q0 batches) + $(counter pktproc-q1 batches)))
[ "$batches" -gt 0 ] || fail "the counters show no batch after the fuzzing"
echo "ok: $n events measured after the fuzzing, $batches batches counted"
rmmod kprof_pktproc || fail "rmmod kprof_pktproc after the fuzzing"
rmmod kprof || fail "rmmod kprof after the fuzzing"
echo "KPROF-FIGURE: debugfs-fuzz kernel=$(uname -r) files=$nfiles writes=$total writers=2 seconds=$took unexpected=0"
