# make bench, P3's profile: tabulate tests/vm/bench/bench_profile.sh's lines
#   PROF TOOL PPS COMM PCT / PSYM TOOL PPS COMM PCT SYMBOL /
#   PSYS TOOL PPS COMM SYSCALL CALLS TOTAL_MS AVG_MS MAX_MS
# into three markdown tables, in the order the guest printed them.
function label(t) {
	if (t == "tracecmd")
		return "trace-cmd record"
	if (t == "streamingT")
		return "irq -T, streaming"
	if (t == "tracecmdT")
		return "trace-cmd record, irq -T's events"
	return t
}
$1 == "PROF" { prof = prof sprintf("| %s | %s | %s | %s |\n", $3, label($2), $4, $5) }
$1 == "PSYM" {
	sym = $6
	for (i = 7; i <= NF; i++)
		sym = sym " " $i
	syms = syms sprintf("| %s | %s | %s | %s | `%s` |\n", $3, label($2), $4, $5, sym)
}
$1 == "PSYS" { sys = sys sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", $3, label($2), $4, $5, $6, $7, $8, $9) }
END {
	print "| packets/s | reader | thread | % of one CPU |"
	print "|---|---|---|---|"
	printf "%s", prof
	print ""
	print "| packets/s | reader | thread | % of the reader's samples | symbol |"
	print "|---|---|---|---|---|"
	printf "%s", syms
	print ""
	print "| packets/s | reader | thread | system call | calls | total ms | average ms | longest ms |"
	print "|---|---|---|---|---|---|---|---|"
	printf "%s", sys
}
