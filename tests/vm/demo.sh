# The guest half of 'make demo': load kprof and show what kprofctl reports.
. /tests/lib.sh
load kprof
echo "---- kprofctl status ----"
kprofctl status
echo "-------------------------"
rmmod kprof
