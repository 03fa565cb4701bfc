#!/usr/bin/env bash
# Boot one matrix kernel under QEMU (TCG) with the kprof initramfs and run one
# tests/vm/ script inside it.
#
#   tests/vm/harness/vm-run.sh KERNEL TEST       KERNEL is an id of ci/kernels.list (6.1, arm64-6.12, ...)
#   tests/vm/harness/vm-run.sh KERNEL shell      an interactive guest shell on this terminal
#
# Exit status (the negative harness tests rely on the distinction):
#   0 the guest test passed and the console is clean
#   1 the guest test failed
#   2 the kernel log shows WARNING:/BUG:/Oops/Call Trace/INFO:
#   3 no verdict: timeout, hang or crash
#   4 setup error on the host
# The console log is kept in build/vm-logs/<kernel>/<test>.log.
# KPROF_VM_TIMEOUT (seconds, default 180, twice that on a debug kernel)
# bounds the whole boot.
# KPROF_VM_APPEND adds kernel arguments (the harness's debug self-tests),
# KPROF_VM_LOG names the log instead of <test> (runs of one test at once).
# KPROF_VM_EXTRA names a directory the guest gets as /extra.
# KPROF_VM_HOST_CHECK=off skips the host's checks of the files a guest shipped.
# KPROF_VM_QEMU adds QEMU arguments (make bench: more memory, a disk that
# carries a file out of the guest).
set -euo pipefail
. "$(dirname "$0")/../../../ci/common.sh"

[ $# -eq 2 ] || { echo "usage: $0 KERNEL TEST|shell" >&2; exit 4; }
id=$1 test=$2
rel=$(kernel_release "$id") || exit 4
arch=$(kernel_arch "$id") || exit 4
vmlinuz=$(vmlinuz_path "$rel")
[ -s "$vmlinuz" ] || { echo "kprof: no kernel image $vmlinuz; run 'make deps'" >&2; exit 4; }
# x86 guests boot the uncompressed image through its PVH entry where there
# is one (ci/common.sh: pvh_path), the bzImage elsewhere.
image=$vmlinuz
[ "$arch" != amd64 ] || [ ! -s "$(pvh_path "$rel")" ] || image=$(pvh_path "$rel")
script=
if [ "$test" != shell ]; then
	script=$(guest_script "$test")
	[ -n "$script" ] || { echo "kprof: no guest script $test.sh in tests/vm/ or its folders" >&2; exit 4; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$KPROF_TOP/tests/vm/harness/mkinitramfs.sh" "$rel" "$work/initramfs.cpio" "$arch" || exit 4

# A test may ask for kernel arguments of its own with a line
#   # kprof-append: debugfs=off
# QEMU arguments of its own with
#   # kprof-qemu: -serial mon:stdio -serial null
# and a longer bound on its boot (seconds; KPROF_VM_TIMEOUT still wins) with
#   # kprof-timeout: 600
extra='' qextra=() ttimeout=''
if [ "$test" != shell ]; then
	extra=$(sed -n 's/^# kprof-append: //p' "$script" | tr '\n' ' ')
	read -r -a qextra <<<"$(sed -n 's/^# kprof-qemu: //p' "$script" | tr '\n' ' ')"
	ttimeout=$(sed -n 's/^# kprof-timeout: \([0-9]*\)$/\1/p' "$script" | head -n 1)
fi
append="loglevel=5 panic=-1 oops=panic rdinit=/init kprof.test=$test $extra ${KPROF_VM_APPEND:-}"
# x86: thread=single, because multi-threaded TCG livelocks in the kernel's
# text patching (static keys) under a high IRQ-thread wakeup rate; see
# tests/vm/tools/tool_textpoke_hang.sh for the reproducer. armhf: thread=multi,
# because with single-threaded TCG the armmp kernel never gets past
# bringing up CPU1.
tcg_default=single
[ "$arch" = armhf ] && tcg_default=multi
tcg=tcg,thread=${KPROF_TCG_THREAD:-$tcg_default}
# The debug kernel gets 4-level paging: with QEMU's max CPU it runs 5-level,
# and under host load (the TSC calibrated against the HPET, not the PIT)
# an early timer IRQ then made KASAN report a wild access in
# handle_edge_irq during boot, before any test (twice in a dozen boots).
flavour=$(kernel_flavour "$id")
cpu_default=max
[ "$flavour" != debug ] || cpu_default=max,la57=off
case "$arch" in
amd64)
	# tsc=reliable: under TCG the clocksource watchdog blames the TSC for
	# the emulator's own stalls and switches to the (slow, MMIO) HPET mid-test.
	qemu=(qemu-system-x86_64 -accel "$tcg" -cpu "${KPROF_QEMU_CPU:-$cpu_default}" -m 1G
		-append "console=ttyS0 tsc=reliable $append")
	;;
arm64)
	# Debian's arm64 kernel boots straight from -kernel on the virt board.
	qemu=(qemu-system-aarch64 -M virt -accel "$tcg" -cpu cortex-a57 -m 1G
		-append "console=ttyAMA0 $append")
	;;
