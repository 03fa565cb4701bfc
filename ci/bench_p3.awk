# make bench, P3: tabulate tests/vm/bench/bench_rates.sh's lines
#   P3 TOOL PPS REP SAMPLES LOST CPU_TICKS SECS ORACLE
#   P3T TOOL PPS REP COMM USER_TICKS SYSTEM_TICKS WAKEUPS WAIT_MAX_MS WAIT_SUM_MS
# into markdown tables (median and spread per reader and rate; where each
# reader's CPU went, per thread or process) and the verdicts on the goals:
# streaming keeps up with at least twice the rate trace-cmd record does,
# at no more CPU per sample; in-kernel loses nothing at the highest rate.
# Where a goal is not met: the reader's CPU and its threads' waits for a
# CPU at the first rate at which it lost, beside trace-cmd's.
# CPU_TICKS are USER_HZ (100) ticks.

# med(A, N): the median of A[1..N] after sorting it in place
function med(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return a[int((n + 1) / 2)]
}

# median(WHAT, KEY): the median of one column over KEY's runs
function median(what, key,    a, i, n) {
	n = runs[key]
	for (i = 1; i <= n; i++)
		a[i] = val[what, key, i]
	return med(a, n)
}

# spread(WHAT, KEY, FMT): "median (min-max)" of one column
function spread(what, key, fmt,    a, i, n, m) {
	n = runs[key]
	for (i = 1; i <= n; i++)
		a[i] = val[what, key, i]
	m = med(a, n)
	return sprintf(fmt " (" fmt "-" fmt ")", m, a[1], a[n])
}

$1 == "P3" && NF >= 9 {
	key = $2 SUBSEP $3
	i = ++runs[key]
	val["rate", key, i] = $5 / $8
	val["lost", key, i] = $6
	val["cpu", key, i] = $7 / $8
	val["secs", key, i] = $8
	# ms of CPU per 1000 samples (a tick is 10 ms)
	val["cost", key, i] = $5 ? 10 * $7 * 1000 / $5 : 0
	if ($6 > 0)
		lossy[key]++
	if ($9 == "mismatch")
		bad[key]++
	if (!($2 in seen_tool)) { seen_tool[$2] = 1; tools[++ntools] = $2 }
	if (!($3 in seen_rate)) { seen_rate[$3] = 1; rates[++nrates] = $3 }
}

# Threads of one reader are told apart by name; trace-cmd's recorders
# share theirs and are summed.
$1 == "P3T" && NF >= 8 {
	tkey = $2 SUBSEP $3 SUBSEP $5
	if (!(tkey in seen_thread)) { seen_thread[tkey] = 1; threads[++nthreads] = tkey }
	tu[tkey, $4] += $6
	ts[tkey, $4] += $7
	tw[tkey, $4] += $8
	if (NF >= 10) {
		tm[tkey, $4] = $9 > tm[tkey, $4] ? $9 : tm[tkey, $4]
		tq[tkey, $4] += $10
	}
	treps[tkey] = $4 > treps[tkey] ? $4 : treps[tkey]
}

# best(TOOL): the highest offered rate up to which TOOL lost nothing
function best(tool,    r, key, b) {
	b = 0
	for (r = 1; r <= nrates; r++) {
		key = tool SUBSEP rates[r]
		if (!runs[key] || lossy[key] || bad[key])
			break
		b = rates[r]
	}
	return b
}

# waited(TOOL, RATE): the median over runs of the time TOOL's threads
# waited for a CPU, summed over its threads (ms)
function waited(tool, rate,    i, j, k, q, total) {
	total = 0
	for (i = 1; i <= nthreads; i++) {
		split(threads[i], k, SUBSEP)
		if (k[1] != tool || k[2] != rate)
			continue
		for (j = 1; j <= treps[threads[i]]; j++)
			q[j] = tq[threads[i], j]
		total += med(q, treps[threads[i]])
	}
	return total
}

# limits(S, T): what the runs show where S first lost events, beside T
function limits(s, t,    r, key_s, key_t) {
	for (r = 1; r <= nrates; r++) {
		key_s = s SUBSEP rates[r]
		if (runs[key_s] && (lossy[key_s] || bad[key_s]))
			break
	}
	if (r > nrates)
		return
	key_t = t SUBSEP rates[r]
	printf "- Where %s first lost events, at %d packets/s (%d of %d runs): it used %.0f %% of a vCPU", label[s],
		rates[r], lossy[key_s], runs[key_s], median("cpu", key_s)
	if (runs[key_t])
		printf " (%s: %.0f %%, lost in %d of %d runs)", label[t], median("cpu", key_t), lossy[key_t], runs[key_t]
	if (nthreads)
		printf "; its threads waited %.0f ms for a CPU in %.0f s of traffic (%s: %.0f ms)", waited(s, rates[r]),
			median("secs", key_s), label[t], waited(t, rates[r])
	print "."
}

