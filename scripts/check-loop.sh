#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the whole of 'make check' RUNS times in a row, as CI does (CI=true:
# a skip this machine can avoid fails), and say which tests failed in which
# run.  With --load, 'perf bench sched messaging' runs in a loop on every
# CPU for the whole time, so that the tests meet a loaded scheduler.
#
# Prints a line per run (result, seconds, load average, failed tests), then
# a line per test that failed at least once, then "N passed, N failed"
# counting runs.  The logs of a failed run are kept in
# build/check-loop/run-N/.
#
# Usage: check-loop.sh [--load] [RUNS]    (default 20)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

load=0
if [ "${1:-}" = --load ]; then
	load=1
	shift
fi
runs=${1:-20}
case "$runs" in
'' | *[!0-9]* | 0) die "RUNS must be a positive number, not '$runs'" ;;
esac

"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
out=$BUILD/check-loop
rm -rf "$out"
mkdir -p "$out"

# the loader and the run under way each have a session of their own, so
# that stopping the loop stops every process of theirs (timeout(1) gives
# perf test a process group of its own, within the session): a perf test
# left behind without its parent was found spinning on a CPU
loader= tests=
stop_group()
{
	[ -n "$1" ] || return 0
	pkill -KILL -s "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
stop_all()
{
	stop_group "$tests"
	stop_group "$loader"
	tests= loader=
}
trap stop_all EXIT
trap "exit 1" TERM INT
if [ $load = 1 ]; then
	setsid bash -c "while :; do '$PERF' bench sched messaging -g 10 -l 2000 >/dev/null 2>&1; done" &
	loader=$!
fi

pass=0 fail=0
declare -A failed_in
for i in $(seq 1 "$runs"); do
	t0=$SECONDS
	CI=true setsid "$ROOT/scripts/test.sh" > "$out/run.log" 2>&1 &
	tests=$!
	wait "$tests"
	rc=$?
	tests=
	secs=$((SECONDS - t0))
	loadavg=$(cut -d' ' -f1 /proc/loadavg)
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/run.log" | tail -1)
	bad=$(sed -n 's/^FAIL \([^ :]*\).*/\1/p' "$out/run.log" | tr '\n' ' ')
	if [ $rc = 0 ] && [ -n "$summary" ]; then
		pass=$((pass + 1))
		echo "run $i: ok, ${summary:-no summary}, ${secs} s, load $loadavg"
	else
		fail=$((fail + 1))
		echo "run $i: FAILED, ${summary:-no summary}, ${secs} s, load $loadavg: ${bad:-exit $rc}"
		mkdir -p "$out/run-$i"
		cp "$out/run.log" "$out/run-$i/"
		cp -r "$BUILD/test-logs/." "$out/run-$i/" 2>/dev/null
		for t in $bad; do
			failed_in[$t]="${failed_in[$t]:-}$i "
		done
	fi
done
rm -f "$out/run.log"
stop_all

for t in "${!failed_in[@]}"; do
	echo "failed: $t in run(s) ${failed_in[$t]}"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
