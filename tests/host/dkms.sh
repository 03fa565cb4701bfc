#!/usr/bin/env bash
# The kprof-dkms packages in a clean bookworm chroot with the 6.1 kernel's
# headers (and dkms) installed, as a user installs them:
#   dpkg -i builds and installs kprof.ko and kprof_pktproc.ko for that
#   kernel, 'dkms status' shows both, Module.symvers lands in
#   /usr/share/kprof/<release>/, and the out-of-tree example builds against
#   kprof-dev with it; the modules then load and work in a 6.1 guest
#   (tests/vm/parts/pkg_dkms.sh); removing the packages leaves nothing behind.
# Then 'make dkms' from a checkout, in the same chroot, installs both.
# Needs 'make deb' (the host.deb test) first.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"

fail() {
	echo "FAIL: $*"
	exit 1
}

read -r id rel _ < <(kernels_each | awk '$1 == "6.1"')
[ -n "${rel:-}" ] || die "no 6.1 entry in the kernel matrix"
version=$(dpkg-parsechangelog -l "$KPROF_TOP/debian/changelog" -S Version)
debs=$KPROF_BUILD/deb
for p in kprof-dkms kprof-samples-dkms kprof-dev; do
	ls "$debs/${p}_${version}_all.deb" >/dev/null 2>&1 || die "no $p package in $debs; run 'make deb'"
done

# The clean chroot: bookworm with dkms and the headers, made once and
# kept as a tarball; every run unpacks a fresh copy.
base=$KPROF_CACHE/chroots/bookworm-dkms-$rel.tar
if [ ! -s "$base" ]; then
	info "making the clean bookworm chroot for DKMS ($base)"
	mkdir -p "$(dirname "$base")"
	mmdebstrap --quiet --variant=apt --format=tar --include="dkms,linux-headers-$rel" bookworm "$base.tmp" \
		"deb http://deb.debian.org/debian bookworm main" \
		"deb http://deb.debian.org/debian bookworm-updates main" \
		"deb http://security.debian.org/debian-security bookworm-security main" >/dev/null ||
		die "mmdebstrap of the DKMS chroot failed"
	mv "$base.tmp" "$base"
fi
root=$(mktemp -d)
trap 'rm -rf --one-file-system "$root"' EXIT
tar -C "$root" -xf "$base"
mkdir -p "$root/tmp/debs" "$root/tmp/out"
cp "$debs"/kprof-dkms_"$version"_all.deb "$debs"/kprof-samples-dkms_"$version"_all.deb \
	"$debs"/kprof-dev_"$version"_all.deb "$root/tmp/debs/"

# in_root CMD: CMD in the chroot, with /proc and /dev, in a mount namespace.
in_root() {
	unshare --mount --propagation private sh -euc '
		root=$1; shift
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive sh -euc "$@"
	' sh "$root" "$1"
}

in_root "dpkg -i /tmp/debs/kprof-dkms_*.deb /tmp/debs/kprof-samples-dkms_*.deb /tmp/debs/kprof-dev_*.deb" \
	>"$root/tmp/dpkg.log" 2>&1 || { cat "$root/tmp/dpkg.log"; fail "dpkg -i of the packages failed"; }
status=$(in_root "dkms status")
echo "dkms status: $status"
for m in kprof kprof-samples; do
	echo "$status" | grep -q "^$m/$version, $rel, x86_64: installed" || fail "dkms status does not show $m installed for $rel"
done
for f in /lib/modules/$rel/updates/dkms/kprof.ko /lib/modules/$rel/updates/dkms/kprof_pktproc.ko \
	/usr/share/kprof/$rel/Module.symvers; do
	[ -s "$root$f" ] || fail "$f is missing after dpkg -i"
done
in_root "modinfo -k $rel -F depends kprof_pktproc" | grep -qx kprof || fail "modules.dep: kprof_pktproc does not depend on kprof"

# A user's driver against the installed kprof (KPROF=/usr).
in_root "cp -r /usr/share/doc/kprof-dev/examples/oot /tmp/oot && make -C /tmp/oot KDIR=/lib/modules/$rel/build KPROF=/usr" \
	>"$root/tmp/oot.log" 2>&1 || { cat "$root/tmp/oot.log"; fail "the example does not build against kprof-dev"; }

extra=$(mktemp -d)
cp "$root/lib/modules/$rel/updates/dkms/kprof.ko" "$root/lib/modules/$rel/updates/dkms/kprof_pktproc.ko" \
	"$root/tmp/oot/kprof_example.ko" "$extra/"
echo "$version" >"$extra/version"
KPROF_VM_EXTRA=$extra "$KPROF_TOP/tests/vm/harness/vm-run.sh" "$id" pkg_dkms || { rm -rf "$extra"; fail "the DKMS-built modules do not work in the $id guest"; }
rm -rf "$extra"

# Removal: nothing of kprof left.
in_root "dpkg --purge kprof-dev kprof-samples-dkms kprof-dkms" >"$root/tmp/purge.log" 2>&1 ||
	{ cat "$root/tmp/purge.log"; fail "dpkg --purge failed"; }
left=$(in_root "dkms status")
[ -z "$left" ] || fail "dkms status after removal: $left"
left=$(cd "$root" && ls -d lib/modules/"$rel"/updates/dkms/kprof* usr/src/kprof* usr/share/kprof var/lib/dkms/kprof* 2>/dev/null || true)
[ -z "$left" ] || fail "left behind after removal: $left"

# Without packages: 'make dkms SAMPLES=1 KERNELRELEASE=...' from a checkout
# (its tracked files) puts the same two modules under DKMS.
mkdir -p "$root/tmp/src"
git -C "$KPROF_TOP" ls-files -z --cached --others --exclude-standard |
	(cd "$KPROF_TOP" && xargs -0 cp --parents -t "$root/tmp/src" 2>/dev/null || true)
in_root "make -C /tmp/src dkms SAMPLES=1 KERNELRELEASE=$rel" >"$root/tmp/make-dkms.log" 2>&1 ||
	{ cat "$root/tmp/make-dkms.log" "$root"/var/lib/dkms/kprof*/"$version"/build/make.log; fail "make dkms from a checkout failed"; }
status=$(in_root "dkms status")
for m in kprof kprof-samples; do
	echo "$status" | grep -q "^$m/$version, $rel, x86_64: installed" || fail "after make dkms, dkms status: $status"
done
for f in /lib/modules/$rel/updates/dkms/kprof.ko /lib/modules/$rel/updates/dkms/kprof_pktproc.ko; do
	[ -s "$root$f" ] || fail "$f is missing after make dkms"
done
echo "dkms: kprof and kprof-samples $version built, installed, loaded in the $id guest ($rel) and removed cleanly; make dkms from a checkout installed both too"
