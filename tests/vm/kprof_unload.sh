# Unloading is clean: with events enabled, under traffic on 2 queues, and
# with debugfs files held open.
# kprof-sets: core
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=5000 autostart=1 || fail "insmod"
I=$TR/instances/kprof_unload
mkdir "$I"
echo 1 >"$I/events/kprof/enable"
echo 1 >"$KP/enable"
sleep 1
# A driver's files held open: the driver still unloads; later reads fail.
exec 3<"$KP/pktproc-q0/counters"
rmmod kprof_pktproc || fail "rmmod pktproc under load with events on"
echo "ok: pktproc unloaded under load, events enabled, counters held open"
if cat <&3 >/dev/null 2>&1; then
	fail "a read of a removed device's file returned data"
fi
echo "ok: a read of a removed device's open file fails"
exec 3<&-
[ ! -e "$KP/pktproc-q0" ] || fail "device directory survived unregister"

# kprof itself with its events enabled in an instance and enable=1.
rmmod kprof || fail "rmmod kprof with events enabled"
echo "ok: kprof unloaded with events enabled"
rmdir "$I"

# kprof's own files pin it while open (they are its code): rmmod refuses
# cleanly (busybox rmmod: EWOULDBLOCK), then succeeds once the file is closed.
load kprof
exec 4<"$KP/version"
if rmmod kprof 2>/tmp/rmmod.err; then fail "rmmod kprof succeeded under an open kprof file"; fi
grep -q -E 'in use|temporarily unavailable' /tmp/rmmod.err || fail "rmmod kprof: unexpected error: $(cat /tmp/rmmod.err)"
[ -e "$KP/version" ] || fail "kprof half-unloaded"
exec 4<&-
rmmod kprof || fail "rmmod kprof after closing its file"
echo "ok: kprof refuses rmmod while its file is open, unloads after close"

# Load again after unloading with enable=1 and events on: no stale state,
# the key is off (no hook's slow path runs under traffic).
load kprof
load kprof_pktproc
expect_eq "enable after reload" "$(cat "$KP"/enable)" 0
run_traffic 1
[ "$(pp_stat irqs)" -gt 0 ] || fail "no traffic"
expect_eq "hook_calls after reload" "$(counter pktproc-q0 hook_calls)" 0
rmmod kprof_pktproc
rmmod kprof
