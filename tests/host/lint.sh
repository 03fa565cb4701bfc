#!/usr/bin/env bash
# The project's habits, checked: shellcheck over every shell script, and the
# kernel's checkpatch.pl (--strict) over every kernel source file. Every
# exception is listed here, with its reason, and nowhere else.
#
#   lint.sh shell     every shell script of the tree
#   lint.sh kernel    every .c and .h that Kbuild compiles
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"

# The shellcheck checks excluded everywhere:
#   SC1091  sourced files are named by computed paths ("$(dirname "$0")/common.sh",
#           the guest's /tests/lib.sh), which shellcheck cannot follow
#   SC2015  "[ a ] && [ b ] || fail" is a conjunction of tests, meant as such
#   SC2016  single-quoted programs (awk, sh -c, mmdebstrap hooks) expand
#           their own $ at run time
SHELL_EXCLUDE=SC1091,SC2015,SC2016
# ...and in the guest's scripts only (tests/vm/ but for the harness's host
# side, and the guest's /init: busybox sh, checked as dash):
#   SC2046  "set -- $(cmd)" reads a row of fields into $1, $2, ...
GUEST_EXCLUDE=SC2046

# checkpatch: the types each file may report, and why.
CHECKPATCH_EXCEPTIONS='
kmod/compat.h                 LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_ARG_UNUSED  version tests are what compat.h is for; a shim keeps the newer API'"'"'s arguments
kmod/kprof_main.c             EXPORT_SYMBOL                                            the export follows DEFINE_STATIC_KEY_FALSE(), a definition checkpatch does not recognise
include/kprof/hist.h          BIT_MACRO                                                shared with kprofctl, where BIT_ULL() does not exist
include/trace/events/kprof.h  OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,SPACING            TRACE_EVENT() laid out as the kernel'"'"'s own event headers; TRACE_INCLUDE_PATH is a path
kmod/kprof_bench_trace.h      OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT                    TRACE_EVENT() laid out as the kernel'"'"'s own event headers
samples/oot/kprof_example.c   USLEEP_RANGE                                             udelay() stands for a register access that spins
'

# shell_scripts: every shell script of the tree, by name or by #! line.
shell_scripts() {
	find "$KPROF_TOP" \( -name .git -o -path "$KPROF_BUILD" \) -prune -o -type f -print |
		while read -r f; do
			case "$f" in
			*.sh) echo "$f" ;;
			*) head -c 64 "$f" 2>/dev/null | head -n 1 | grep -qE '^#!.*(/|env )(ba)?sh( |$)' && echo "$f" || true ;;
			esac
		done | sort
}

is_guest_script() {
	case "${1#"$KPROF_TOP"/}" in
	tests/vm/harness/guest-init) return 0 ;;
	tests/vm/harness/*) return 1 ;;
	tests/vm/*) return 0 ;;
	esac
	return 1
}

lint_shell() {
	local f host=() guest=() rc=0
	command -v shellcheck >/dev/null || die "shellcheck is missing; run 'make deps'"
	while read -r f; do
		if is_guest_script "$f"; then guest+=("$f"); else host+=("$f"); fi
	done < <(shell_scripts)
	[ ${#host[@]} -gt 0 ] && [ ${#guest[@]} -gt 0 ] || die "no shell scripts found under $KPROF_TOP"
	shellcheck -f gcc -e "$SHELL_EXCLUDE" "${host[@]}" || rc=1
	shellcheck -f gcc -s dash -e "$SHELL_EXCLUDE,$GUEST_EXCLUDE" "${guest[@]}" || rc=1
	# One line's exception says why, on the same line.
	if grep -n -E '# shellcheck disable=[A-Z0-9,]+ *$' "${host[@]}" "${guest[@]}"; then
		echo "a shellcheck exception without its reason (# shellcheck disable=SCnnnn # why)"
		rc=1
	fi
	[ $rc = 0 ] || { echo "FAIL: shellcheck (exceptions: tests/host/lint.sh)"; exit 1; }
	echo "PASS: shellcheck: ${#host[@]} host and ${#guest[@]} guest scripts"
}

# kernel_sources: every file Kbuild compiles, and the headers they include.
kernel_sources() {
	(cd "$KPROF_TOP" && find kmod include samples tests/kmod -name '*.[ch]' | sort)
}

lint_kernel() {
	local checkpatch f ignore out n=0 rc=0
	checkpatch=$(checkpatch_path)
	[ -n "$checkpatch" ] || die "no checkpatch.pl: it comes with the debug kernel's source; run 'make deps'"
	while read -r f; do
		ignore=$(echo "$CHECKPATCH_EXCEPTIONS" | awk -v f="$f" '$1 == f { print $2 }')
		if ! out=$("$checkpatch" --no-tree --strict --quiet --show-types --terse \
			${ignore:+--ignore "$ignore"} -f "$KPROF_TOP/$f"); then
			echo "$out"
			rc=1
		fi
		n=$((n + 1))
	done < <(kernel_sources)
	[ $rc = 0 ] || { echo "FAIL: checkpatch (exceptions: tests/host/lint.sh)"; exit 1; }
	echo "PASS: checkpatch --strict: $n files"
}

case "${1:-}" in
shell) lint_shell ;;
kernel) lint_kernel ;;
*) die "usage: $0 shell|kernel" ;;
esac
