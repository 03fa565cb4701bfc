# The system beside every report: the pressure the kernel reports (PSI),
# the interrupt and context-switch rates, vmstat's stall counters. Each
# collecting path prints it (streaming latency, latency --in-kernel, func).
# Under a CPU hog the cpu line shows the stall, under a memory cgroup held
# at its memory.high the memory line does, and at rest neither. A kernel
# without PSI (the debug kernel: no CONFIG_PSI) is said to have none.
# kprof-kernels: 6.1 5.10 7.3 arm64-7.3 6.12-debug
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" rate_pps=2000 || fail "insmod pktproc"
# share RESOURCE FILE: the window's "some" stall share in a text report, in %.
share() { sed -n "s/^    $1  *some [0-9.]* s (\([0-9.]*\) %).*/\1/p" "$2" | cut -d. -f1; }
# report NAME KPROFCTL-ARGS...: a 3 s report with traffic, in /tmp/NAME.txt.
report() {
	name=$1
	shift
	echo 1 >"$PP/start"
	kprofctl "$@" -d 3 >/tmp/"$name".txt 2>/tmp/"$name".err || fail "kprofctl $*: $(cat /tmp/"$name".err)"
	echo 1 >"$PP/stop"
	sed -n '/^The system during the window:/,/^  major faults/p' /tmp/"$name".txt
	grep -q '^The system during the window:$' /tmp/"$name".txt || fail "kprofctl $*: no system block"
	irqs=$(sed -n 's/^  interrupts \([0-9]*\)\/s, .*/\1/p' /tmp/"$name".txt)
	switches=$(sed -n 's/^  interrupts .*, context switches \([0-9]*\)\/s$/\1/p' /tmp/"$name".txt)
	[ "${irqs:-0}" -gt 100 ] || fail "$name: $irqs interrupts/s with 2,000 packets/s"
	[ "${switches:-0}" -gt 100 ] || fail "$name: $switches context switches/s with 2,000 packets/s"
}

report rest latency
report inkernel latency --in-kernel
report func func pktproc_poll
kprofctl latency --in-kernel -d 1 --json >/tmp/j.json || fail "latency --json"
grep -q '"context_switches_per_s": ' /tmp/j.json || fail "the JSON report has no system context"

if [ ! -d /proc/pressure ]; then
	for r in rest inkernel func; do
		grep -q '^  pressure: off: no /proc/pressure' /tmp/$r.txt || fail "$r: PSI missing, not said"
	done
	grep -q '"pressure_off": "off: no /proc/pressure' /tmp/j.json || fail "JSON: PSI missing, not said"
	echo "ok: no PSI in this kernel, and every report says so"
	rmmod kprof_pktproc
	rmmod kprof
	exit 0
fi
if ! cat /proc/pressure/irq >/dev/null 2>&1; then
	grep -q '^    irq: the kernel has no /proc/pressure/irq' /tmp/rest.txt || fail "no irq pressure, not said"
fi

# A CPU hog: 4 busy loops on 2 CPUs keep a task waiting all the time.
hogs=""
for _ in 1 2 3 4; do
	(while :; do :; done) &
	hogs="$hogs $!"
done
report hog func pktproc_poll
for pid in $hogs; do kill "$pid"; done
wait 2>/dev/null || true
rest=$(share cpu /tmp/rest.txt) hog=$(share cpu /tmp/hog.txt)
echo "cpu some: ${rest} % at rest, ${hog} % under the hog"
[ "$hog" -ge 50 ] || fail "cpu pressure under 4 busy loops on 2 CPUs: $hog %"
[ "$hog" -ge $((rest + 30)) ] || fail "cpu pressure: $hog % under the hog, $rest % at rest"

# Memory: a cgroup held at memory.high (16 MiB, no swap) whose tasks keep
# allocating 32 MiB: each is throttled, a memory stall.
mkdir -p /sys/fs/cgroup
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
grep -qw memory /sys/fs/cgroup/cgroup.controllers || fail "no memory controller in cgroup2"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/squeeze
echo 16M >/sys/fs/cgroup/squeeze/memory.high
sh -c 'echo $$ >/sys/fs/cgroup/squeeze/cgroup.procs
	while :; do dd if=/dev/zero of=/dev/null bs=32M count=1 2>/dev/null; done' &
squeeze=$!
report mem latency --in-kernel
kill $squeeze
wait 2>/dev/null || true
rest=$(share memory /tmp/rest.txt) mem=$(share memory /tmp/mem.txt)
echo "memory some: ${rest} % at rest, ${mem} % held at memory.high"
[ "$mem" -ge 10 ] || fail "memory pressure in a cgroup held at memory.high: $mem %"
[ "$rest" -le 1 ] || fail "memory pressure at rest: $rest %"
rmmod kprof_pktproc
rmmod kprof
