#!/usr/bin/env bash
# Time one phase of make check, and say where the minutes went.
#
#   ci/timed.sh start            forget the phases of an earlier run
#   ci/timed.sh PHASE CMD...     run CMD; add "PHASE SECONDS BUSY" to build/check-times.txt,
#                                BUSY the share of all CPUs' time not idle meanwhile (%)
#   ci/timed.sh report           print the phases and the total of the top-level ones
# A phase inside another is named after it: deps:debug-kernel.
set -euo pipefail
. "$(dirname "$0")/common.sh"

times=$KPROF_BUILD/check-times.txt

# cpu_ticks: "busy total" clock ticks of all CPUs since boot (/proc/stat).
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }
case "${1:?usage: $0 start|report|PHASE CMD...}" in
start)
	mkdir -p "$KPROF_BUILD"
	: >"$times"
	;;
report)
	[ -s "$times" ] || exit 0
	awk '{ printf "kprof: time of %-20s %5d s%s\n", $1, $2, (NF > 2 ? sprintf(", CPUs %d %% busy", $3) : "") }
		$1 !~ /:/ { t += $2 }
		END { printf "kprof: time of %-20s %5d s (%.1f min)\n", "make check", t, t / 60 }' "$times" >&2
	;;
*)
	phase=$1
	shift
	start=$(date +%s)
	read -r busy0 total0 < <(cpu_ticks)
	rc=0
	"$@" || rc=$?
	read -r busy1 total1 < <(cpu_ticks)
	mkdir -p "$KPROF_BUILD"
	echo "$phase $(($(date +%s) - start)) $((100 * (busy1 - busy0) / (total1 - total0 + 1)))" >>"$times"
	exit "$rc"
	;;
esac
