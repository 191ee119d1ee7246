#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build if needed, then run through 'perf test' every test of the series
# (tools/perf/tests/shell/*.sh of its series directory, and the suites of
# its tools/perf/tests/*.c by their DEFINE_SUITE description) and the
# base's tests that touch its features (ci/feature-tests).  Ends with
# "N passed, N failed, N skipped" and exits non-zero on any failure.  Under
# CI=true a skip fails too, unless ci/allowed-skips says why this machine
# cannot run the test.
#
# Usage: test.sh [NAME-FRAGMENT ...]    (default: all)
#        test.sh --loop RUNS [--load]   all of it RUNS times in a row, as CI
#            runs it; --load with 'perf bench sched messaging' looping on
#            every CPU meanwhile.  A line per run, a line per test that
#            failed at least once, then "N passed, N failed" counting runs;
#            the logs of a failed run stay in build/check-loop/run-N/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# loop RUNS [--load]
loop()
{
	local runs=$1 load=0 out=$BUILD/check-loop pass=0 fail=0 i t0 rc secs loadavg summary bad t

	[ "${2:-}" != --load ] || load=1
	case "$runs" in
	'' | *[!0-9]* | 0) die "RUNS must be a positive number, not '$runs'" ;;
	esac
	"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
	rm -rf "$out"
	mkdir -p "$out"
	# the loader and the run under way each have a session of their own,
	# so that stopping the loop stops every process of theirs: a perf test
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
	declare -A failed_in
	for i in $(seq 1 "$runs"); do
		t0=$SECONDS
		CI=true setsid "$0" > "$out/run.log" 2>&1 &
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
			echo "run $i: ok, $summary, ${secs} s, load $loadavg"
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
}

if [ "${1:-}" = --loop ]; then
	shift
	loop "$@"
	exit
fi

"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
deps test
mount_fs
export PATH=$OBJ:$PATH

logs=$BUILD/test-logs
rm -rf "$logs"
mkdir -p "$logs"

scripts=()
for f in $(series_shell_tests) $(series_new_files | grep '^tools/perf/tests/[^/]*\.c$'); do
	scripts+=("$(basename "$f")")
done
while read -r s; do
	case "$s" in
	'#'* | '') ;;
	'!'*)
		s=${s#!}
		echo "excluded: ${s%% *} (${s#* })" ;;
	*) scripts+=("$s") ;;
	esac
done < "$SDIR/ci/feature-tests"

if [ $# -gt 0 ]; then
	want=("$@")
	sel=()
	for s in "${scripts[@]}"; do
		for w in "${want[@]}"; do
			case "$s" in *"$w"*) sel+=("$s"); break ;; esac
		done
	done
	scripts=("${sel[@]}")
fi

cd "$SRC/tools/perf" || die "no assembled tree at $SRC"
list=$(perf test list 2>/dev/null)

# number NAME: the number of test NAME (NAME.sh: tests/shell/NAME.sh; NAME.c:
# the suite tests/NAME.c defines) in perf test list
number()
{
	local desc

	case "$1" in
	*.sh)
		test_number "$list" "tests/shell/$1" ;;
	*.c)
		desc=$(sed -n 's/^DEFINE_SUITE[A-Z_]*("\(.*\)", *[a-z_0-9]*);$/\1/p' "tests/$1")
		echo "$list" | awk -F': ' -v d="$desc" '{ sub(/^ +/, "", $1) } $2 == d { print $1; exit }' ;;
	esac
}

pass=0 fail=0 skip=0
failed=()
for s in "${scripts[@]}"; do
	f=tests/shell/$s
	case "$s" in *.c) f=tests/$s ;; esac
	[ -f "$f" ] || { echo "FAIL $s: not in $SRC/tools/perf/$(dirname "$f")"; fail=$((fail + 1)); continue; }
	num=$(number "$s")
	if [ -z "$num" ]; then
		echo "FAIL $s: 'perf test list' has no test of $f"
		fail=$((fail + 1))
		failed+=("$s")
		continue
	fi
	log=$logs/${s%.*}.log
	t0=$(date +%s)
	timeout 900 perf test -vv "$num" > "$log" 2>&1
	secs=$(($(date +%s) - t0))
	result=$(grep -E "^ *$num: " "$log" | tail -1 | sed 's/.*: //')
	case "$result" in
	Ok*)
		echo "PASS $s (${secs}s)"
		pass=$((pass + 1)) ;;
	Skip*)
		reason=$(grep -iE 'skip' "$log" | grep -v -E "^ *$num: |^Skipped tests" | tail -1)
		allowed=$(awk -F'|' -v s="$s" '$1 == s { print $2 }' "$SDIR/ci/allowed-skips")
		if [ "${CI:-}" = true ] && { [ -z "$allowed" ] || ! echo "$reason" | grep -Eq -e "$allowed"; }; then
			echo "FAIL $s: skipped under CI, but this machine supports it: ${reason:-no reason given}"
			fail=$((fail + 1))
			failed+=("$s")
		else
			echo "SKIP $s: ${reason:-no reason given}"
			skip=$((skip + 1))
		fi ;;
	*)
		echo "FAIL $s (${secs}s, ${result:-no result}; log: $log)"
		tail -25 "$log" | sed 's/^/    /'
		fail=$((fail + 1))
		failed+=("$s") ;;
	esac
done

[ $fail = 0 ] || echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
