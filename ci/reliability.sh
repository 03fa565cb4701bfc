#!/usr/bin/env bash
# The "Reliability" table of doc/testing.md, made from what the last
# 'make check' printed (never typed in): the KPROF-FIGURE lines of the
# guests' logs (build/vm-logs/<kernel>/<test>.log) and the sanitizer
# build's logs.
#   ci/reliability.sh           print the table
#   ci/reliability.sh --write   replace doc/testing.md's table with it
set -euo pipefail
. "$(dirname "$0")/common.sh"
logs=$KPROF_BUILD/vm-logs
san=$KPROF_BUILD/sanitize

# figure KIND: "kernel<TAB>rest of the line" for every KPROF-FIGURE: KIND line
figure() {
	grep -H "^KPROF-FIGURE: $1 " "$logs"/*/*.log 2>/dev/null |
		sed "s|^$logs/\([^/]*\)/[^:]*:KPROF-FIGURE: $1 |\1\t|" | sort -V || true
}

# field KEY: the value of KEY=... on each line of stdin
field() {
	sed -n "s/.*\(^\|[ \t]\)$1=\([^ ]*\).*/\2/p"
}

# range KIND KEY: "min-max" of KEY over the KIND figures ("n" if all equal)
range() {
	figure "$1" | field "$2" | sort -n | sed -n '1p;$p' | paste -sd- - | sed 's/^\([0-9]*\)-\1$/\1/'
}

# results REGEX: "name passed|failed" for every test of the last ctest run
# in build/host whose name matches REGEX.
results() {
	awk -v re="$1" '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
		/^Test Passed/ && name ~ re { print name, "passed" }
		/^Test Failed/ && name ~ re { print name, "failed" }' \
		"$KPROF_BUILD/host/Testing/Temporary/LastTest.log" 2>/dev/null || true
}

# kernels IDS...: "6.1, 6.12 (2)"
kernels() {
	local list
	list=$(printf '%s\n' "$@" | sort -uV | paste -sd, - | sed 's/,/, /g')
	echo "$list ($(printf '%s\n' "$@" | sort -u | grep -c .))"
}

