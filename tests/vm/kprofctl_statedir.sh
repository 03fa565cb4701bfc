# kprofctl needs no /run: without it, and with a read-only /run, it keeps
# its lock and restore records in the next place (/tmp/kprofctl), and with
# no writable place at all it still runs, and says what it cannot do.
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=500 autostart=1 || fail insmod

rmdir /run
kprofctl latency -d 1s >/tmp/out 2>/tmp/err || fail "latency without /run: $(cat /tmp/err)"
grep -q 'kprof latency report' /tmp/out || fail "no report without /run"
[ -e /tmp/kprofctl/kprof.lock ] || fail "no lock in /tmp/kprofctl"
echo "ok: without /run"

mkdir /run
mount -t tmpfs -o ro tmpfs /run
kprofctl latency -d 1s >/tmp/out 2>/tmp/err || fail "latency with a read-only /run: $(cat /tmp/err)"
grep -q 'kprof latency report' /tmp/out || fail "no report with a read-only /run"
echo "ok: with a read-only /run"

# A killed run is cleaned up from the fallback place too.
kprofctl latency >/dev/null 2>&1 &
pid=$!
wait_collecting
kill -KILL $pid
wait $pid || true
kprofctl latency -d 1s >/dev/null 2>/tmp/err || fail "after SIGKILL: $(cat /tmp/err)"
grep -q 'killed kprofctl' /tmp/err || fail "no cleanup from /tmp/kprofctl: $(cat /tmp/err)"
echo "ok: SIGKILL recovery through /tmp/kprofctl"

# A state directory someone else could write into is not used.
mkdir -p /out
chmod 0777 /tmp/kprofctl
rm -f /tmp/kprofctl/*
mkdir /tmp/st
chmod 0777 /tmp/st
KPROFCTL_STATE_DIR=/tmp/st kprofctl latency -d 1s >/out/out 2>/out/err || fail "latency: $(cat /out/err)"
[ -z "$(ls /tmp/st)" ] || fail "kprofctl used a world-writable state directory"
grep -q 'no writable state directory' /out/err || fail "no warning for unsafe state directories: $(cat /out/err)"
echo "ok: world-writable state directories are not used"
chmod 0700 /tmp/kprofctl

# Nowhere to write: it still runs, and warns.
mount -t tmpfs tmpfs /out
mount -t tmpfs -o ro tmpfs /tmp
KPROFCTL_STATE_DIR=/proc/nope kprofctl latency -d 1s >/out/out 2>/out/err || fail "latency with no state dir: $(cat /out/err)"
grep -q 'kprof latency report' /out/out || fail "no report without a state dir"
grep -q 'no writable state directory' /out/err || fail "no warning without a state dir: $(cat /out/err)"
echo "ok: no writable state directory at all"
umount /tmp
rmmod kprof_pktproc
rmmod kprof
