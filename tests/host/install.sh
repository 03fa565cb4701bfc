#!/usr/bin/env bash
# 'make install' into a staging root puts every piece where the README and doc/install.md say.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"
read -r id rel _ < <(kernels_each | head -n 1)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s -C "$KPROF_TOP" install KERNELRELEASE="$rel" DESTDIR="$dest" PREFIX=/usr/local >/dev/null
for f in lib/modules/$rel/extra/kprof.ko lib/modules/$rel/extra/kprof_pktproc.ko \
	lib/modules/$rel/modules.dep usr/local/bin/kprofctl usr/local/share/man/man8/kprofctl.8 \
	usr/local/include/kprof/kprof.h \
	usr/local/share/kprof/$rel/Module.symvers; do
	[ -s "$dest/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
if grep -q . < <(find "$dest/lib/modules/$rel/extra/" -name 'kprof_test_*' -o -name 'kprof_stress*' -o -name 'kprof_example*'); then
	echo "FAIL: test or example modules installed"
	exit 1
fi
grep -q 'extra/kprof_pktproc.ko: extra/kprof.ko' "$dest/lib/modules/$rel/modules.dep" ||
	{ echo "FAIL: depmod did not record pktproc's dependency on kprof"; exit 1; }
"$dest/usr/local/bin/kprofctl" --version
echo "install into a staging root: ok ($id, $rel)"

# A board of another architecture: the "On a board" staging of doc/install.md
# command, with Debian's headers (in the cross chroot) as the board's tree.
while read -r id rel suite arch; do
	[ "$arch" != amd64 ] || continue
	karch=$(kbuild_arch "$arch")
	kdir=$("$KPROF_TOP/ci/chroot.sh" "$suite")/usr/src/linux-headers-$rel
	board=$(mktemp -d)
	make -s -C "$KPROF_TOP" install DESTDIR="$board" ARCH="$karch" KDIR="$kdir" >/dev/null
	case "$arch" in arm64) machine=AArch64 ;; armhf) machine=ARM ;; s390x) machine='IBM S/390' ;; *) echo "FAIL: $id: no ELF machine known for $arch"; exit 1 ;; esac
	for f in lib/modules/$rel/extra/kprof.ko lib/modules/$rel/extra/kprof_pktproc.ko usr/local/bin/kprofctl; do
		m=$(readelf -h "$board/$f" | sed -n 's/^ *Machine: *//p')
		[ "$m" = "$machine" ] || { echo "FAIL: $id: $f is for '$m', not $machine"; exit 1; }
	done
	grep -q 'extra/kprof_pktproc.ko: extra/kprof.ko' "$board/lib/modules/$rel/modules.dep" ||
		{ echo "FAIL: $id: no modules.dep entry for pktproc"; exit 1; }
	rm -rf "$board"
	echo "board staging: ok ($id, $rel, $machine)"
done < <(kernels_each)
