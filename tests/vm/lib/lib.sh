# shellcheck shell=sh
# Helpers for guest test scripts (busybox sh, run with -e by /init).

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

expect_mounted() {
	grep -q " $1 $2 " /proc/mounts || fail "$2 is not mounted at $1"
	echo "ok: $2 mounted at $1"
}

# debug_kernel: true on the debug kernel (its checkers on; kmemleak, which
# only it has, stands for them). Tests scale their load down there.
debug_kernel() {
	[ -w "$KMEMLEAK" ]
}

# kernel_arg NAME: the value of NAME=... on the kernel command line (the
# harness's KPROF_VM_APPEND), empty if it is not there.
kernel_arg() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}

load() {
	insmod "$KPROF_MODDIR/$1.ko" || fail "insmod $1 failed"
}

# ship FILE [NAME]: hand FILE to the host over the console, base64 between
# markers with its md5sum; tests/vm/harness/vm-run.sh writes it to
# build/vm-out/<kernel>/<test>/NAME and checks the sum.
ship() {
	echo "KPROF-FILE-BEGIN ${2:-$(basename "$1")}"
	base64 "$1"
	echo "KPROF-FILE-END ${2:-$(basename "$1")} $(md5sum <"$1" | cut -d' ' -f1)"
}

# median: the median of the numbers on stdin, one a line (the lower of
# the two middle ones for an even count)
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

KP=/sys/kernel/debug/kprof
PP=/sys/kernel/debug/kprof_pktproc
TR=/sys/kernel/tracing

# counter DEV NAME: a total from kprof/<dev>/counters
counter() {
	sed -n "s/^$2: //p" "$KP/$1/counters"
}

# lat_count DEV KIND: the sample count of one kind in kprof/<dev>/latency
lat_count() {
	sed -n "s/^$2 count=\([0-9]*\) .*/\1/p" "$KP/$1/latency"
}

# pp_stat NAME: a line of kprof_pktproc's stats
pp_stat() {
	sed -n "s/^$1: //p" "$PP/stats"
}

# expect_errno VALUE FILE MESSAGE: the write must fail with the errno whose
# text is MESSAGE and leave FILE's content alone
# func_calls FLAT NAME / func_mean FLAT NAME: function NAME's calls, and
# its mean in whole ns, in FLAT (kprofctl's JSON through kprofctl_json.awk)
func_calls() {
	sed -n "s/^func $2 \([0-9]*\) .*/\1/p" "$1"
}
func_mean() {
	sed -n "s/^pct func $2 null [0-9]* [0-9]* [0-9]* \([0-9.e+]*\)$/\1/p" "$1" | cut -d. -f1
}

# kernel_at_least MAJOR MINOR: whether the guest's kernel is MAJOR.MINOR or later
kernel_at_least() {
	_major=$(uname -r | cut -d. -f1) _minor=$(uname -r | cut -d. -f2)
	[ "$_major" -gt "$1" ] || { [ "$_major" -eq "$1" ] && [ "$_minor" -ge "$2" ]; }
}

# expected_reader: how kprofctl's streaming reader takes pages in this
# guest (loss.reader_queue.reader): from the mapped ring buffers on kernels
# from 6.10 with a 64-bit kprofctl (the mapping's ioctl has no entry for
# 32-bit callers), else whole pages with splice()
expected_reader() {
	if [ -z "${KPROF_USERLAND32:-}" ] && kernel_at_least 6 10; then echo mmap; else echo splice; fi
}

# func_nesting UNKNOWN NESTED DEPTH: a function's nested calls and depth as
# kprof reports them: "NESTED DEPTH", or UNKNOWN twice before 5.11, whose
# kprobes keep a task's pending returns to themselves.
func_nesting() {
	if kernel_at_least 5 11; then
		echo "$2 $3"
	else
		echo "$1 $1"
	fi
}

