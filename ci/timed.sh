#!/usr/bin/env bash
# Time one phase of make check, and say where the minutes went.
#
#   ci/timed.sh start            forget the phases of an earlier run
#   ci/timed.sh PHASE CMD...     run CMD; add "PHASE SECONDS" to build/check-times.txt
#   ci/timed.sh report           print the phases and the total of the top-level ones
# A phase inside another is named after it: deps:debug-kernel.
set -euo pipefail
. "$(dirname "$0")/common.sh"

times=$KPROF_BUILD/check-times.txt
case "${1:?usage: $0 start|report|PHASE CMD...}" in
start)
	mkdir -p "$KPROF_BUILD"
	: >"$times"
	;;
report)
	[ -s "$times" ] || exit 0
	awk '{ printf "kprof: time of %-20s %5d s\n", $1, $2 } $1 !~ /:/ { t += $2 }
		END { printf "kprof: time of %-20s %5d s (%.1f min)\n", "make check", t, t / 60 }' "$times" >&2
	;;
*)
	phase=$1
	shift
	start=$(date +%s)
	rc=0
	"$@" || rc=$?
	mkdir -p "$KPROF_BUILD"
	echo "$phase $(($(date +%s) - start))" >>"$times"
	exit "$rc"
	;;
esac
