#!/usr/bin/env bash
# kprofctl(8) renders without a warning, and for the program and each
# subcommand lists exactly the options and arguments that --help lists.
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"

page=$KPROF_BUILD/host/kprofctl.8
kprofctl=$KPROF_BUILD/host/kprofctl
[ -s "$page" ] && [ -x "$kprofctl" ] || die "$page or $kprofctl missing; run 'make userspace'"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

# man -l with all of groff's warnings on (-ww): nothing on stderr.
warnings=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings=w -l "$page" 2>&1 >"$out/page.txt") ||
	fail "man -l failed: $warnings"
[ -z "$warnings" ] || fail "man -l warns: $warnings"
[ "$(wc -l <"$out/page.txt")" -gt 100 ] || fail "the rendered page is short: $(wc -l <"$out/page.txt") lines"

# help_items [COMMAND]: the options (-x and --long) and positional
# arguments that 'kprofctl [COMMAND] --help' lists, one per line, sorted.
help_items() {
	# shellcheck disable=SC2086 # no command: no argument
	"$kprofctl" $1 --help | awk '
		/^[A-Z][a-z]*:/ { section = $1; next }
		section == "Options:" && /^  -/ { n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i] }
		section == "Positionals:" && /^  [A-Z]/ { print $1 }' | sort
}

# man_items [COMMAND]: the same, from the page's section for COMMAND
# ("Global options" without one): the .TP heads, rendered at 7 spaces after
# a blank line (a paragraph's wrapped line may also start with a capital).
man_items() {
	local head=${1:+kprofctl $1}
	awk -v head="${head:-Global options}" '
		/^   [^ ]/ { on = ($0 == "   " head); blank = 1; next }
		/^[^ ]/ { on = 0 }
		on && blank && /^       [-A-Z]/ {
			line = $0
			sub(/^ */, "", line)
			n = split(line, parts, ", ")
			for (i = 1; i <= n; i++) { split(parts[i], w, " "); if (w[1] ~ /^-|^[A-Z]+$/) print w[1] }
		}
		{ blank = ($0 ~ /^ *$/) }' "$out/page.txt" | sort -u
}

commands=$("$kprofctl" --help | awk '/^[A-Z][a-z]*:/ { section = $1; next } section == "Subcommands:" && /^  [a-z]/ { print $1 }')
[ "$(echo "$commands" | wc -l)" -ge 8 ] || fail "kprofctl --help lists only: $commands"
checked=0
for cmd in "" $commands; do
	help_items "$cmd" >"$out/help"
	man_items "$cmd" >"$out/man"
	[ -s "$out/help" ] || fail "'kprofctl $cmd --help' lists no option"
	diff -u "$out/help" "$out/man" >"$out/diff" ||
		fail "kprofctl $cmd: --help and the man page differ (- --help, + man page):
$(tail -n +3 "$out/diff")"
	checked=$((checked + $(wc -l <"$out/help")))
done
echo "kprofctl(8): $(echo "$commands" | wc -w) commands, $checked options and arguments, each as --help lists them; man -l renders it without warnings"
