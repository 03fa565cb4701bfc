# kprof.ko: bad writes get EINVAL (a number too large for its type ERANGE)
# and change nothing; modes are root-only.
. /tests/lib.sh

load kprof
load kprof_pktproc
for v in 2 -1 abc "" 1x; do
	expect_einval "$v" "$KP"/enable
done
expect_erange 99999999999 "$KP"/enable
expect_erange 99999999999 "$KP"/pktproc-q0/reset
expect_erange 99999999999 "$KP"/bench
for v in 0 2 -1 abc; do
	expect_einval "$v" "$KP"/pktproc-q0/reset
done
for v in 0 -1 abc 100000001; do
	expect_einval "$v" "$KP"/bench
done
expect_eq "reset still works" "$(echo 1 >"$KP"/pktproc-q0/reset && echo ok)" ok

for f in $KP/version $KP/pktproc-q0/counters $KP/pktproc-q0/latency $KP/pktproc-q0/emitted $KP/pktproc-q0/spans; do
	expect_eq "mode of $f" "$(stat -c %a "$f")" 400
done
for f in $KP/enable $KP/bench $KP/pktproc-q0/reset; do
	expect_eq "mode of $f" "$(stat -c %a "$f")" 600
done
expect_eq "spans" "$(cat "$KP"/pktproc-q0/spans)" "0 packet"
rmmod kprof_pktproc
rmmod kprof
