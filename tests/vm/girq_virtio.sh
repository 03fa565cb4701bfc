# An unmodified in-kernel driver on a real bus: virtio-blk (QEMU's null
# block device; the modules come from the kernel's own packages) under
# threadirqs, read with O_DIRECT so that every read is a request and an
# IRQ. The tracker's handler runs of the virtio queue IRQ match the
# kernel's irq:irq_handler_entry exactly and /proc/interrupts closely,
# and its thread runs are measured.
# kprof-append: threadirqs
# kprof-arch: amd64
# kprof-qemu: -drive if=none,id=d0,driver=null-co,size=64M,read-zeroes=on -device virtio-blk-pci,drive=d0
. /tests/lib.sh

load_virtio_blk
# The request queues' IRQs: "virtio0-requests" (one queue) or one
# "virtio0-req.N" per queue (one per CPU).
grep -E 'virtio[0-9]+-(requests|req\.[0-9]+)$' /proc/interrupts | awk '{ sub(/:$/, "", $1); print $1, $NF }' >/tmp/vq
[ -s /tmp/vq ] || { cat /proc/interrupts; fail "no virtio-blk request IRQ"; }
cat /tmp/vq
irqs=$(cut -d' ' -f1 /tmp/vq | tr '\n' ' ')
qirq() { sed -n "s/^$1 //p" /tmp/vq; }
total() { for i in $irqs; do irq_count "$i"; done | awk '{ s += $1 } END { print s + 0 }'; }

load kprof
K=$TR/instances/oracle
mkdir "$K"
echo 1 >"$K"/events/irq/irq_handler_entry/enable
set --
for i in $irqs; do set -- "$@" --irq "$i"; done
kprofctl irq "$@" --json -b 4096 >/tmp/v.json 2>/tmp/v.err &
pid=$!
wait_collecting kprof kprof_girq_thread
wait_attached
sleep 0.5
for i in $irqs; do echo "$i $(irq_quiet "$i")"; done >/tmp/c0
dd if=/dev/vda of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null || fail "O_DIRECT read of /dev/vda"
for i in $irqs; do echo "$i $(irq_quiet "$i")"; done >/tmp/c1
kill -INT $pid
wait $pid || fail "kprofctl irq: $(cat /tmp/v.err)"
echo 0 >"$K"/events/irq/irq_handler_entry/enable
awk -f /tests/kprofctl_json.awk /tmp/v.json >/tmp/v.txt
grep -E '^(irq|stat|check|lost)' /tmp/v.txt
grep -q '^lost false$' /tmp/v.txt || fail "events lost"
sum=0
for i in $irqs; do
	name=$(qirq "$i")
	moved=$(($(sed -n "s/^$i //p" /tmp/c1) - $(sed -n "s/^$i //p" /tmp/c0)))
	[ "$moved" -gt 0 ] || continue
	# threadirqs: the hard part is the row "NAME (forced)" (below).
	set -- $(json_irq /tmp/v.txt "$i" "$name (forced)")
	[ $# -eq 7 ] || fail "no per-IRQ line for IRQ $i $name (forced)"
	expect_eq "IRQ $i: tracker's handler runs = irq:irq_handler_entry events" "$1" "$(grep -c "irq_handler_entry: irq=$i " "$K"/trace)"
	expect_irq_runs "IRQ $i ($name)" "$1" "$moved"
	expect_eq "IRQ $i: wake requests (threadirqs: every handler)" "$2" "$1"
	[ "$4" -gt 0 ] || fail "IRQ $i: no thread run measured"
	grep -qF "stat entry_to_running $i/$name (forced) null $4 " /tmp/v.txt ||
		fail "IRQ $i: entry_to_running count is not the runs"
	runs=$4
	set -- $(json_irq /tmp/v.txt "$i" "$name (forced handler)")
	expect_eq "IRQ $i: virtio's handler timed in its thread, once per measured run" "$1" "$runs"
	set -- $(json_irq /tmp/v.txt "$i" "$name (forced)")
	sum=$((sum + $1))
done
rmdir "$K"
[ "$sum" -ge 1000 ] || fail "only $sum IRQs for 2000 O_DIRECT reads"
echo "ok: $sum virtio-blk IRQs for 2000 O_DIRECT reads"
