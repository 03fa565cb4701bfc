# kprofctl's --prometheus and --svg files, from live collections: latency
# (streaming) and irq --in-kernel. In the guest: the files are written whole
# (no FILE.tmp left), their counts are the JSON report's, a second run adds
# its counts to the metrics file the first wrote, and a bad output path, a
# metrics file kprofctl did not write, and the old --openmetrics are refused
# before anything is collected. On the host
# (tests/host/export.sh): promtool accepts the metrics and rsvg-convert
# renders the pictures.
# kprof-host-check: tests/host/export.sh lat.prom lat.svg lat.json
# kprof-host-check: tests/host/export.sh irq.prom irq.svg irq.json
. /tests/lib.sh

load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 irq_coalesce=4 || fail insmod

# A file kprofctl could not write or must not continue: usage error, exit 2,
# nothing collected.
echo "node_load1 0.5" >/tmp/foreign.prom
for bad in "--svg /nonexistent/x.svg" "--prometheus /nonexistent/x.prom" "--svg /tmp" \
	"--prometheus /tmp/foreign.prom" "--openmetrics /tmp/x.prom"; do
	set +e
	# shellcheck disable=SC2086 # the bad option and its value, two words
	kprofctl latency -d 5s $bad >/dev/null 2>/tmp/bad.err
	rc=$?
	set -e
	expect_eq "exit status of 'latency $bad'" "$rc" 2
	grep -q -E "no directory|not a file name|not a file of kprofctl's|renamed --prometheus" /tmp/bad.err ||
		fail "unclear error for $bad: $(cat /tmp/bad.err)"
	[ ! -d "$TR/instances/kprof" ] || fail "'latency $bad' set the instance up before failing"
done

# counts_match JSON PROM [BEFORE]: each total row's count is its histogram's
# _count, plus its _count in BEFORE (the file PROM was before this run).
counts_match() {
	awk -f /tests/kprofctl_json.awk "$1" >/tmp/flat.txt
	grep -q '^lost false$' /tmp/flat.txt || fail "$1: events were lost"
	rows=0
	awk '$1 == "stat" && $4 == "null" { print $2, $3, $5 }' /tmp/flat.txt >/tmp/rows.txt
	while read -r event device count; do
		case "$device" in
		*/*) labels="event=\"$event\",device=\"${device#*/}\",irq=\"${device%%/*}\"" ;;
		*) labels="event=\"$event\",device=\"$device\"" ;;
		esac
		got=$(grep -F "kprof_latency_seconds_count{$labels} " "$2" | cut -d' ' -f2)
		before=0
		[ -z "${3:-}" ] || before=$(grep -F "kprof_latency_seconds_count{$labels} " "$3" | cut -d' ' -f2)
		expect_eq "$2: $event $device count" "$got" "$((before + count))"
		[ "$count" -gt 0 ] || fail "$event $device: no samples"
		rows=$((rows + 1))
	done </tmp/rows.txt
	expect_eq "$2: histograms" "$(grep -c '^kprof_latency_seconds_count{' "$2")" "$rows"
	[ ! -e "$2.tmp" ] || fail "$2.tmp left behind"
}

# export_run NAME READY ARGS...: kprofctl ARGS writing /tmp/NAME.{json,svg,prom}
# over 2 s of traffic, once READY (a lib.sh wait) says it collects; then the
# files' counts against the JSON report (and the .prom file before the run).
export_run() {
	name=$1 ready=$2
	shift 2
	before=
	if [ -e "/tmp/$name.prom" ]; then
		cp "/tmp/$name.prom" "/tmp/$name.before.prom"
		before=/tmp/$name.before.prom
	fi
	kprofctl "$@" --json --svg "/tmp/$name.svg" --prometheus "/tmp/$name.prom" >"/tmp/$name.json" 2>"/tmp/$name.err" &
	pid=$!
	$ready
	run_traffic 2
	kill -INT $pid
	wait $pid || fail "kprofctl $1 failed: $(cat "/tmp/$name.err")"
	counts_match "/tmp/$name.json" "/tmp/$name.prom" "$before"
}

export_run lat wait_collecting latency -b 2048
expect_eq "latency charts" "$(grep -c '<g class="chart"' /tmp/lat.svg)" "$rows"
# A second run adds to the file: its counters go on from the first's.
cp /tmp/lat.prom /tmp/lat2.prom
export_run lat2 wait_collecting latency -b 2048
expect_eq "lat2.prom: kprof_runs_total" "$(sed -n 's/^kprof_runs_total //p' /tmp/lat2.prom)" 2
echo "ok: a second run added its counts to the first's metrics"
export_run irq wait_attached irq --in-kernel --irq "$(sed -n 's/^q0: irq=\([0-9]*\) .*/\1/p' "$PP/stats")"
grep -q '^kprof_latency_seconds_count{event="entry_to_running",device="kprof_pktproc",irq="' /tmp/irq.prom ||
	fail "no entry_to_running histogram with its irq label"

for f in lat.prom lat.svg lat.json irq.prom irq.svg irq.json; do
	ship /tmp/$f
done
rmmod kprof_pktproc
rmmod kprof
