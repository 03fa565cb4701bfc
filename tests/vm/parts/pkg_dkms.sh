# The modules the kprof-dkms and kprof-samples-dkms packages built, and the
# out-of-tree example built against kprof-dev and the Module.symvers
# kprof-dkms installed (tests/host/dkms.sh, in /extra): they load (kprof.ko
# through modprobe, which kprofctl's error names once it is installed for the
# kernel), work together, and unload.
. /tests/lib.sh
for m in kprof kprof_pktproc kprof_example; do
	[ -f "/extra/$m.ko" ] || fail "no /extra/$m.ko from the host"
done
# Installed for the running kernel as DKMS and depmod do: kprofctl's hint
# is modprobe, which loads it.
d=/lib/modules/$(uname -r)/updates/dkms
mkdir -p "$d"
cp /extra/kprof.ko "$d/"
depmod
set +e
kprofctl latency -d 1s 2>/tmp/err
rc=$?
set -e
expect_eq "exit status without kprof.ko loaded" "$rc" 1
grep -q "kprof.ko is not loaded: modprobe kprof (installed for this kernel: /lib/modules/.*/updates/dkms/kprof.ko)" /tmp/err ||
	fail "no modprobe hint: $(cat /tmp/err)"
modprobe kprof || fail "modprobe of the DKMS-built kprof.ko"
expect_eq "kprof version" "$(cat /sys/module/kprof/version)" "$(cat /extra/version)"
insmod /extra/kprof_pktproc.ko nr_queues=1 rate_pps=1000 || fail "insmod of the DKMS-built kprof_pktproc.ko"
insmod /extra/kprof_example.ko || fail "insmod of the example built against kprof-dev"
[ -d "$KP/pktproc-q0" ] || fail "pktproc registered no kprof device"
kprofctl latency --json -d 3s >/tmp/l.json 2>/tmp/l.err &
pid=$!
wait_collecting
run_traffic 1
wait $pid || fail "kprofctl latency failed: $(cat /tmp/l.err)"
awk -f /tests/kprofctl_json.awk /tmp/l.json >/tmp/l.txt
grep -q '^lost false$' /tmp/l.txt || fail "events were lost"
n=$(awk '$1 == "stat" && $3 == "pktproc-q0" && $2 == "batch" && $4 == "null" { print $5 }' /tmp/l.txt)
[ "${n:-0}" -gt 0 ] || fail "no batch samples from the DKMS-built pktproc: $(cat /tmp/l.txt)"
echo "ok: $n batch samples from the DKMS-built modules"
rmmod kprof_example
rmmod kprof_pktproc
rmmod kprof
