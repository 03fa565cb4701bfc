# kprofctl top in a terminal (tmux): the table refreshes, a second
# --in-kernel run fails at its start without disturbing it, r resets the
# totals, and q leaves the terminal as it was (main screen, cursor, tty
# modes) with the last table printed and the aggregation off; SIGTERM does
# the same. COUNT + MISSED is exactly what kprof.ko counted meanwhile.
# Without a terminal it prints plain frames.
# kprof-arch: amd64
# kprof-timeout: 300
. /tests/lib.sh
command -v tmux >/dev/null || fail "no tmux in the guest"
export TERM=screen	# the terminfo the guest has (tests/vm/harness/mkinitramfs.sh)
load kprof
insmod "$KPROF_MODDIR/kprof_pktproc.ko" nr_queues=2 rate_pps=2000 batch=8 irq_coalesce=4 || fail insmod

# pane NAME CMD: CMD in a new 160x40 tmux session; its exit status and the
# tty modes before and after it land in /tmp/NAME.{rc,stty0,stty1}.
pane() {
	tmux new-session -d -s "$1" -x 160 -y 40 \
		"stty -a >/tmp/$1.stty0; $2; echo \$? >/tmp/$1.rc; stty -a >/tmp/$1.stty1; exec sleep 600"
}
screen_of() { tmux capture-pane -p -t "$1"; }
# windows NAME: how many windows top has shown ("(N)" in its heading)
windows() { screen_of "$1" | sed -n 's/^kprofctl top:.*(\([0-9]*\)).*/\1/p' | head -n 1; }
# wait_windows NAME N: until top has shown N windows (60 s at most)
wait_windows() {
	n=0
	until [ "$(windows "$1")" -ge "$2" ] 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 300 ] || fail "$1: top showed $(windows "$1") windows, not $2: $(screen_of "$1")"
		sleep 0.2
	done
}
# total NAME DEV EVENT: the COUNT (since start) column of a row
total() { screen_of "$1" | awk -v d="$2" -v e="$3" '$1 == d && $2 == e { print $7 }'; }
# restored NAME: the pane's program has ended, and the terminal, its modes
# and the aggregation are as before
restored() {
	n=0
	until [ -s "/tmp/$1.rc" ]; do
		n=$((n + 1)); [ $n -lt 100 ] || fail "$1: top did not end"; sleep 0.2
	done
	expect_eq "$1: exit status" "$(cat "/tmp/$1.rc")" 0
	expect_eq "$1: alternate screen" "$(tmux display -p -t "$1" '#{alternate_on}')" 0
	expect_eq "$1: cursor shown" "$(tmux display -p -t "$1" '#{cursor_flag}')" 1
	cmp -s "/tmp/$1.stty0" "/tmp/$1.stty1" || fail "$1: tty modes not restored: $(diff "/tmp/$1.stty0" "/tmp/$1.stty1")"
	echo "ok: $1: tty modes restored"
	expect_eq "$1: aggregation" "$(cat "$KP/aggregate")" 0
	expect_eq "$1: kprof/enable" "$(cat "$KP/enable")" 0
	screen_of "$1" | grep -q '^kprofctl top:' || fail "$1: the last table is not on the screen"
}

# Live: refreshing, then r.
echo 1 >"$PP/start"
pane live "kprofctl top --interval 500ms"
wait_windows live 2
expect_eq "live: alternate screen" "$(tmux display -p -t live '#{alternate_on}')" 1
case "$(cat "$KP/aggregate")" in
1 | 2) echo "ok: live: aggregation on (or frozen for a read)" ;;
*) fail "live: aggregation is $(cat "$KP/aggregate") while top runs" ;;
esac
# Another user of the aggregation fails at its start, naming top; top goes
# on (its totals grow below).
expect_aggregation_owned "latency --in-kernel next to top" "$(pidof kprofctl)"
screen_of live
w=$(windows live)
c1=$(total live pktproc-q0 batch)
wait_windows live $((w + 3))
c2=$(total live pktproc-q0 batch)
[ -n "$c1" ] && [ "$c2" -gt "$c1" ] || fail "the totals did not grow: '$c1' then '$c2'"
echo "ok: the table refreshes: pktproc-q0 batch total $c1, then $c2"
tmux send-keys -t live r
w=$(windows live)
wait_windows live $((w + 2))
c3=$(total live pktproc-q0 batch)
[ "$c3" -lt "$c2" ] || fail "r did not reset the totals: $c2, then $c3"
echo "ok: r reset the totals: $c2, then $c3"
tmux send-keys -t live q
restored live
echo 1 >"$PP/stop"

# Exact: no traffic before it starts or after the traffic stops, so its
# last table's COUNT + MISSED must be what kprof.ko counted in between.
# The default 1 s windows at a higher rate, so that some samples fall in
# the gaps between them.
# counts DEV: "LABEL COUNT" of every event in kprof/DEV/latency
counts() { sed -n 's/^\([^ ]*\) count=\([0-9]*\) .*/\1 \2/p' "$KP/$1/latency"; }
for d in pktproc-q0 pktproc-q1; do
	counts $d >"/tmp/l0.$d"
done
echo 5000 >"$PP/rate_pps"
pane exact "kprofctl top"
wait_windows exact 1
run_traffic 3
w=$(windows exact)
wait_windows exact $((w + 2))
echo 2000 >"$PP/rate_pps"
tmux send-keys -t exact q
restored exact
screen_of exact | awk '$1 ~ /^pktproc-q/ { print $1, $2, $7, $11 }' >/tmp/rows.txt
cat /tmp/rows.txt
[ "$(wc -l </tmp/rows.txt)" -eq 8 ] || fail "expected 4 events x 2 devices: $(cat /tmp/rows.txt)"
while read -r d e count missed; do
	before=$(awk -v e="$e" '$1 == e { print $2 }' "/tmp/l0.$d")
	after=$(counts "$d" | awk -v e="$e" '$1 == e { print $2 }')
	want=$((after - before))
	expect_eq "$d $e: COUNT + MISSED" $((count + missed)) "$want"
	[ "$want" -gt 0 ] || fail "$d $e: no samples"
done </tmp/rows.txt
echo "KPROF-FIGURE top missed=$(awk '{ s += $4 } END { print s }' /tmp/rows.txt) counted=$(awk '{ s += $3 } END { print s }' /tmp/rows.txt)"

# SIGTERM: the same clean exit.
echo 1 >"$PP/start"
pane term "kprofctl top --interval 500ms"
wait_windows term 1
kill -TERM "$(pidof kprofctl)"
restored term
echo 1 >"$PP/stop"

# No terminal: plain frames, no escape sequences, ended by -d.
kprofctl top -d 1200ms --interval 500ms </dev/null >/tmp/plain.txt || fail "kprofctl top without a terminal failed"
frames=$(grep -c '^kprofctl top:' /tmp/plain.txt)
[ "$frames" -ge 2 ] || fail "without a terminal: $frames frames"
expect_eq "escape sequences without a terminal" "$(grep -c "$(printf '\033')" /tmp/plain.txt)" 0
expect_eq "aggregation after -d" "$(cat "$KP/aggregate")" 0

tmux kill-server
rmmod kprof_pktproc
rmmod kprof
