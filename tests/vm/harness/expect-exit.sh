#!/usr/bin/env bash
# expect-exit.sh CODE CMD...: succeed only if CMD exits with exactly CODE
# and, with EXPECT_OUTPUT set, printed a line containing it. Used by the
# harness's negative tests: a failure must be the expected one.
want=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" | tee "$out"
got=${PIPESTATUS[0]}
if [ "$got" != "$want" ]; then
	echo "expect-exit: '$*' exited $got, expected $want"
	exit 1
fi
if [ -n "${EXPECT_OUTPUT:-}" ] && ! grep -qF -- "$EXPECT_OUTPUT" "$out"; then
	echo "expect-exit: '$*' did not print '$EXPECT_OUTPUT'"
	exit 1
fi
echo "expect-exit: '$*' exited $got as expected"
