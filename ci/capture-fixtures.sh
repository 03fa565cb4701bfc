#!/usr/bin/env bash
# Capture the decoder's unit-test fixtures from a real guest:
#   ci/capture-fixtures.sh [KERNEL]   -> tests/unit/fixtures/<release>/
set -euo pipefail
. "$(dirname "$0")/common.sh"
id=${1:-6.1}
"$KPROF_TOP/ci/vm-run.sh" "$id" tool_capture_fixtures >/dev/null || true
log=$KPROF_BUILD/vm-logs/$id/tool_capture_fixtures.log
grep -q '^KPROF-RESULT: PASS' "$log" || die "capture failed; see $log"
tmp=$(mktemp -d)
sed -n '/^FIXTURES-BEGIN$/,/^FIXTURES-END$/p' "$log" | sed '1d;$d' | base64 -d | tar -xz -C "$tmp"
rel=$(cat "$tmp/fx/kernel")
dest=$KPROF_TOP/tests/unit/fixtures/$rel
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/fx" "$dest"
rm -rf "$tmp"
ls -la "$dest"
