# Check kprof_irq_thread_latency against kprof_irq_handler for one device,
# in a trace taken with trace_clock=mono (the clock kprof stamps with).
# Every thread event claims its first unserved IRQ entered at
# E = ts - delta_ns. Two checks per claim:
#  - an irq_handler event shows an entry (ts - duration_ns) within TOL ns
#    of E (matched, else unmatched);
#  - exactly "coalesced" further IRQs entered after that entry and left
#    their handler before the thread event: the claim is the first of the
#    IRQs the run served, not the latest (else miscounted). An IRQ is
#    billed at its exit (kprof_irq_exit()), under the lock the thread's
#    snapshot takes, and both events are stamped inside it: one that
#    entered before the thread started but left after is the next run's.
# The events must be on before the IRQs start: a claim before the first
# entry of the trace is unmatched (kprof bills no IRQ that entered before
# its key came on).
# Prints "matched N unmatched M miscounted K".
# nh and nc start at 0: an unset index is "", not 0, to mawk and busybox.
BEGIN { nh = 0; nc = 0 }
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
	if (ev == "kprof_irq_handler:") {
		x[nh] = t
		h[nh++] = t - field("duration_ns")
	}
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
		if (!(j < nh && h[j] <= claim[c] + TOL)) {
			bad++
			printf "unmatched claim at %.0f ns, nearest entries %.0f %.0f\n", claim[c], (j ? h[j - 1] : -1), (j < nh ? h[j] : -1) > "/dev/stderr"
			continue
		}
		ok++
		# the nearest entry to the claim, then the entries after it
		k = j
		if (k + 1 < nh && h[k + 1] <= claim[c] + TOL && h[k + 1] - claim[c] < claim[c] - h[k])
			k++
		# the trace is in timestamp order: the exits (x) ascend
		n = 0
		for (m = k + 1; m < nh && x[m] <= at[c]; m++)
			n++
		if (n != co[c]) {
			miscount++
			printf "claim at %.0f ns: %d later IRQs served before the thread, coalesced=%d\n", claim[c], n, co[c] > "/dev/stderr"
		}
	}
	printf "matched %d unmatched %d miscounted %d\n", ok + 0, bad + 0, miscount + 0
}
