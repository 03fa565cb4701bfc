#!/usr/bin/env bash
# Every module parameter of kprof_pktproc is described in modinfo, on every
# kernel of the matrix (host-side: the guest's busybox modinfo needs depmod).
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"
status=0
while read -r id rel _; do
	ko=$KPROF_BUILD/modules/$rel/kprof_pktproc.ko
	[ -f "$ko" ] || die "$ko not built; run 'make modules'"
	for p in rate_pps batch irq_coalesce coalesce_usecs work_ns pass_overhead_ns ring_size nr_queues autostart kprof_hooks; do
		if ! grep -q "^$p:..*" < <(/sbin/modinfo -F parm "$ko"); then
			echo "FAIL $id: parameter $p has no description"
			status=1
		fi
	done
	echo "$id: $(/sbin/modinfo -F parm "$ko" | wc -l) parameters described"
done < <(kernels_each)
exit $status
