# kprof/func, the function probes under 'kprofctl func': a session per
# open file. Its calls and histograms against pktproc's own counters on
# the same run (the calls of its per-pass and per-packet functions,
# exactly, and the per-packet function's calls nested in themselves by
# tunnelled packets), their times against the work pktproc is set to do and against
# kprof's batch histogram of the same passes; bad input; and the probes
# gone with the file, even when its holder is killed or the probed
# module is unloaded.
# kprof-sets: core debug
. /tests/lib.sh

F=$KP/func
KPL=/sys/kernel/debug/kprobes/list
ppstat() { sed -n "s/^$1: //p" "$PP/stats"; }

# fwrite CMD: CMD to the session open on fd 3 (a subshell shares it).
fwrite() {
	(echo "$1" >&3) 2>/tmp/fw.err
}
expect_fwrite_errno() {
	if fwrite "$1"; then
		fail "'$1' accepted by the session"
	fi
	grep -q "$2" /tmp/fw.err || fail "'$1': want '$2', got '$(cat /tmp/fw.err)'"
	echo "ok: '$1' rejected ($2)"
}
probes() { grep -c "$1" "$KPL" || true; }

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=2000 batch=8 work_ns=2000 pass_overhead_ns=20000 ||
	fail "insmod pktproc"

exec 3<>"$F"
fwrite "add pktproc_poll" || fail "add pktproc_poll: $(cat /tmp/fw.err)"
fwrite "add pktproc_rx_one" || fail "add pktproc_rx_one: $(cat /tmp/fw.err)"
expect_fwrite_errno "add pktproc_poll" "File exists"
# x86 asks ftrace first, which cannot tell a missing name from a function
# without an ftrace entry (kprofctl tells them apart with /proc/kallsyms).
if [ "$(uname -m)" = x86_64 ]; then
	expect_fwrite_errno "add kprof_no_such_function" "Operation not supported"
else
	expect_fwrite_errno "add kprof_no_such_function" "No such file or directory"
fi
# A function the kernel's kprobes refuse: its blacklist's first plain name.
# (With an ftrace entry: on x86 one without is refused before kprobes see it.)
bl=$(awk 'NR == FNR { if ($2 ~ /^[a-z_][a-z0-9_]*$/) black[$2] = 1; next } ($1 in black) { print $1; exit }' \
	/sys/kernel/debug/kprobes/blacklist "$TR/available_filter_functions")
[ -n "$bl" ] || fail "no function in the kprobes blacklist"
expect_fwrite_errno "add $bl" "Invalid argument"
# x86: a function without an ftrace entry (a module's exit function) is
# refused before any kprobe is registered on it (6.12 Oopsed optimizing one).
[ "$(uname -m)" != x86_64 ] || expect_fwrite_errno "add pktproc_exit" "Operation not supported"
expect_fwrite_errno "add pktproc_*" "Invalid argument"
expect_fwrite_errno "stop" "Invalid argument"
expect_fwrite_errno "run" "Invalid argument"
expect_eq "probes registered, disabled, while idle" "$(grep pktproc_ "$KPL" | grep -c DISABLED)" 2
# Each probe's memory is charged to the aggregations' budget: its cells (24
# bytes a CPU) and its kretprobe's 64 or more instances (24 bytes or more
# each, with the call's start).
used=$(sed -n 's/^used_bytes: //p' "$KP/memory")
[ "$used" -ge $((2 * 64 * 24)) ] || fail "2 probes charge $used bytes, less than their instances"

# The device's own histograms over the same window, for the passes' times.
exec 4>"$KP/aggregate"
echo 1 >&4
# Every 4th packet tunnelled: pktproc_rx_one() calls itself once for it.
echo 4 >"$PP/tunnel_every"
b0=$(ppstat batches) p0=$(ppstat processed) d0=$(ppstat decapsulated)
fwrite start || fail "start: $(cat /tmp/fw.err)"
expect_fwrite_errno "add pktproc_thread" "Device or resource busy"
run_traffic 2
fwrite stop || fail "stop: $(cat /tmp/fw.err)"
echo 2 >&4
cat <&3 >/tmp/f.txt
cat "$KP/pktproc-q0/hist" >/tmp/d.txt
echo 0 >&4
exec 4>&-
grep -E '^(state|func) ' /tmp/f.txt
expect_eq "state once stopped" "$(sed -n 's/^state //p' /tmp/f.txt)" 2