expect_errno() {
	before=$(cat "$2" 2>/dev/null || true)
	if (echo "$1" >"$2") 2>/tmp/errno.txt; then
		fail "writing '$1' to $2 succeeded"
	fi
	grep -q "$3" /tmp/errno.txt || fail "writing '$1' to $2: want '$3', got '$(cat /tmp/errno.txt)'"
	after=$(cat "$2" 2>/dev/null || true)
	[ "$before" = "$after" ] || fail "failed write of '$1' changed $2: '$before' -> '$after'"
	echo "ok: '$1' rejected by $2 ($3)"
}

# expect_einval VALUE FILE
expect_einval() {
	expect_errno "$1" "$2" "Invalid argument"
}

# expect_erange VALUE FILE: a number too large for the file
expect_erange() {
	expect_errno "$1" "$2" "out of range"
}

# pktproc_thread_ns: the CPU time so far of pktproc's IRQ threads, in ns
# (/proc/PID/schedstat)
pktproc_thread_ns() {
	for c in /proc/[0-9]*/comm; do
		case "$(cat "$c" 2>/dev/null)" in
		irq/*-kprof_pk*) cut -d' ' -f1 "${c%/comm}/schedstat" ;;
		esac
	done | awk '{ t += $1 } END { printf "%d\n", t }'
}

# pktproc_irq_away DIR: queue 0's IRQ (and so its thread) onto the CPU its
# receive timer is not on, of the 2 (DIR: the pktproc build's debugfs)
pktproc_irq_away() {
	_irq=$(sed -n 's/^q0: irq=\([0-9]*\) timer_cpu=\([0-9]*\).*/\1/p' "$1"/stats)
	_tcpu=$(sed -n 's/^q0: irq=\([0-9]*\) timer_cpu=\([0-9]*\).*/\2/p' "$1"/stats)
	echo $((1 << (1 - _tcpu))) >/proc/irq/"$_irq"/smp_affinity || fail "cannot move IRQ $_irq"
}

# wait_measuring ERR: until the kprofctl writing ERR says it measures (for
# func: its probes all enabled, counting)
wait_measuring() {
	_n=0
	until grep -qs '^kprofctl: measuring ' "$1"; do
		_n=$((_n + 1)); [ $_n -lt 200 ] || fail "kprofctl never started measuring: $(cat "$1")"; sleep 0.1
	done
}

# The device hooks' four events as trace-cmd record's -e arguments, to be
# split into words where used (make bench's trace-cmd readers).
# shellcheck disable=SC2034 # used by the scripts that source this file
DEVICE_RECORD_ARGS="-e kprof_irq_thread_latency -e kprof_irq_handler -e kprof_batch -e kprof_span"
# ... and what kprofctl irq -T reads: the IRQ tracker's three events and
# the threshold analysis' context events. make bench's irq -T reader takes
# IRQ_T_ARGS: a threshold no IRQ crosses, the 2 s of context kept anyway.
# shellcheck disable=SC2034 # used by the scripts that source this file
IRQ_T_ARGS="-T 1s --on-threshold continue"
# shellcheck disable=SC2034 # used by the scripts that source this file
IRQ_T_RECORD_ARGS="-e kprof_girq_handler -e kprof_girq_wake -e kprof_girq_thread -e irq:irq_handler_entry
	-e irq:irq_handler_exit -e irq:softirq_entry -e irq:softirq_exit -e sched:sched_switch -e sched:sched_waking"

# load_pktproc_bench: pktproc as make bench's P3 drives it: 2 queues,
# batch=1 and an IRQ per packet (four samples a packet), no simulated work
load_pktproc_bench() {
	insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=1000 batch=1 irq_coalesce=1 \
		work_ns=0 pass_overhead_ns=0 || fail "insmod kprof_pktproc"
}

# run_traffic SECONDS: start the sample, wait, stop (stop drains the rings)
run_traffic() {
	echo 1 >"$PP/start"
	sleep "$1"
	echo 1 >"$PP/stop"
}

