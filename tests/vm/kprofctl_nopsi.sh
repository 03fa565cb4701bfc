# A kernel booted with psi=0: every report says that PSI is off and why,
# and still gives the interrupt and context-switch rates.
# kprof-kernels: 6.1
# kprof-append: psi=0
. /tests/lib.sh

load kprof
[ ! -d /proc/pressure ] || fail "psi=0, and /proc/pressure is there"
kprofctl latency --in-kernel -d 1 >/tmp/r.txt || fail "kprofctl latency --in-kernel"
cat /tmp/r.txt
grep -q '^  pressure: off: the kernel was booted with psi=0$' /tmp/r.txt || fail "psi=0 not said"
grep -q '^  interrupts [0-9]*/s, context switches [0-9]*/s$' /tmp/r.txt || fail "no interrupt rates"
kprofctl latency --in-kernel -d 1 --json >/tmp/r.json || fail "kprofctl latency --in-kernel --json"
grep -q '"pressure_off": "off: the kernel was booted with psi=0"' /tmp/r.json || fail "JSON: psi=0 not said"
grep -q '"pressure": null' /tmp/r.json || fail "JSON: pressure figures without PSI"
rmmod kprof