armhf)
	# The armmp kernel cannot use virt's high PCI window (PCI fails with -75).
	# shellcheck disable=SC2054 # a comma in one QEMU argument, not a list
	qemu=(qemu-system-arm -M virt,highmem=off -accel "$tcg" -cpu cortex-a15 -m 512M
		-append "console=ttyAMA0 $append")
	;;
s390x)
	# The big-endian guest: Debian's s390x kernel loads straight from
	# -kernel on the virtio-ccw machine; its console is the SCLP line.
	qemu=(qemu-system-s390x -M s390-ccw-virtio -accel "$tcg" -cpu max -m 1G
		-append "console=ttysclp0 $append")
	;;
*) echo "kprof: no QEMU guest for architecture $arch" >&2; exit 4 ;;
esac
command -v "${qemu[0]}" >/dev/null || { echo "kprof: ${qemu[0]} missing; run 'make deps'" >&2; exit 4; }
read -r -a qenv <<<"${KPROF_VM_QEMU:-}"
qemu+=(-smp 2 -nographic -no-reboot -kernel "$image" -initrd "$work/initramfs.cpio" "${qextra[@]}" "${qenv[@]}")

if [ "$test" = shell ]; then
	echo "kprof: booting $rel; the guest shell's 'poweroff -f' (or Ctrl-A X) quits" >&2
	exec "${qemu[@]}"
fi

logdir=$KPROF_BUILD/vm-logs/$id
mkdir -p "$logdir"
log=$logdir/${KPROF_VM_LOG:-$test}.log
timeout=${ttimeout:-180}
# The debug kernel's checkers make a guest 2-3 times slower under TCG.
[ "$flavour" != debug ] || timeout=$((timeout * 2))
timeout=${KPROF_VM_TIMEOUT:-$timeout}
# boot: run the guest, its console into $log; qrc, elapsed.
boot() {
	start=$(date +%s)
	set +e
	timeout --kill-after=5 "$timeout" "${qemu[@]}" </dev/null >"$log" 2>&1
	qrc=$?
	set -e
	elapsed=$(($(date +%s) - start))
	tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
}
boot
# A guest that powered off cleanly (init's poweroff; a panic reboots)
# without its init's first line: the console lost the guest's output (seen
# once in CI, on 6.1: nothing after 2 s of boot but the power-off 11 s
# later), and no test code has run visibly. The verdict is unknown rather
# than failed: one more boot, said here, with the lost console kept.
if [ "$qrc" = 0 ] && ! grep -q -a '^KPROF-BOOT:' "$log" && grep -q -a 'reboot: Power down' "$log"; then
	mv "$log" "$log.lost"
	echo "kprof: $id/$test: the console lost the guest's output (qemu exit 0, no KPROF-BOOT line; $log.lost); booting once more"
	boot
fi

# Everything the test printed, without the boot noise or the dmesg dump.
show_test_output() {
	sed -n '/^KPROF-BOOT:/,/^KPROF-DMESG-BEGIN/p' "$log" | sed '$d' |
		sed '/^KPROF-FILE-BEGIN /,/^KPROF-FILE-END /{/^KPROF-FILE-END /!d}'	# shipped files: one line each
}

