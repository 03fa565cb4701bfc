# make bench, P3: tabulate tests/vm/bench/bench_rates.sh's lines
#   P3 TOOL PPS REP SAMPLES LOST CPU_TICKS SECS ORACLE
# into a markdown table (median and spread per reader and rate) and the
# verdict on the goals: streaming keeps up with at least twice the rate
# trace-cmd record does; in-kernel loses nothing at the highest rate.
# CPU_TICKS are USER_HZ (100) ticks.

# med(A, N): the median of A[1..N] after sorting it in place
function med(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return a[int((n + 1) / 2)]
}

# spread(WHAT, KEY, FMT): "median (min-max)" of one column
function spread(what, key, fmt,    a, i, n, m) {
	n = runs[key]
	for (i = 1; i <= n; i++)
		a[i] = val[what, key, i]
	m = med(a, n)
	return sprintf(fmt " (" fmt "-" fmt ")", m, a[1], a[n])
}

$1 == "P3" {
	key = $2 SUBSEP $3
	i = ++runs[key]
	val["rate", key, i] = $5 / $8
	val["lost", key, i] = $6
	val["cpu", key, i] = $7 / $8
	if ($6 > 0)
		lossy[key]++
	if ($9 == "mismatch")
		bad[key]++
	if (!($2 in seen_tool)) { seen_tool[$2] = 1; tools[++ntools] = $2 }
	if (!($3 in seen_rate)) { seen_rate[$3] = 1; rates[++nrates] = $3 }
}

END {
	label["streaming"] = "streaming"
	label["tracecmd"] = "trace-cmd record"
	label["inkernel"] = "in-kernel"
	print "| offered packets/s | reader | samples/s | runs with loss | events lost | CPU % | oracle |"
	print "|---|---|---|---|---|---|---|"
	for (r = 1; r <= nrates; r++)
		for (t = 1; t <= ntools; t++) {
			key = tools[t] SUBSEP rates[r]
			oracle = tools[t] != "inkernel" ? "-" : bad[key] ? bad[key] " mismatch" : "exact"
			printf "| %d | %s | %s | %d of %d | %s | %s | %s |\n", rates[r], label[tools[t]],
				spread("rate", key, "%.0f"), lossy[key], runs[key],
				spread("lost", key, "%d"), spread("cpu", key, "%.0f"), oracle
		}
	# The highest offered rate up to which a reader lost nothing in any run.
	for (t = 1; t <= ntools; t++) {
		best[tools[t]] = 0
		for (r = 1; r <= nrates; r++) {
			key = tools[t] SUBSEP rates[r]
			if (lossy[key] || bad[key])
				break
			best[tools[t]] = rates[r]
		}
	}
	print ""
	print "Highest offered rate with no loss in any run at it or below:"
	for (t = 1; t <= ntools; t++)
		printf "%s **%s**", (t > 1 ? "," : ""), label[tools[t]] ": " (best[tools[t]] ? best[tools[t]] " packets/s" : "none")
	print "."
	print ""
	top = rates[nrates]
	if (best["tracecmd"] && best["streaming"])
		ratio = sprintf("%.2fx", best["streaming"] / best["tracecmd"])
	else
		ratio = "undefined (a reader lost events at every rate)"
	met = best["tracecmd"] && best["streaming"] >= 2 * best["tracecmd"]
	printf "- Goal: streaming keeps up with >= 2x trace-cmd's rate. Measured: %s, **%s**.\n", ratio,
		(met ? "met" : "not met")
	if (best["tracecmd"] == top && best["streaming"] == top)
		print "  Both kept up with every offered rate: the ratio is at least 1, and the guest offers no more."
	met = best["inkernel"] == top
	printf "- Goal: in-kernel loses nothing at the highest rate pktproc offers (%d packets/s). **%s**.\n", top,
		(met ? "met" : "not met")
}
