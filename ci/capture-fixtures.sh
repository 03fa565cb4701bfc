#!/usr/bin/env bash
# Capture the decoder's unit-test fixtures from a real guest:
#   ci/capture-fixtures.sh [KERNEL]   -> tests/unit/fixtures/<release>/
#   ci/capture-fixtures.sh KERNEL tracedat
#                                     -> tests/unit/fixtures/<release>/trace.{dat,txt}
# (capture the fixtures first: that replaces the whole directory)
set -euo pipefail
. "$(dirname "$0")/common.sh"
id=${1:-6.1}
what=${2:-fixtures}
"$KPROF_TOP/tests/vm/harness/vm-run.sh" "$id" "tool_capture_$what" >/dev/null || true
log=$KPROF_BUILD/vm-logs/$id/tool_capture_$what.log
grep -q '^KPROF-RESULT: PASS' "$log" || die "capture failed; see $log"
tmp=$(mktemp -d)
sed -n '/^FIXTURES-BEGIN$/,/^FIXTURES-END$/p' "$log" | sed '1d;$d' | base64 -d | tar -xz -C "$tmp"
rel=$(cat "$tmp/fx/kernel")
dest=$KPROF_TOP/tests/unit/fixtures/$rel
if [ "$what" = tracedat ]; then
	mkdir -p "$dest"
	mv "$tmp/fx/trace.dat" "$tmp/fx/trace.txt" "$dest/"
else
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	mv "$tmp/fx" "$dest"
fi
rm -rf "$tmp"
ls -la "$dest"
