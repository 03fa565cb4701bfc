# Flatten kprofctl's pretty JSON (keys sorted) into lines the tests grep:
#   stat EVENT DEVICE CPU COUNT MIN_NS MAX_NS P50_NS  (kprofctl irq: DEVICE is IRQ/NAME)
#   pct EVENT DEVICE CPU P90_NS P99_NS P99.9_NS MEAN_NS
#   irq IRQ NAME HANDLERS REQUESTS WOKEN RUNS COALESCED BUSY UNSERVED
#   check DEVICE EVENT READ EMITTED
#   missed_total N / buffer_lost N / not_read N / events_read N / invalid N /
#   lost true|false / untracked N (in-kernel)
#   queue LIMIT_BYTES HIGH_WATER_BYTES WAITS  (streaming: the reader's page queue)
#   reader mmap|read  (streaming: how the pages were taken)
#   func NAME CALLS ENTERED IN_FLIGHT MISSED RECURSION NMI UNTRACKED BACKWARDS NESTED MAX_DEPTH
#        CALLS_PER_S CPU_SHARE (NESTED, MAX_DEPTH: null where the kernel hides them)
function val(line) {
	sub(/^[^:]*: */, "", line)
	sub(/,$/, "", line)
	gsub(/"/, "", line)
	return line
}
/"cross_check": \[/ { in_check = 1 }
/"cross_check_note":/ { in_check = 0 }
/"emitted":/ { emitted = val($0) }
/"count":/ { count = val($0) }
/"cpu":/ && !/"per_cpu"/ { cpu = val($0) }
/"device":/ { device = val($0) }
/"irq":/ { irq = val($0) }
/"name":/ { name = val($0); device = irq "/" name }
/"handlers":/ { handlers = val($0) }
/"requests":/ { requests = val($0) }
/"busy":/ { busy = val($0) }
/"unserved":/ { unserved = val($0) }
/"runs":/ { runs = val($0) }
/"coalesced":/ { coalesced = val($0) }
/"woken":/ { print "irq", irq, name, handlers, requests, val($0), runs, coalesced, busy, unserved }
/"p50":/ { p50 = val($0) }
/"p90":/ { p90 = val($0) }
/"p99":/ { p99 = val($0) }
/"p99.9":/ { p999 = val($0) }
/"mean_ns":/ { mean = val($0) }
/"event":/ { event = val($0) }
/"read":/ {
	if (in_check)
		print "check", device, event, val($0), emitted
}
/"max_ns":/ { max = val($0) }
/"min_ns":/ { min = val($0) }
/"stddev_ns":/ { print "stat", event, device, cpu, count, min, max, p50; print "pct", event, device, cpu, p90, p99, p999, mean }
/"reader_queue": \{/ { in_queue = 1 }
in_queue && /"high_water_bytes":/ { q_high = val($0) }
in_queue && /"limit_bytes":/ { q_limit = val($0) }
in_queue && /"reader":/ { print "reader", val($0) }
in_queue && /"spliced_pages":/ { print "spliced", val($0) }
in_queue && /"copied_pages":/ { print "copied", val($0) }
in_queue && /"waits":/ { print "queue", q_limit, q_high, val($0); in_queue = 0 }
/"missed_total":/ { print "missed_total", val($0) }
/"buffer_lost":/ { print "buffer_lost", val($0) }
/"not_read":/ && !in_check { print "not_read", val($0) }
/"events_read":/ { print "events_read", val($0) }
/"invalid":/ { print "invalid", val($0) }
/"lost": (true|false)/ { print "lost", val($0) }
/"functions": \[/ { in_funcs = 1 }
in_funcs && /^  \]/ { in_funcs = 0 }
in_funcs && /"backwards":/ { f_bw = val($0) }
in_funcs && /"calls":/ { f_calls = val($0) }
in_funcs && /"calls_per_s":/ { f_rate = val($0) }
in_funcs && /"cpu_share":/ { f_share = val($0) }
in_funcs && /"entered":/ { f_entered = val($0) }
in_funcs && /"function":/ { f_name = val($0) }
in_funcs && /"in_flight":/ { f_flight = val($0) }
in_funcs && /"max_depth":/ { f_depth = val($0) }
in_funcs && /"nested":/ { f_nested = val($0) }
in_funcs && /"missed":/ { f_missed = val($0) }
in_funcs && /"nmi":/ { f_nmi = val($0) }
in_funcs && /"recursion_missed":/ { f_rec = val($0) }
in_funcs && /"untracked":/ {
	print "func", f_name, f_calls, f_entered, f_flight, f_missed, f_rec, f_nmi, val($0), f_bw, f_nested, f_depth,
		f_rate, f_share
}
/"untracked":/ && !in_funcs { print "untracked", val($0) }
# per CPU (keys sorted, "unread" last):
#   cpuloss CPU OVERRUN COMMIT_OVERRUN DROPPED UNREAD HEADER_MISSED LOSSY_PAGES
/"commit_overrun":/ { commit_overrun = val($0) }
/"overrun":/ { overrun = val($0) }
/"dropped":/ { dropped = val($0) }
/"header_missed":/ { header_missed = val($0) }
/"lossy_pages":/ { lossy_pages = val($0) }
/"unread":/ { print "cpuloss", cpu, overrun, commit_overrun, dropped, val($0), header_missed, lossy_pages }
