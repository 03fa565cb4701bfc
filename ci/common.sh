# shellcheck shell=bash
# Shared helpers for the ci/ scripts. Source it; do not run it.

KPROF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KPROF_BUILD=${KPROF_BUILD:-$KPROF_TOP/build}
# Downloads outlive a checkout: CI clones afresh, the cache stays.
KPROF_CACHE=${KPROF_CACHE:-/var/cache/kprof}
KPROF_KERNELS=$KPROF_BUILD/kernels.txt

die() { echo "kprof: error: $*" >&2; exit 1; }
info() { echo "kprof: $*" >&2; }
# stats: the median, min and max of the numbers on stdin (make bench)
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

# bench_section FILE BEGIN END SECTION: SECTION (which starts with the line
# BEGIN and ends with END) in place of FILE's lines from BEGIN to END, or
# appended where FILE has none, so that a part of make bench can run alone.
bench_section() {
	if [ -f "$1" ] && grep -qF "$2" "$1"; then
		awk -v b="$2" -v e="$3" -v f=<(printf '%s\n' "$4") '
			$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == e { skip = 0; next }
			!skip' "$1" >"$1.new"
		mv "$1.new" "$1"
	else
		printf '\n%s\n' "$4" >>"$1"
	fi
}

# host_suite SUITE: true if the host builds for SUITE's kernels itself
# (bookworm and its backports); the others build in a chroot (ci/chroot.sh).
host_suite() {
	case "$1" in bookworm | bookworm-backports) return 0 ;; esac
	return 1
}

# KPROF_KERNEL_IDS: the matrix entries that 'make deps' and 'make modules'
# work on (ids of ci/kernels.list, separated by spaces); empty means all.
# 'make demo' sets it to the demo's kernel, so that it fetches nothing else.
KPROF_KERNEL_IDS=${KPROF_KERNEL_IDS:-}

# selected ID: true if this run works on matrix entry ID.
selected() {
	[ -z "$KPROF_KERNEL_IDS" ] && return 0
	case " $KPROF_KERNEL_IDS " in *" $1 "*) return 0 ;; esac
	return 1
}

# matrix_all: ci/kernels.list's entries as "id flavour suite arch".
matrix_all() {
	local id flavour suite arch
	while read -r id flavour suite arch _; do
		case "$id" in ''|'#'*) continue ;; esac
		echo "$id $flavour $suite ${arch:-amd64}"
	done <"$KPROF_TOP/ci/kernels.list"
}

# matrix_lines: the selected entries of matrix_all.
matrix_lines() {
	local id rest
	matrix_all | while read -r id rest; do
		! selected "$id" || echo "$id $rest"
	done
}

# demo_kernel: the entry 'make demo' boots: the first of ci/kernels.list.
demo_kernel() { awk '$1 !~ /^#/ && NF { print $1; exit }' "$KPROF_TOP/ci/kernels.list"; }

# suite_arches SUITE: the architectures other than amd64 that SUITE's
# chroot cross-builds for: its entries' (modules), and in KPROF_CROSS_SUITE
# the 32-bit userlands' too (kprofctl).
suite_arches() {
	{
		matrix_all | awk -v s="$1" '$3 == s && $4 != "amd64" { print $4 }'
		[ "$1" != "$KPROF_CROSS_SUITE" ] || echo i386
	} | sort -u
}

# board_userlands: the architectures 'make boards' builds a static kprofctl
# for: every entry's but amd64, and i386 (kprofctl32 on the amd64 kernels).
board_userlands() {
	{
		matrix_all | awk '$4 != "amd64" { print $4 }'
		echo i386
	} | sort -u
}

# userland32_of ARCH: the 32-bit userland whose static kprofctl a guest of
# ARCH also runs, as kprofctl32 (tests/vm/*32.sh), if any.
userland32_of() {
	case "$1" in
	arm64) echo armhf ;;
	amd64) echo i386 ;;
	esac
}

# cross_triplet ARCH: the GNU triplet of Debian's cross compilers for ARCH.
cross_triplet() {
	case "$1" in
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	i386) echo i686-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;;
	*) die "no cross compiler known for '$1'" ;;
	esac
}

# The chroot that cross-builds kprofctl for the boards ('make static ARCH=').
KPROF_CROSS_SUITE=trixie

# dyn_userlands: the 32-bit userlands of which 'make boards' also builds a
# dynamically linked kprofctl: report -i needs libtracecmd, of which Debian
# ships no static build. The amd64 and arm64 guests run them, beside
# trace-cmd (tests/vm/kprofctl_report32.sh).
dyn_userlands() { userland32_of amd64; userland32_of arm64; }

# foreign_tracecmd_arches: the guests whose trace-cmd (with its libraries)
# comes from the cross chroot; the amd64 guests carry the host's.
foreign_tracecmd_arches() { echo arm64; }

# multiarch_of ARCH: Debian's multiarch directory name for ARCH.
multiarch_of() { dpkg-architecture -a "$1" -qDEB_HOST_MULTIARCH 2>/dev/null; }

# dyn_kprofctl ARCH: where 'make dyn' leaves kprofctl for ARCH.
dyn_kprofctl() { echo "$KPROF_BUILD/dyn-$(kbuild_arch "$1")/kprofctl"; }

