#!/usr/bin/env bash
# tests/vm/harness/vm-run.sh when the console loses a guest's output: a
# clean power-off without the guest's first line is booted once more, and
# only once; the verdict is the second boot's. QEMU is replaced by a
# script that plays the two consoles, so the harness's logic is what runs.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"

fail() {
	echo "FAIL: $*"
	exit 1
}

id=$(demo_kernel)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
# $fake/lost-N: boot N loses its console.
cat >"$fake/qemu-system-x86_64" <<'QEMU'
#!/bin/sh
n=$(($(cat "$KPROF_FAKE/boots" 2>/dev/null || echo 0) + 1))
echo "$n" >"$KPROF_FAKE/boots"
echo "[    1.000000] Linux version (fake QEMU)"
if [ -e "$KPROF_FAKE/lost-$n" ]; then
	echo "[   13.000000] reboot: Power down"
	exit 0
fi
printf 'KPROF-BOOT: fake cpus=2\nKPROF-DMESG-BEGIN\nKPROF-DMESG-END\nKPROF-RESULT: PASS\n'
echo "[    3.000000] reboot: Power down"
QEMU
chmod +x "$fake/qemu-system-x86_64"
run() { PATH=$fake:$PATH KPROF_FAKE=$fake KPROF_VM_LOG=lost_console bash "$KPROF_TOP/tests/vm/harness/vm-run.sh" "$id" smoke; }

# One lost console: the second boot's verdict, and the harness says why.
touch "$fake/lost-1"
out=$(run) || fail "one lost console failed the test: $out"
echo "$out"
[ "$(cat "$fake/boots")" = 2 ] || fail "booted $(cat "$fake/boots") times, not 2"
grep -q "the console lost the guest's output" <<<"$out" || fail "the retry was not said"
# Twice: no third boot, and no verdict.
rm -f "$fake/boots"
touch "$fake/lost-2"
rc=0
out=$(run) || rc=$?
[ "$rc" = 3 ] || fail "two lost consoles: exit $rc, not 3 (no verdict): $out"
[ "$(cat "$fake/boots")" = 2 ] || fail "booted $(cat "$fake/boots") times, not 2"
# A guest that never booted cleanly (no power-off line) is not retried.
rm -f "$fake/boots" "$fake/lost-1" "$fake/lost-2"
sed -i 's/reboot: Power down/Kernel panic - not syncing: fake/' "$fake/qemu-system-x86_64"
sed -i 's/^printf .*/:/' "$fake/qemu-system-x86_64"
rc=0
out=$(run) || rc=$?
[ "$rc" = 3 ] && [ "$(cat "$fake/boots")" = 1 ] || fail "a panicked boot: exit $rc after $(cat "$fake/boots") boots: $out"
echo "ok: a lost console is booted once more, and only once; a panic is not"
