#!/usr/bin/env bash
# Run a libFuzzer target for a fixed time; fail on any crash.
#   run.sh FUZZER NAME SECONDS
# The corpus starts from tests/fuzz/seeds/NAME, the crashers found so far
# (tests/fuzz/crashers/NAME, also unit-test fixtures) and, for the decoder, the
# captured pages of tests/unit/fixtures (one file per 4 KiB page, led by
# the byte that picks its kernel's formats). Crashers are kept in
# build/fuzz/NAME/ to become unit-test fixtures.
set -euo pipefail
fuzzer=$1 name=$2 seconds=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(dirname "$fuzzer")/fuzz/$name
rm -rf "$work/corpus" "$work/crashers"
mkdir -p "$work/corpus" "$work/crashers"
for d in seeds crashers; do
	if [ -d "$top/tests/fuzz/$d/$name" ]; then cp "$top/tests/fuzz/$d/$name"/* "$work/corpus/"; fi
done
if [ "$name" = tracedat ]; then
	for dat in "$top"/tests/unit/fixtures/*/trace.dat; do
		cp "$dat" "$work/corpus/$(basename "$(dirname "$dat")").dat"
	done
fi
if [ "$name" = decoder ]; then
	# The lead byte: fixture * 4 + layout (fuzz_decoder.cpp), the pages
	# rewritten into the other three layouts (0x40).
	i=0
	while read -r dir; do
		for raw in "$dir"*.raw; do
			pages=$(($(stat -c %s "$raw") / 4096))
			for ((p = 0; p < pages && p < 8; p++)); do
				for l in 0 1 2 3; do
					lead=$((i * 4 + l + (l ? 0x40 : 0)))
					{ printf '%b' "\\x$(printf %02x $lead)"; dd if="$raw" bs=4096 skip=$p count=1 status=none; } \
						>"$work/corpus/$(basename "$dir").$(basename "$raw").$p.$l"
				done
			done
		done
		i=$((i + 1))
	done < <(printf '%s\n' "$top"/tests/unit/fixtures/*/ | sort)
fi
echo "fuzz $name: $(find "$work/corpus" -mindepth 1 -maxdepth 1 | wc -l) seeds, $seconds s"
# calloc returns NULL, as glibc's does, instead of ASan aborting on a
# size libtracecmd read from a damaged file.
ASAN_OPTIONS=allocator_may_return_null=1 \
LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0 \
	"$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/crashers/" \
	-rss_limit_mb=2048 -timeout=10 "$work/corpus" 2>"$work/log" || {
	tail -n 60 "$work/log"
	echo "FAIL: fuzz $name found a crash: $(ls "$work/crashers")"
	exit 1
}
# The fuzzer survived. Artifacts it left come from report -i's children,
# which try each file before kprofctl opens it (tracecmd_shim.c): those
# libtracecmd crashed, as they are there to.
children=$(find "$work/crashers" -mindepth 1 -maxdepth 1 | wc -l)
rm -f "$work/crashers"/*
grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$work/log" | tail -n 3
if [ "$children" -gt 0 ]; then
	echo "PASS: fuzz $name: libtracecmd crashed $children of report -i's probe children, which kprofctl survived"
else
	echo "PASS: fuzz $name"
fi