# run_traffic_stalled PIDS: 3 s of traffic with the readers PIDS stopped
# (SIGSTOP) for the middle second, so that a small buffer must drop events
# at a rate the guest handles without an interrupt livelock.
run_traffic_stalled() {
	echo 1 >"$PP/start"
	sleep 1
	kill -STOP "$1"
	sleep 1
	kill -CONT "$1"
	sleep 1
	echo 1 >"$PP/stop"
}

# count_events FILE EVENT: events of one kind in a trace file
count_events() {
	grep -c " $2: " "$1" || true
}

# check_irq_match FILE WHAT [TOL_NS]: thread events of one device (FILE, trace_clock
# mono) must point back at the hard-IRQ entry they claim; allow 1 % misses
# (at least two) for TCG stalls between a hook's clock read and the event's
# timestamp (2 of 46 once, on armhf next to other guests). A wrong claim is
# a wrong model: it misses on most samples.
check_irq_match() {
	r=$(awk -v TOL="${3:-500000}" -f /tests/match_irq.awk "$1" 2>/tmp/match.err)
	echo "$2: $r"
	head -n 5 /tmp/match.err
	# shellcheck disable=SC2086 # split into words on purpose
	set -- $r "$2"
	what=$7
	[ "$2" -gt 0 ] || fail "$what: no thread event matched an IRQ entry"
	# 1 % of the samples may miss (at least two) or miscount (at least one).
	[ "$4" -le 2 ] || [ $(($4 * 100)) -le "$2" ] || fail "$what: $4 of $(($2 + $4)) thread events claim no real IRQ entry"
	[ "$6" -le 1 ] || [ $(($6 * 100)) -le "$2" ] || fail "$what: $6 of $2 thread events are not measured from their first IRQ"
}

# sum_served FILE: Σ(coalesced + 1) over the thread events: the woken
# IRQs their runs served
sum_served() {
	grep ' kprof_irq_thread_latency: ' "$1" | sed 's/.* coalesced=\([0-9]*\).*/\1/' |
		awk '{ s += $1 + 1 } END { print s + 0 }'
}

# emitted DEV EVENT: the seq of DEV's last EVENT (kprof/<dev>/emitted)
emitted() {
	sed -n "s/^$2: //p" "$KP/$1/emitted"
}

# batch_stats DEV: "passes packets total_ns" from kprof's batch histogram
# and counters (the in-kernel sum is count * mean, exact to 1 ns per pass)
batch_stats() {
	line=$(grep '^batch count=' "$KP/$1/latency")
	c=$(echo "$line" | sed 's/.*count=\([0-9]*\).*/\1/')
	m=$(echo "$line" | sed 's/.*mean_ns=\([0-9]*\).*/\1/')
	echo "$c $(counter "$1" packets) $((c * m))"
}

# wait_collecting [INSTANCE [EVENT]]: wait (10 s at most) until kprofctl
# has switched its events on (EVENT, default kprof_span), so that traffic
# starts inside its window.
wait_collecting() {
	wait_for "$TR/instances/${1:-kprof}/events/kprof/${2:-kprof_span}/enable" 1 \
		"kprofctl did not start collecting"
}

# wait_aggregating: wait (10 s at most) until kprofctl --in-kernel has
# switched the in-kernel aggregation on
wait_aggregating() {
	wait_for "$KP/aggregate" 1 "kprofctl --in-kernel did not switch aggregation on"
}

# load_virtio_blk: the kernel's own virtio-blk modules (ci/deps.sh's
# GUEST_KMODS, in dependency order), then wait for /dev/vda
load_virtio_blk() {
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
		[ -f /lib/kmods/$m.ko ] || continue
		insmod /lib/kmods/$m.ko || fail "insmod $m"
	done
	n=0
	until [ -b /dev/vda ]; do
		n=$((n + 1))
		[ $n -lt 50 ] || fail "no /dev/vda"
		sleep 0.1
	done
}