# goal(S, T): streaming reader S against trace-cmd T
function goal(s, t,    bs, bt, ratio, met, r, key_s, key_t, worse, n) {
	bs = best(s)
	bt = best(t)
	ratio = bt && bs ? sprintf("%.2fx", bs / bt) : "undefined (a reader lost events at every rate)"
	met = bt && bs >= 2 * bt
	printf "- Goal: %s keeps up with >= 2x the rate of %s. Measured: %s, **%s**.\n", label[s], label[t], ratio,
		(met ? "met" : "not met")
	if (!met)
		limits(s, t)
	if (bt == rates[nrates] && bs == rates[nrates])
		print "  Both kept up with every offered rate: the ratio is at least 1, and the guest offers no more."
	worse = ""
	n = 0
	for (r = 1; r <= nrates; r++) {
		key_s = s SUBSEP rates[r]
		key_t = t SUBSEP rates[r]
		if (!runs[key_s] || !runs[key_t])
			continue
		n++
		if (median("cost", key_s) > median("cost", key_t))
			worse = worse (worse ? ", " : "") rates[r]
	}
	printf "- Goal: no more CPU per sample than %s (medians, at each rate). %s.\n", label[t],
		(!n ? "Not measured" : worse ? "**Not met** at " worse " packets/s" : "**Met** at every rate")
}

END {
	label["streaming"] = "streaming"
	label["streamingread"] = "streaming, read()"
	label["streamingsplice"] = "streaming, splice()"
	label["streamingTread"] = "irq -T, streaming, read()"
	label["tracecmd"] = "trace-cmd record"
	label["inkernel"] = "in-kernel"
	label["streamingT"] = "irq -T, streaming"
	label["tracecmdT"] = "trace-cmd record, the same events"
	print "| offered packets/s | reader | samples/s | runs with loss | events lost | CPU % | CPU ms per 1000 samples | oracle |"
	print "|---|---|---|---|---|---|---|---|"
	for (r = 1; r <= nrates; r++)
		for (t = 1; t <= ntools; t++) {
			key = tools[t] SUBSEP rates[r]
			oracle = tools[t] != "inkernel" ? "-" : bad[key] ? bad[key] " mismatch" : "exact"
			printf "| %d | %s | %s | %d of %d | %s | %s | %s | %s |\n", rates[r], label[tools[t]],
				spread("rate", key, "%.0f"), lossy[key], runs[key],
				spread("lost", key, "%d"), spread("cpu", key, "%.0f"), spread("cost", key, "%.2f"), oracle
		}
	if (nthreads) {
		print ""
		print "Where each reader's CPU went during the traffic: per thread (trace-cmd: its processes of one"
		print "name summed), the median over the runs of its user and system time (ms), of its wakeups"
		print "(voluntary context switches), and of the time it was runnable but not running (the"
		print "scheduler's wait_sum: waiting for a CPU) and its longest such wait (wait_max; trace-cmd: the"
		print "longest of its processes'), in ms."
		print ""
		print "| offered packets/s | reader | thread | user ms | system ms | wakeups | waited for a CPU ms | longest wait ms |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nthreads; i++) {
			split(threads[i], k, SUBSEP)
			for (j = 1; j <= treps[threads[i]]; j++) {
				u[j] = 10 * tu[threads[i], j]
				sy[j] = 10 * ts[threads[i], j]
				w[j] = tw[threads[i], j]
				q[j] = tq[threads[i], j]
				m[j] = tm[threads[i], j]
			}
			n = treps[threads[i]]
			printf "| %d | %s | %s | %d | %d | %d | %.1f | %.1f |\n", k[2], label[k[1]], k[3], med(u, n), med(sy, n),
				med(w, n), med(q, n), med(m, n)
		}
	}
	print ""
	print "Highest offered rate with no loss in any run at it or below:"
	for (t = 1; t <= ntools; t++)
		printf "%s **%s**", (t > 1 ? "," : ""), label[tools[t]] ": " (best(tools[t]) ? best(tools[t]) " packets/s" : "none")
	print "."
	print ""
	if (("streaming" in seen_tool) && ("tracecmd" in seen_tool))
		goal("streaming", "tracecmd")
	if (("streamingT" in seen_tool) && ("tracecmdT" in seen_tool))
		goal("streamingT", "tracecmdT")
	if ("inkernel" in seen_tool) {
		top = rates[nrates]
		met = best("inkernel") == top
		printf "- Goal: in-kernel loses nothing at the highest rate pktproc offers (%d packets/s). **%s**.\n", top,
			(met ? "met" : "not met")
	}
}
