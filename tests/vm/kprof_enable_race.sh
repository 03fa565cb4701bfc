# The hooks' key reference of kprof/enable is taken and dropped under the
# lock that decides the transition: two writers flipping enable for 5 s
# leave no reference behind. Afterwards, with traffic and nobody listening,
# no hook's slow path runs, and rmmod is clean.
# kprof-sets: debug
. /tests/lib.sh

load kprof
load kprof_pktproc
echo 1 >"$PP/start"
flip() {
	end=$(($(date +%s) + 5))
	while [ "$(date +%s)" -lt "$end" ]; do
		echo 1 >"$KP/enable"
		echo 0 >"$KP/enable"
	done
}
flip &
a=$!
flip &
b=$!
wait $a
wait $b
echo 0 >"$KP/enable"
expect_eq "enable after the race" "$(cat "$KP"/enable)" 0
echo 1 >"$KP/pktproc-q0/reset"
sleep 1
expect_eq "hook_calls with nobody listening" "$(counter pktproc-q0 hook_calls)" 0
expect_eq "irqs with nobody listening" "$(counter pktproc-q0 irqs)" 0
[ "$(pp_stat irqs)" -gt 0 ] || fail "no traffic"
echo 1 >"$PP/stop"
rmmod kprof_pktproc
rmmod kprof || fail "rmmod kprof"