# wait_for FILE VALUE WHAT: wait (10 s at most) until FILE reads VALUE,
# else fail with WHAT
wait_for() {
	n=0
	until [ "$(cat "$1" 2>/dev/null)" = "$2" ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || fail "$3 within 10 s"
		sleep 0.1
	done
}

# irq_count IRQ: the IRQ's total over all CPUs in /proc/interrupts (0 if
# it has no line)
irq_count() {
	awk -v i="$1:" 'NR == 1 { n = NF } $1 == i { for (c = 2; c <= n + 1; c++) s += $c } END { print s + 0 }' /proc/interrupts
}

# wait_attached: wait (5 s at most) until kprof's IRQ tracker is attached
wait_attached() {
	n=0
	until grep -q '^attached: 1' "$KP/girq_counters"; do
		n=$((n + 1))
		[ $n -lt 50 ] || fail "the IRQ tracker did not attach within 5 s"
		sleep 0.1
	done
}

# json_irq FILE IRQ NAME: "handlers requests woken runs coalesced busy unserved"
# of one IRQ in a flattened kprofctl irq report (NAME may hold spaces:
# "name (forced)")
json_irq() {
	awk -v irq="$2" -v name="$3" '$1 == "irq" && $2 == irq {
		n = $3; for (i = 4; i <= NF - 7; i++) n = n " " $i
		if (n == name) print $(NF - 6), $(NF - 5), $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1), $NF }' "$1"
}

# girq_field FILE EVENT NAME FIELD: FIELD of each kprof_girq_EVENT of the
# action NAME (spaces and all) in trace text FILE, one per line
girq_field() {
	grep -F " kprof_girq_$2: irq=" "$1" | grep -F " name=$3 " | sed "s/.* $4=\([0-9-]*\).*/\1/"
}

# sum_mean: "COUNT SUM MEAN" of the numbers on stdin (MEAN 0 if none)
sum_mean() {
	awk '{ s += $1; n++ } END { printf "%d %d %d\n", n, s, n ? s / n : 0 }'
}

# irq_quiet IRQ: wait until the IRQ's count stops moving for 0.3 s (a
# UART's transmitter drains after write() returns); print the count
irq_quiet() {
	prev=-1 cur=$(irq_count "$1")
	while [ "$cur" != "$prev" ]; do
		sleep 0.3
		prev=$cur cur=$(irq_count "$1")
	done
	echo "$cur"
}

# expect_irq_runs WHAT TRACKER MOVED: a tracker's handler-run count against
# /proc/interrupts' movement. The kernel runs a handler again for an edge
# that arrived while it ran (IRQS_PENDING) without counting it there, so
# the runs may exceed the movement, by at most 1 % (and 2).
expect_irq_runs() {
	[ "$2" -ge "$3" ] && [ "$2" -le $(($3 + 2 + $3 / 100)) ] ||
		fail "$1: $2 handler runs, /proc/interrupts moved $3"
	echo "ok: $1: $2 handler runs, /proc/interrupts moved $3"
}

# print_fixtures: for ci/capture-fixtures.sh, /tmp/fx as a base64 tar
# between markers on the console; then kprof and pktproc unloaded
print_fixtures() {
	(cd /tmp && tar -czf fx.tgz fx)
	echo "FIXTURES-BEGIN"
	base64 /tmp/fx.tgz
	echo "FIXTURES-END"
	rmmod kprof_pktproc
	rmmod kprof
}

