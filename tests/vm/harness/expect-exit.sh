#!/usr/bin/env bash
# expect-exit.sh CODE CMD...: succeed only if CMD exits with exactly CODE.
# Used by the harness's negative tests: a failure must be the expected one.
want=$1
shift
"$@"
got=$?
if [ "$got" != "$want" ]; then
	echo "expect-exit: '$*' exited $got, expected $want"
	exit 1
fi
echo "expect-exit: '$*' exited $got as expected"
