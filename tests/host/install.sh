#!/usr/bin/env bash
# 'make install' into a staging root puts every piece where README says.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"
read -r id rel suite < <(kernels_each | head -n 1)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s -C "$KPROF_TOP" install KERNELRELEASE="$rel" DESTDIR="$dest" PREFIX=/usr/local >/dev/null
for f in lib/modules/$rel/extra/kprof.ko lib/modules/$rel/extra/kprof_pktproc.ko \
	lib/modules/$rel/modules.dep usr/local/bin/kprofctl usr/local/include/kprof/kprof.h \
	usr/local/share/kprof/$rel/Module.symvers; do
	[ -s "$dest/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
if ls "$dest/lib/modules/$rel/extra/" | grep -q -E "kprof_test_|kprof_stress|kprof_example"; then
	echo "FAIL: test or example modules installed"
	exit 1
fi
grep -q 'extra/kprof_pktproc.ko: extra/kprof.ko' "$dest/lib/modules/$rel/modules.dep" ||
	{ echo "FAIL: depmod did not record pktproc's dependency on kprof"; exit 1; }
"$dest/usr/local/bin/kprofctl" --version
echo "install into a staging root: ok ($id, $rel)"
