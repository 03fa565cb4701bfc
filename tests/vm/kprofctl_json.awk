# Flatten kprofctl's pretty JSON (keys sorted) into lines the tests grep:
#   stat EVENT DEVICE CPU COUNT MIN_NS MAX_NS
#   check DEVICE EVENT EVENTS COUNTER
#   missed_total N / events_read N / invalid N / lost true|false
function val(line) {
	sub(/^[^:]*: */, "", line)
	sub(/,$/, "", line)
	gsub(/"/, "", line)
	return line
}
/"cross_check": \[/ { in_check = 1 }
/"stats": \[/ { in_check = 0 }
/"counter":/ { counter = val($0) }
/"count":/ { count = val($0) }
/"cpu":/ && !/"per_cpu"/ { cpu = val($0) }
/"device":/ { device = val($0) }
/"event":/ { event = val($0) }
/"events":/ {
	events = val($0)
	if (in_check)
		print "check", device, event, events, counter
}
/"max_ns":/ { max = val($0) }
/"min_ns":/ { min = val($0) }
/"stddev_ns":/ { print "stat", event, device, cpu, count, min, max }
/"missed_total":/ { print "missed_total", val($0) }
/"events_read":/ { print "events_read", val($0) }
/"invalid":/ { print "invalid", val($0) }
/"lost":/ { print "lost", val($0) }
