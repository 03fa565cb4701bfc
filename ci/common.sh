# shellcheck shell=bash
# Shared helpers for the ci/ scripts. Source it; do not run it.

KPROF_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KPROF_BUILD=${KPROF_BUILD:-$KPROF_TOP/build}
# Downloads outlive a checkout: CI clones afresh, the cache stays.
KPROF_CACHE=${KPROF_CACHE:-/var/cache/kprof}
KPROF_KERNELS=$KPROF_BUILD/kernels.txt

die() { echo "kprof: error: $*" >&2; exit 1; }
info() { echo "kprof: $*" >&2; }

# host_suite SUITE: true if the host builds for SUITE's kernels itself
# (bookworm and its backports); the others build in a chroot (ci/chroot.sh).
host_suite() {
	case "$1" in bookworm | bookworm-backports) return 0 ;; esac
	return 1
}

# kernels_each: print "id release suite" for every kernel of the resolved matrix.
kernels_each() {
	[ -s "$KPROF_KERNELS" ] || "$KPROF_TOP/ci/kernels.sh" resolve >/dev/null ||
		die "cannot resolve the kernel matrix; run 'make deps'"
	grep -v '^#' "$KPROF_KERNELS"
}

# kernel_release ID: the release string (uname -r) of matrix entry ID.
kernel_release() {
	local id rel suite
	while read -r id rel suite; do
		[ "$id" = "$1" ] && { echo "$rel"; return 0; }
	done < <(kernels_each)
	die "unknown kernel '$1' (known: $(kernels_each | cut -d' ' -f1 | tr '\n' ' '))"
}

vmlinuz_path() { echo "$KPROF_CACHE/kernels/$1/vmlinuz"; }
