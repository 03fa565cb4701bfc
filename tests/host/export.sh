#!/usr/bin/env bash
# kprofctl's --prometheus and --svg files, checked by the tools that read
# them: promtool (Prometheus) accepts the metrics and their numbers are the
# JSON report's; the picture is valid XML and rsvg-convert renders it.
#   export.sh                  the captured trace.dat fixture, through
#                              'report -i' (no root), twice into one file:
#                              Prometheus' increase() and
#                              histogram_quantile() over the two files
#                              (scraped a minute apart, promtool test rules)
#                              give the second run's counts
#   export.sh PROM SVG JSON    those files (a guest's, tests/vm/kprofctl_export.sh)
#   export.sh --svg SVG...     pictures only (the demo's)
set -euo pipefail
. "$(dirname "$0")/../../ci/common.sh"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

# check_svg SVG [CHARTS]: well-formed, CHARTS charts, rendered to a PNG.
check_svg() {
	local charts
	xmllint --noout "$1" || fail "$1 is not well-formed XML"
	charts=$(grep -c '<g class="chart"' "$1" || true)
	[ -z "${2:-}" ] || [ "$charts" = "$2" ] || fail "$1: $charts charts for $2 rows of the report"
	[ "$charts" -gt 0 ] || fail "$1: no chart"
	rsvg-convert -o "$out/kprof.png" "$1" || fail "rsvg-convert cannot render $1"
	[ "$(head -c 8 "$out/kprof.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "rsvg-convert did not write a PNG of $1"
	echo "$1: $charts charts, rendered to $(stat -c %s "$out/kprof.png") bytes of PNG"
}

if [ "${1:-}" = --svg ]; then
	shift
	for f in "$@"; do
		check_svg "$f"
	done
	exit 0
fi

promtool=$(promtool_path)
[ -x "$promtool" ] || die "$promtool missing; run 'make deps'"
if [ $# -eq 3 ]; then
	prom=$1 svg=$2 json=$3
else
	prom=$out/kprof.prom svg=$out/kprof.svg json=$out/report.json
	for run in 1 2; do
		"$KPROF_BUILD/host/kprofctl" report -i "$KPROF_TOP/tests/unit/fixtures/6.1.0-57-amd64/trace.dat" \
			--json --svg "$svg" --prometheus "$prom" >"$json"
		[ ! -e "$prom.tmp" ] || die "the temporary $prom.tmp was left behind"
		[ $run = 2 ] || cp "$prom" "$out/first.prom"
	done
	# The counts below are one run's: the first file's.
	mv "$prom" "$out/second.prom"
	prom=$out/first.prom
fi

# promtool: nothing to say (it prints each problem) and exit 0.
for f in "$prom" ${out:+$out/second.prom}; do
	[ -e "$f" ] || continue
	lint=$("$promtool" check metrics <"$f" 2>&1) || fail "promtool check metrics $f: $lint"
	[ -z "$lint" ] || fail "promtool check metrics $f: $lint"
done

# Every total row of the JSON report is one histogram with its count.
stats=$(awk -f "$KPROF_TOP/tests/vm/lib/kprofctl_json.awk" "$json" | awk '$1 == "stat" && $4 == "null"')
[ -n "$stats" ] || fail "the report has no statistics"
rows=0
while read -r _ event device _ count _; do
	case "$device" in
	*/*) labels="event=\"$event\",device=\"${device#*/}\",irq=\"${device%%/*}\"" ;;
	*) labels="event=\"$event\",device=\"$device\"" ;;
	esac
	got=$(grep -F "kprof_latency_seconds_count{$labels} " "$prom" | awk '{ print $2 }')
	[ "$got" = "$count" ] || fail "$event $device: _count '$got', the JSON report says $count"
	inf=$(grep -F "kprof_latency_seconds_bucket{$labels,le=\"+Inf\"} " "$prom" | awk '{ print $2 }')
	[ "$inf" = "$count" ] || fail "$event $device: +Inf bucket '$inf', not $count"
	rows=$((rows + 1))
done <<<"$stats"
hists=$(grep -c '^kprof_latency_seconds_count{' "$prom")
[ "$hists" = "$rows" ] || fail "$hists histograms for $rows rows of the report"
for pair in events_read:kprof_events_read_total missed_total:kprof_events_lost_total invalid:kprof_invalid_records_total; do
	want=$(awk -f "$KPROF_TOP/tests/vm/lib/kprofctl_json.awk" "$json" | awk -v k="${pair%%:*}" '$1 == k { print $2 }')
	got=$(awk -v m="${pair#*:}" '$1 == m { print $2 }' "$prom")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "${pair#*:} is '$got', the JSON report's ${pair%%:*} '$want'"
done

check_svg "$svg" "$rows"
echo "$prom: $rows histograms; promtool accepts them, and their counts and the loss counters are the JSON report's"
[ -e "$out/second.prom" ] || exit 0

# The two files as two scrapes a minute apart: increase() over that minute
# is the second run's count, series by series, and kprof_runs_total's is 1;
# histogram_quantile() of the buckets' rate() is a number, not NaN.
yaml_quote() { printf "'%s'" "${1//\'/\'\'}"; }
{
	echo "rule_files: []"
	echo "tests:"
	echo "  - interval: 1m"
	echo "    input_series:"
	grep -v '^#' "$out/first.prom" | while read -r series v1; do
		v2=$(grep -v "^#" "$out/second.prom" | grep -F "$series " | awk '{ print $NF }')
		echo "      - series: $(yaml_quote "$series")"
		echo "        values: '$v1 $v2'"
	done
	echo "    promql_expr_test:"
	echo "      - expr: increase(kprof_runs_total[1m])"
	echo "        eval_time: 1m"
	echo "        exp_samples: [{labels: '{}', value: 1}]"
	echo "      - expr: count(histogram_quantile(0.99, rate(kprof_latency_seconds_bucket[1m])) >= 0)"
	echo "        eval_time: 1m"
	echo "        exp_samples: [{labels: '{}', value: $rows}]"
	echo "      - expr: increase(kprof_latency_seconds_count[1m])"
	echo "        eval_time: 1m"
	echo "        exp_samples:"
	while read -r _ event device _ count _; do
		case "$device" in
		*/*) labels="event=\"$event\",device=\"${device#*/}\",irq=\"${device%%/*}\"" ;;
		*) labels="event=\"$event\",device=\"$device\"" ;;
		esac
		echo "          - labels: $(yaml_quote "{$labels}")"
		echo "            value: $count"
	done <<<"$stats"
} >"$out/increase.yml"
test=$("$promtool" test rules "$out/increase.yml" 2>&1) || fail "promtool test rules: $test"
echo "two runs into one file: increase() over them is the second run's count for all $rows histograms"