# calls FN: CALLS MISSED RECURSION NMI NESTED DEPTH; hist_sum FN FIELD: over the CPUs
calls() { sed -n "s/^func $1 //p" /tmp/f.txt; }
hist_sum() { awk -v f="$1" -v c="$2" '$1 == "hist" && $2 == f { s += $c } END { printf "%.0f\n", s }' /tmp/f.txt; }
hist_min() { awk -v f="$1" '$1 == "hist" && $2 == f && (m == "" || $6 < m) { m = $6 } END { print m + 0 }' /tmp/f.txt; }
batches=$(($(ppstat batches) - b0)) packets=$(($(ppstat processed) - p0))
decap=$(($(ppstat decapsulated) - d0)) rx_calls=$((packets + decap))
[ "$batches" -gt 100 ] || fail "only $batches passes in 2 s"
[ "$decap" -ge $((packets / 4 - 1)) ] || fail "$decap tunnelled of $packets packets, not every 4th"
# Nesting: the calls entered inside a call of the same function in the same
# task, and the most at once.
expect_eq "pktproc_poll: calls, missed, recursion, NMI, nested, depth" \
	"$(calls pktproc_poll)" "$batches 0 0 0 $(func_nesting - 0 1)"
expect_eq "pktproc_rx_one: calls (packets + inner calls), missed, recursion, NMI, nested, depth" \
	"$(calls pktproc_rx_one)" "$rx_calls 0 0 0 $(func_nesting - "$decap" 2)"
expect_eq "pktproc_poll: timed calls" "$(hist_sum pktproc_poll 4)" "$batches"
expect_eq "pktproc_rx_one: timed calls" "$(hist_sum pktproc_rx_one 4)" "$rx_calls"
echo 0 >"$PP/tunnel_every"
grep -qE '^(untracked|backwards) ' /tmp/f.txt && fail "calls not timed: $(grep -E '^(untracked|backwards) ' /tmp/f.txt)"
# Each pass spins pass_overhead_ns and then work_ns for each packet.
[ "$(hist_min pktproc_poll)" -ge 22000 ] || fail "a pass took $(hist_min pktproc_poll) ns, less than its 22 us of work"
[ "$(hist_min pktproc_rx_one)" -ge 2000 ] || fail "a packet took $(hist_min pktproc_rx_one) ns, less than its 2 us of work"
# kprof's batch hooks time the same passes from inside pktproc_poll.
bc=$(awk '$1 == "batch" { s += $3 } END { print s + 0 }' /tmp/d.txt)
bsum=$(awk '$1 == "batch" { s += $4 } END { printf "%.0f\n", s }' /tmp/d.txt)
expect_eq "kprof's batches = pktproc_poll's calls" "$bc" "$batches"
psum=$(hist_sum pktproc_poll 5)
# In awk: a clock gone wrong gives sums beyond the shell's arithmetic.
awk -v p="$psum" -v b="$bsum" -v n="$batches" 'BEGIN {
	d = (p - b) / n
	printf "mean pass: pktproc_poll %.0f ns, kprof'"'"'s batch %.0f ns\n", p / n, b / n
	exit !(d >= 0 && d <= b / n / 2 + 50000)
}' || fail "pktproc_poll's mean is not the hooks' inside it plus the probe's cost"

# The probes go with the file, and so does their memory.
exec 3>&-
expect_eq "probes once the file is closed" "$(probes pktproc_)" 0
expect_eq "memory once the file is closed" "$(sed -n 's/^used_bytes: //p' "$KP/memory")" 0
# ... and with a killed holder's.
sh -c "exec 5<>$F; echo 'add pktproc_poll' >&5; echo start >&5; sleep 600" &
pid=$!
n=0
until [ "$(probes pktproc_poll)" = 1 ]; do
	n=$((n + 1)); [ $n -lt 50 ] || fail "the holder's probe never came"; sleep 0.1
done
kill -KILL $pid
wait $pid || true
expect_eq "probes after kill -9 of the holder" "$(probes pktproc_)" 0

# The probed module unloaded while a session has it: the session goes on
# and closes cleanly.
exec 3<>"$F"
fwrite "add pktproc_poll" || fail "add: $(cat /tmp/fw.err)"
fwrite start || fail "start: $(cat /tmp/fw.err)"
run_traffic 1
rmmod kprof_pktproc || fail "rmmod pktproc with a probe on it"
cat <&3 >/tmp/f.txt
grep -q '^func pktproc_poll ' /tmp/f.txt || fail "the session lost its function"
exec 3>&-
expect_eq "probes after the module and the file went" "$(probes pktproc_)" 0
rmmod kprof