# One row for the signals when each was restored on the same kernels, else
# one row per signal.
signals() {
	local sig rows=() lists=()
	for sig in INT TERM HUP INT+INT PIPE KILL; do
		mapfile -t ids < <(figure signal | awk -F'\t' -v s="$sig restored" '$2 == s { print $1 }')
		[ ${#ids[@]} -gt 0 ] || continue
		lists+=("$(kernels "${ids[@]}")")
		rows+=("| SIG$sig during a run | kprofctl latency, then the tracefs state compared | restored on ${lists[-1]} |")
	done
	[ ${#rows[@]} -gt 0 ] || return 0
	if [ ${#rows[@]} -eq 6 ] && [ "$(printf '%s\n' "${lists[@]}" | sort -u | wc -l)" -eq 1 ]; then
		echo "| Signals during a run | SIGINT, SIGTERM, SIGHUP, SIGINT twice and SIGPIPE to kprofctl latency; SIGKILL, then the next run; each time the tracefs state compared with the one before | all 6 restored on ${lists[0]} |"
	else
		printf '%s\n' "${rows[@]}"
	fi
}

table() {
	echo "| Check | What it did | Result |"
	echo "|---|---|---|"
	local n ids execs
	if [ -f "$san/Testing/Temporary/LastTest.log" ]; then
		n=$(grep -c '^[0-9]*/[0-9]* Testing: unit\.' "$san/Testing/Temporary/LastTest.log" || true)
		cases=$(grep -o 'Running [0-9]* test cases' "$san/Testing/Temporary/LastTest.log" |
			awk '{ s += $2 } END { print s + 0 }')
		failed=$(grep -c '^Test Failed' "$san/Testing/Temporary/LastTest.log" || true)
		echo "| ASan + UBSan | $n unit test programs, $cases test cases, built with clang | $failed of the sanitizer build's tests failed |"
	fi
	for log in "$san"/fuzz/*/log; do
		[ -f "$log" ] || continue
		name=$(basename "$(dirname "$log")")
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		result=$(sed -n "s/^PASS: fuzz $name\(: \)\{0,1\}/no crash; /p" "$san/Testing/Temporary/LastTest.log" 2>/dev/null |
			sed 's/; $//')
		echo "| fuzz.$name | ${execs:-0} inputs in ${KPROF_FUZZ_SECONDS:-30} s | ${result:-crashed (see $log)} |"
	done
	signals
	mapfile -t ids < <(figure overrun | cut -f1)
	if [ ${#ids[@]} -gt 0 ]; then
		echo "| Induced overrun | 4 KiB buffer, reader stopped 1 s at 5,000 pkt/s; $(range overrun overrun) events overwritten | missed = the kernel's overrun, exactly, on $(kernels "${ids[@]}") |"
	fi
	mapfile -t ids < <(figure debugfs-fuzz | cut -f1)
	if [ ${#ids[@]} -gt 0 ]; then
		local files
		files=$(figure debugfs-fuzz | field files | sort -u | paste -sd/ -)
		echo "| debugfs fuzzing | $(range debugfs-fuzz writes) writes per kernel to the $files writable files of kprof and pktproc, 2 writers, under traffic and idle; then consistency and rmmod | every write accepted or a documented errno, on $(kernels "${ids[@]}") |"
	fi
	while read -r id; do
		local passed failed bugs
		passed=$(results "^vm\\.$id\\." | grep -c ' passed$' || true)
		failed=$(results "^vm\\.$id\\." | grep -c ' failed$' || true)
		[ $((passed + failed)) -gt 0 ] || continue
		echo "| Debug kernel $id | the debug set of VM tests (the tests tagged kprof-sets debug: the enable key, hook races, the IRQ tracker, fuzzing, soak) under KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, debugobjects, kmemleak, UBSAN, KFENCE, DEBUG_LIST and the lockup detectors | $passed passed, $failed failed |"
		bugs=$(results "^vm\\.harness\\.$id\\." | awk '$2 == "passed" { n = split($1, a, "."); print a[n] }' | paste -sd, - | sed 's/,/, /g')
		[ -z "$bugs" ] || echo "| Checkers catch bugs on $id | a test module leaks, sleeps in atomic context, shifts out of bounds, reads freed memory | the harness failed the test for each of: $bugs |"
	done < <(awk '$2 == "debug" { print $1 }' "$KPROF_TOP/ci/kernels.list")
	figure soak | while IFS=$'\t' read -r id rest; do
		local cycles events failures leaks budget bound
		cycles=$(field cycles <<<"$rest")
		budget=$(field budget <<<"$rest")
		# A bounded soak (make check's on the debug kernel) says so; 'make
		# soak' and the generic kernels' run all their cycles.
		bound=
		[ -z "$budget" ] || [ "$budget" = 0 ] || bound=" (as many as $budget s allowed)"
		events=$(field events <<<"$rest")
		failures=$(field failures <<<"$rest")
		leaks=$(field kmemleak <<<"$rest")
		case "$leaks" in
		''|n/a) leaks= ;;
		*) leaks="; kmemleak: $leaks suspects" ;;
		esac
		echo "| Soak on $id | $cycles cycles$bound of insmod, traffic, latency + irq readers, enable flips, rmmod under traffic; $events events read | $failures failures$leaks |"
	done
}

if [ "${1:-}" = --write ]; then
	t=$(mktemp)
	table >"$t"
	awk -v f="$t" '
		/^<!-- reliability:begin/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
		/^<!-- reliability:end/ { skip = 0 }
		!skip' "$KPROF_TOP/doc/testing.md" >"$t.doc"
	mv "$t.doc" "$KPROF_TOP/doc/testing.md"
	rm -f "$t"
else
	table
fi
