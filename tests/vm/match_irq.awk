# Check kprof_irq_thread_latency against kprof_irq_handler for one device,
# in a trace taken with trace_clock=mono (the clock kprof stamps with).
# Every thread event claims its first unserviced IRQ entered at
# E = ts - delta_ns; an irq_handler event must show that entry
# (ts - duration_ns) within TOL ns. Prints "matched N unmatched M".
function ts_ns(    i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^kprof_/) {
			ev = $i
			t = $(i - 1)
			sub(/:$/, "", t)
			return t * 1e9
		}
	return -1
}
function field(name,    i) {
	for (i = 1; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2) + 0
	return -1
}
{
	t = ts_ns()
	if (ev == "kprof_irq_handler:")
		h[nh++] = t - field("duration_ns")
	else if (ev == "kprof_irq_thread_latency:")
		claim[nc++] = t - field("delta_ns")
}
END {
	j = 0
	for (c = 0; c < nc; c++) {
		while (j < nh && h[j] < claim[c] - TOL)
			j++
		if (j < nh && h[j] <= claim[c] + TOL)
			ok++
		else {
			bad++
			printf "unmatched claim at %.0f ns, nearest entries %.0f %.0f\n", claim[c], h[j - 1], h[j] > "/dev/stderr"
		}
	}
	printf "matched %d unmatched %d\n", ok + 0, bad + 0
}
