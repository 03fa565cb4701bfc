# Pair the generic tracker's kprof_girq_thread events of one IRQ with the
# instrumented kprof_irq_thread_latency event of the same thread run (the
# thread's next one: kprof_thread_begin() follows the switch-in), in a
# trace_clock=mono text trace. Each event's IRQ entry is its timestamp
# minus its delta; a pair whose entries agree within ETOL ns measured from
# the same IRQ. Prints
#   gap NS                 (one line per same-IRQ pair)
#   pairs P same S gen_larger G over_tol O max_gap_ns M
# where a gap is the instrumented minus the generic delta of a same-IRQ
# pair, G counts pairs whose generic delta exceeds the instrumented one by
# more than 2 us, and O same-IRQ pairs whose gap exceeds TOL ns.
# The timestamp (s.us) in ns; the dot goes by gsub, not split, which
# busybox's awk may read as a regular expression.
function ts(line,   a) { match(line, /\] [^ ]* *[0-9]+\.[0-9]+:/); a = substr(line, RSTART, RLENGTH); sub(/.* /, "", a); sub(/:$/, "", a); gsub(/\./, "", a); return a * 1000 }
function field(line, f,   v) { if (!match(line, f "=[0-9]+")) return -1; v = substr(line, RSTART + length(f) + 1, RLENGTH - length(f) - 1); return v + 0 }
$0 ~ ("kprof_girq_thread: irq=" IRQ " ") { g = field($0, "delta_ns"); ge = ts($0) - g; gl = $0; have = 1; next }
/kprof_irq_thread_latency:/ {
	if (!have)
		next
	have = 0
	d = field($0, "delta_ns"); ie = ts($0) - d
	pairs++
	if (g > d + 2000) { larger++; print "generic larger:\n" gl "\n" $0 > "/dev/stderr" }
	de = ge - ie; if (de < 0) de = -de
	if (de > ETOL)
		next
	same++
	print "gap", d - g
	if (d - g > TOL) over++
	if (same == 1 || d - g > mx) mx = d - g
}
END {
	printf "pairs %d same %d gen_larger %d over_tol %d max_gap_ns %d\n", pairs, same, larger + 0, over + 0, mx
}