verdict=$(grep -a '^KPROF-RESULT: ' "$log" | tail -n 1 || true)
# The kernel's own messages only: the guest's full dmesg when it got to
# print it, else (a crash) the whole console. What the test printed is not
# scanned: kprofctl's own "WARNING: events were lost" is not the kernel's.
# INFO: catches RCU stalls and hung tasks. The debug kernel's checkers
# report through these as well (lockdep: "WARNING: possible circular
# locking"; KASAN, KFENCE: "BUG: KASAN:"; "BUG: sleeping function called
# from invalid context"), except UBSAN ("UBSAN: shift-out-of-bounds"),
# debugobjects ("ODEBUG:") and kmemleak ("N new suspected memory leaks",
# after guest-init's scan).
kernel_log() {
	if grep -q -a '^KPROF-DMESG-END' "$log"; then
		awk '/^KPROF-DMESG-BEGIN/ { on = 1 } on { print NR ":" $0 } /^KPROF-DMESG-END/ { on = 0 }' "$log"
	else
		grep -a -n '' "$log"
	fi
}
dirty=$(kernel_log | grep -a -E 'WARNING:|BUG:|Oops|Call Trace|INFO:|kernel BUG at|UBSAN:|ODEBUG:|suspected memory leak' || true)

if [ -n "$dirty" ]; then
	# What the test printed first: its figures (make bench keeps a warning
	# boot's; ci/bench.sh guest()) and where it was when the kernel warned.
	show_test_output
	echo "FAIL $id/$test: kernel console is not clean (${elapsed}s); excerpt:"
	first=$(echo "$dirty" | head -n 1 | cut -d: -f1)
	sed -n "$((first > 5 ? first - 5 : 1)),$((first + 30))p" "$log"
	echo "(full log: $log)"
	exit 2
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "FAIL $id/$test: timed out after ${timeout}s; last console lines:"
	tail -n 30 "$log"
	echo "(full log: $log)"
	exit 3
fi
# Files the guest shipped (lib.sh's ship), into build/vm-out/ID/TEST/.
outdir=$KPROF_BUILD/vm-out/$id/$test
receive_files() {
	local name sum got
	rm -rf "$outdir"
	mkdir -p "$outdir"
	{ grep -a '^KPROF-FILE-END ' "$log" || true; } | while read -r _ name sum; do
		sed -n "/^KPROF-FILE-BEGIN $name\$/,/^KPROF-FILE-END $name /p" "$log" | sed '1d;$d' |
			base64 -d >"$outdir/$name" || { echo "kprof: $name from the guest does not decode"; return 1; }
		got=$(md5sum <"$outdir/$name" | cut -d' ' -f1)
		[ "$got" = "$sum" ] || { echo "kprof: $name from the guest is corrupt (md5 $got, not $sum)"; return 1; }
	done
}

# A test's checks on the host, of the files its guest shipped: each
#   # kprof-host-check: tests/host/export.sh kprof.prom kprof.svg l.json
# line runs in build/vm-out/ID/TEST/ after the guest passed, unless
# KPROF_VM_HOST_CHECK=off ('make demo': its host needs no checking tools).
host_check() {
	local cmd
	[ "${KPROF_VM_HOST_CHECK:-on}" != off ] || return 0
	while read -r cmd; do
		(cd "$outdir" && eval "\"\$KPROF_TOP\"/$cmd") || return 1
	done < <(sed -n 's/^# kprof-host-check: //p' "$script" 2>/dev/null)
}

case "$verdict" in
"KPROF-RESULT: PASS")
	show_test_output
	if ! receive_files || ! host_check; then
		echo "FAIL $id/$test: the host's check of the guest's files failed (${elapsed}s)"
		echo "(full log: $log; files: $outdir)"
		exit 1
	fi
	echo "PASS $id/$test (${rel}, ${elapsed}s)"
	exit 0
	;;
"KPROF-RESULT: FAIL"*)
	show_test_output
	echo "FAIL $id/$test: guest test failed (${verdict#KPROF-RESULT: FAIL }, ${elapsed}s)"
	echo "(full log: $log)"
	exit 1
	;;
*)
	echo "FAIL $id/$test: no verdict from the guest (qemu exit $qrc, ${elapsed}s); last console lines:"
	tail -n 30 "$log"
	echo "(full log: $log)"
	exit 3
	;;
esac
