# Check the tracker's kprof_girq_thread samples of one IRQ thread against
# the kernel's own tracepoints in the same trace (trace_clock=mono):
# irq:irq_handler_entry for IRQ, sched:sched_switch for the thread PID.
# Variables: IRQ, PID, NAME (the sample's name= up to the next field), TOL
# (ns). Each sample serves its first unserved IRQ entry and "coalesced"
# more, and claims that entry at E = ts - delta_ns:
#  - matched: E lies between the oldest unserved entry (less TOL, for the
#    clocks of two CPUs) and the entry after it: the sample is measured
#    from its first IRQ, not from a later one. The tracker stamps an entry
#    in its own irq_handler_entry probe, after the trace's event: a TCG
#    stall between the two puts E later, up to 0.85 ms in 400 samples;
#  - late: a sample not marked busy (its thread was waiting for the IRQ)
#    whose thread switched out other than to that wait (prev_state not S)
#    between E and the sample: the run had started before the sample said
#    (a sample taken when a handler that slept or was preempted in its run
#    is switched back in);
#  - served: entries the samples consumed, against the entries seen.
# off counts the thread's switch-outs not to its wait after the first
# entry: the times its handler slept on a lock (D; PREEMPT_RT's rtmutex
# waits show as R+, as a preemption does);
# busy counts the samples marked busy. Prints
#   samples S matched M unmatched U late L busy B served V entries N off O
BEGIN { head = 0; ne = 0; nd = 0; di = 0 }
function ts(line,   a) { match(line, /\] [^ ]* *[0-9]+\.[0-9]+:/); a = substr(line, RSTART, RLENGTH); sub(/.* /, "", a); sub(/:$/, "", a); gsub(/\./, "", a); return a * 1000 }
function field(line, f,   v) { if (!match(line, " " f "=[0-9]+")) return -1; v = substr(line, RSTART + length(f) + 2, RLENGTH - length(f) - 2); return v + 0 }
$0 ~ (" irq_handler_entry: irq=" IRQ " ") { e[ne++] = ts($0); next }
/ sched_switch: / && $0 ~ (" prev_pid=" PID " ") && $0 !~ / prev_state=S / {
	if (ne > 0) {
		off++
		d[nd++] = ts($0)
	}
	next
}
$0 ~ (" kprof_girq_thread: irq=" IRQ " name=" NAME " hard_cpu=") {
	t = ts($0)
	claim = t - field($0, "delta_ns")
	samples++
	if (head < ne && claim >= e[head] - TOL && (head + 1 >= ne || claim < e[head + 1]))
		matched++
	else {
		unmatched++
		printf "unmatched: claim %.0f, oldest unserved entry %.0f\n%s\n", claim, e[head], $0 > "/dev/stderr"
	}
	while (di < nd && d[di] < claim)
		di++
	if (field($0, "busy"))
		busy++
	else if (di < nd && d[di] < t) {
		late++
		printf "late: off CPU at %.0f, between the claim %.0f and\n%s\n", d[di], claim, $0 > "/dev/stderr"
	}
	head += 1 + field($0, "coalesced")
}
END {
	printf "samples %d matched %d unmatched %d late %d busy %d served %d entries %d off %d\n",
		samples, matched, unmatched, late, busy, head, ne, off
}