# use_32bit BINARY NAME: put the 32-bit BINARY on PATH as NAME for the rest
# of the test, after checking that it is a 32-bit ELF on a 64-bit kernel
# and runs.
use_32bit() {
	[ -x "$1" ] || fail "no $1 in this guest"
	expect_eq "ELF class of $(basename "$1") (1: 32-bit)" "$(dd if="$1" bs=1 skip=4 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')" 1
	case "$(uname -m)" in aarch64 | x86_64) ;; *) fail "not a 64-bit kernel: $(uname -m)" ;; esac
	mkdir -p /tmp/bin32
	ln -sf "$1" "/tmp/bin32/$2"
	PATH=/tmp/bin32:$PATH
	export PATH
	expect_eq "$2 on PATH" "$(command -v "$2")" "/tmp/bin32/$2"
	"$2" --version >/dev/null || fail "$(basename "$1") does not run on this kernel: $("$2" --version 2>&1)"
	KPROF_USERLAND32=1
	export KPROF_USERLAND32
}

# use_kprofctl32: the 32-bit static kprofctl (tests/vm/harness/mkinitramfs.sh: armhf in
# arm64 guests, i386 in amd64 ones) in kprofctl's place.
use_kprofctl32() { use_32bit /usr/local/bin/kprofctl32 kprofctl; }

# expect_aggregation_owned LABEL PID: a second kprofctl --in-kernel run
# while PID (a kprofctl) owns kprof/aggregate fails at its start, exit 1,
# naming PID.
expect_aggregation_owned() {
	set +e
	kprofctl latency --in-kernel -d 1s >/dev/null 2>/tmp/owned.err
	rc=$?
	set -e
	expect_eq "$1: exit status" "$rc" 1
	grep -q "is in use by pid $2 (kprofctl)" /tmp/owned.err || fail "$1: $(cat /tmp/owned.err)"
	cat /tmp/owned.err
}

# use_kprofctl32_dyn: the dynamic 32-bit kprofctl (tests/vm/harness/mkinitramfs.sh: with
# its libraries) in kprofctl-dyn's place.
use_kprofctl32_dyn() { use_32bit /usr/local/bin/kprofctl32-dyn kprofctl-dyn; }

# girq_window: 1 s of traffic into kprof/girq_aggregate, then frozen. Sets
# runs_lo and runs_hi (the handler runs girq_counters counted meanwhile,
# read before and after the freeze) and, from kprof/girq_hist, agg (handler
# samples aggregated), untracked (handler samples not), untracked_all (of
# any event) and per_cpu (the most IRQ actions aggregated on one CPU).
girq_window() {
	c0=$(sed -n 's/^handlers: //p' "$KP/girq_counters")
	echo 1 >"$KP/girq_aggregate"
	run_traffic 1
	sleep 0.2
	runs_lo=$(($(sed -n 's/^handlers: //p' "$KP/girq_counters") - c0))
	echo 2 >"$KP/girq_aggregate"
	runs_hi=$(($(sed -n 's/^handlers: //p' "$KP/girq_counters") - c0))
	# shellcheck disable=SC2046 # the four numbers, split on purpose
	set -- $(awk '$1 == "kprof_girq_handler" { n += $5; a[$2 " " $3] = 1 }
		$1 == "untracked" && $3 == "kprof_girq_handler" { u += $4 }
		$1 == "untracked" { t += $4 }
		END { for (k in a) { split(k, f, " "); c[f[1]]++; if (c[f[1]] > m) m = c[f[1]] }
			print n + 0, u + 0, t + 0, m + 0 }' "$KP/girq_hist")
	# shellcheck disable=SC2034 # read by the tests
	agg=$1 untracked=$2 untracked_all=$3 per_cpu=$4
	echo "handler samples: $agg aggregated, $untracked untracked ($untracked_all samples of all events); the tracker timed $runs_lo to $runs_hi handler runs"
}

# expect_handlers_accounted: each handler run of girq_window's is either
# aggregated or untracked.
expect_handlers_accounted() {
	[ $((agg + untracked)) -ge "$runs_lo" ] && [ $((agg + untracked)) -le "$runs_hi" ] ||
		fail "aggregated + untracked handler samples do not match the handler runs"
}