# kernels_each: print "id release suite arch" for every selected kernel of
# the resolved matrix.
kernels_each() {
	local id rest
	[ -s "$KPROF_KERNELS" ] || "$KPROF_TOP/ci/kernels.sh" resolve >/dev/null ||
		die "cannot resolve the kernel matrix; run 'make deps'"
	grep -v '^#' "$KPROF_KERNELS" | while read -r id rest; do
		! selected "$id" || echo "$id $rest"
	done
}

# kernel_tests ID: which VM tests matrix entry ID runs (all, core or debug).
kernel_tests() {
	awk -v id="$1" '$1 == id { print $5 }' "$KPROF_TOP/ci/kernels.list"
}

# kernel_flavour ID: ci/kernels.list's flavour of matrix entry ID ("debug" is
# built from source by ci/debug-kernel.sh; the others are Debian's images).
kernel_flavour() {
	matrix_all | awk -v id="$1" '$1 == id { print $2 }'
}

# debug_ids [-v]: the selected entries whose kernel ci/debug-kernel.sh
# builds (flavour "debug"); with -v, the others.
debug_ids() {
	matrix_all | awk -v neg="${1:-}" '($2 == "debug") != (neg == "-v") { print $1 }' |
		while read -r id; do ! selected "$id" || echo "$id"; done
}

# kernel_field ID N: column N (2 release, 3 suite, 4 arch) of matrix entry ID.
kernel_field() {
	local line
	line=$(kernels_each | awk -v id="$1" '$1 == id')
	[ -n "$line" ] || die "unknown kernel '$1' (known: $(kernels_each | cut -d' ' -f1 | tr '\n' ' '))"
	echo "$line" | cut -d' ' -f"$2"
}

# kernel_release ID: the release string (uname -r) of matrix entry ID.
kernel_release() { kernel_field "$1" 2; }

# kernel_arch ID: the architecture of matrix entry ID.
kernel_arch() { kernel_field "$1" 4; }

# kdir_release KDIR: the release a kernel build tree was configured for
# (empty if it cannot tell).
kdir_release() {
	sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null || true
}

vmlinuz_path() { echo "$KPROF_CACHE/kernels/$1/vmlinuz"; }
# pvh_path REL: an x86 kernel's uncompressed ELF image, which QEMU boots
# through the kernel's PVH entry (the Xen/HVM direct boot ABI) without the
# bzImage's own decompression: under TCG that unpacking is 3 s of a 6.1
# guest's 6.5 s boot (xz), 1.5 s of 7.3's (zstd). Absent for a kernel
# without PVH, and for the debug kernel: its PVH entry runs KASAN-checked
# code before KASAN's shadow exists (a page fault on a shadow address, then
# a triple fault, in 6.12). tests/vm/harness/vm-run.sh then boots the bzImage.
pvh_path() { echo "$KPROF_CACHE/kernels/$1/vmlinux.pvh"; }
# guest_kmods_dir REL: the kernel's own modules some guest tests load.
guest_kmods_dir() { echo "$KPROF_CACHE/kernels/$1/kmods"; }

# promtool_path: Prometheus' promtool, unpacked by ci/deps.sh.
promtool_path() { echo "$KPROF_CACHE/tools/promtool"; }

# busybox_path ARCH: the busybox a guest of ARCH runs.
busybox_path() {
	if [ "$1" = amd64 ]; then
		echo /bin/busybox
	else
		echo "$KPROF_CACHE/busybox/$1/busybox"
	fi
}

# kbuild_arch ARCH: Kbuild's ARCH= for Debian architecture ARCH.
kbuild_arch() {
	case "$1" in
	amd64) echo x86_64 ;;
	armhf) echo arm ;;
	s390x) echo s390 ;;
	*) echo "$1" ;;
	esac
}

# static_kprofctl ARCH: where 'make static' leaves kprofctl for ARCH.
static_kprofctl() {
	if [ "$1" = amd64 ]; then
		echo "$KPROF_BUILD/static/kprofctl"
	else
		echo "$KPROF_BUILD/static-$(kbuild_arch "$1")/kprofctl"
	fi
}

# checkpatch_path: the kernel's checkpatch.pl, from the source tree the
# debug kernel is built from (ci/debug-kernel.sh); empty if there is none.
checkpatch_path() { compgen -G "$KPROF_CACHE/kbuild/*/src/scripts/checkpatch.pl" | head -n 1 || true; }

# The guest scripts under tests/vm/: the tests, and in folders of their
# own the harness's self-tests, the benchmarks' and tools' guest halves and
# the guest parts of host tests (tests/README.md).
GUEST_SCRIPT_DIRS="tests/vm tests/vm/selftest tests/vm/bench tests/vm/tools tests/vm/parts"

# guest_scripts: every guest script's path.
guest_scripts() {
	local d
	for d in $GUEST_SCRIPT_DIRS; do
		compgen -G "$KPROF_TOP/$d/*.sh" || true
	done
}

# guest_script NAME: the path of guest script NAME.sh, empty if none.
guest_script() { guest_scripts | grep -m 1 "/$1\.sh\$" || true; }
