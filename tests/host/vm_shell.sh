#!/usr/bin/env bash
# 'make vm-shell KERNEL=<id>' (tests/vm/harness/vm-run.sh ID shell) gives a working guest
# shell, on the first arm entry of the matrix: type into it once its banner
# shows, read the answer, leave with poweroff -f.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"
id=$(kernels_each | awk '$4 != "amd64" { print $1; exit }')
[ -n "$id" ] || id=$(kernels_each | awk '{ print $1; exit }')
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "${qpid:-}" ] || kill "$qpid" 2>/dev/null || true' EXIT
mkfifo "$work/in"
timeout 120 "$KPROF_TOP/tests/vm/harness/vm-run.sh" "$id" shell <"$work/in" >"$work/out" 2>&1 &
qpid=$!
exec 3>"$work/in"
for _ in $(seq 600); do
	grep -q 'kprof guest shell' "$work/out" && break
	sleep 0.1
done
grep -q 'kprof guest shell' "$work/out" || { cat "$work/out"; echo "FAIL: no guest shell on $id"; exit 1; }
sleep 1
echo 'echo "answer: $(uname -m) $(ls /lib/kprof | wc -l)"' >&3
for _ in $(seq 100); do
	grep -q '^answer: ' "$work/out" && break
	sleep 0.1
done
echo 'poweroff -f' >&3
wait "$qpid" || true
qpid=
answer=$(tr -d '\r' <"$work/out" | sed -n 's/^answer: //p' | head -n 1)
echo "$id shell answered: $answer"
case "$(kernel_arch "$id")" in
arm64) want=aarch64 ;;
armhf) want=armv7l ;;
*) want=x86_64 ;;
esac
[ "${answer%% *}" = "$want" ] || { tail -n 20 "$work/out"; echo "FAIL: the $id shell answered '$answer', not $want"; exit 1; }
[ "${answer#* }" -gt 0 ] || { echo "FAIL: no modules in the $id guest's /lib/kprof"; exit 1; }
