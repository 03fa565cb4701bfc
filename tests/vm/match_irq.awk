# Check kprof_irq_thread_latency against kprof_irq_handler for one device,
# in a trace taken with trace_clock=mono (the clock kprof stamps with).
# Every thread event claims its first unserved IRQ entered at
# E = ts - delta_ns. Two checks per claim:
#  - an irq_handler event shows an entry (ts - duration_ns) within TOL ns
#    of E (matched, else unmatched);
#  - exactly "coalesced" further IRQ entries lie after that entry and
#    before the thread event: the claim is the first of the IRQs the run
#    served, not the latest (else miscounted).
# A claim before the first IRQ entry of the trace (its IRQ predates the
# trace) is counted apart, as before-trace.
# Prints "matched N unmatched M miscounted K before-trace B".
function ts_ns(    i) {
	ev = ""
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
	if (ev == "") {
		printf "not an event line: %s\n", $0 > "/dev/stderr"
		next
	}
	if (ev == "kprof_irq_handler:")
		h[nh++] = t - field("duration_ns")
	else if (ev == "kprof_irq_thread_latency:") {
		claim[nc] = t - field("delta_ns")
		at[nc] = t
		co[nc++] = field("coalesced")
	}
}
END {
	j = 0
	for (c = 0; c < nc; c++) {
		while (j < nh && h[j] < claim[c] - TOL)
			j++
		# An IRQ entered before the trace began (the first thread event
		# of a window can serve one) has no handler event to match.
		if (j == 0 && nh > 0 && claim[c] < h[0] - TOL) {
			before++
			continue
		}
		if (!(j < nh && h[j] <= claim[c] + TOL)) {
			bad++
			printf "unmatched claim at %.0f ns, nearest entries %.0f %.0f\n", claim[c], h[j - 1], h[j] > "/dev/stderr"
			continue
		}
		ok++
		# the nearest entry to the claim, then the entries after it
		k = j
		if (k + 1 < nh && h[k + 1] <= claim[c] + TOL && h[k + 1] - claim[c] < claim[c] - h[k])
			k++
		n = 0
		for (m = k + 1; m < nh && h[m] <= at[c]; m++)
			n++
		if (n != co[c]) {
			miscount++
			printf "claim at %.0f ns: %d later IRQ entries before the thread, coalesced=%d\n", claim[c], n, co[c] > "/dev/stderr"
		}
	}
	printf "matched %d unmatched %d miscounted %d before-trace %d\n", ok + 0, bad + 0, miscount + 0, before + 0
}
