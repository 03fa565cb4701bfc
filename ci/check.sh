#!/usr/bin/env bash
# make check: every dependency, every build, the sanitizers and every test,
# each phase timed into build/check-times.txt (ci/timed.sh) and summed at
# the end.
#
# The debug kernel's build (cold, 10 to 13 minutes of both CPUs) runs beside
# the userspace and module builds and the sanitizers, which leave a fifth of
# the CPUs idle on their own (configure steps, links, one-file tails), and
# not beside the guests' tests, whose timing checks want the CPUs they
# expect. Its modules are built once it is done; "debug-wait" is the time
# the tests then waited for it.
set -euo pipefail
. "$(dirname "$0")/common.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
export JOBS=${JOBS:-$(nproc)}

timed() { bash "$KPROF_TOP/ci/timed.sh" "$@"; }
kmake=(make -C "$KPROF_TOP" --no-print-directory)

timed start
timed deps env KPROF_DEBUG_BUILD=later bash "$KPROF_TOP/ci/deps.sh"

# kprofctl is built eight times (host, static, sanitizers, boards in the
# cross chroot, the package): CMake's builds go through ccache, its cache
# in $KPROF_CACHE/ccache (the cross chroot keeps its own). A cold cache
# costs nothing more; a warm one saves most of the compiling. Paths are
# hashed relative to the clone, so that every fresh clone hits.
export CCACHE_DIR=$KPROF_CACHE/ccache CCACHE_MAXSIZE=4G CCACHE_BASEDIR=$KPROF_TOP CCACHE_NOHASHDIR=1
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache

debug=$(debug_ids | xargs)
status=$KPROF_BUILD/debug-kernel.status
pid=
if [ -n "$debug" ]; then
	rm -f "$status"
	# A session of its own, so that stopping make check stops the compile.
	setsid -w bash -c '"$1" deps:debug-kernel "$2" build; echo $? >"$3"' sh \
		"$KPROF_TOP/ci/timed.sh" "$KPROF_TOP/ci/debug-kernel.sh" "$status" &
	pid=$!
	trap 'kill -- -"$pid" 2>/dev/null || true' EXIT
fi

timed build "${kmake[@]}" build KERNELS="$(debug_ids -v | xargs)"
timed sanitize "${kmake[@]}" sanitize

if [ -n "$pid" ]; then
	timed debug-wait sh -c 'while [ ! -s "$1" ]; do sleep 1; done' sh "$status"
	wait "$pid" || true
	trap - EXIT
	[ "$(cat "$status")" = 0 ] || die "the debug kernel did not build"
	timed debug-modules "${kmake[@]}" modules KERNELS="$debug"
fi

rc=0
timed tests sh -c 'cd "$1" && ctest --output-on-failure -j "$2"' sh "$KPROF_BUILD/host" "$JOBS" || rc=$?
timed report
exit "$rc"
