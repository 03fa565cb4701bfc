#!/usr/bin/env bash
# debug_checker.sh ID BUG: the harness's self-test of a debug kernel. The
# guest (tests/vm/selftest/selftest_debug.sh) loads a module that commits BUG (leak,
# atomic, shift, uaf; tests/kmod/kprof_test_debug.c) and otherwise passes.
# tests/vm/harness/vm-run.sh must fail it as a kernel splat (exit 2), and the console must
# hold the report of the checker made for that bug, not any other.
set -uo pipefail
. "$(dirname "$0")/../../ci/common.sh"
id=$1 bug=$2
case "$bug" in
leak) report='new suspected memory leak' ;;	# kmemleak
atomic) report='BUG: sleeping function called from invalid context' ;;
shift) report='UBSAN: shift-out-of-bounds' ;;
uaf) report='BUG: KASAN: slab-use-after-free' ;;
*) die "unknown bug '$bug'" ;;
esac
KPROF_VM_APPEND=kprof.bug=$bug KPROF_VM_LOG=selftest_debug-$bug \
	"$KPROF_TOP/tests/vm/harness/expect-exit.sh" 2 "$KPROF_TOP/tests/vm/harness/vm-run.sh" "$id" selftest_debug || exit 1
log=$KPROF_BUILD/vm-logs/$id/selftest_debug-$bug.log
grep -q -a -F "$report" "$log" || die "$id, bug=$bug: no '$report' in $log"
echo "ok: $id caught bug=$bug: $(grep -a -m1 -F "$report" "$log")"
