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
set -uo pipefail
. "$(dirname "$0")/lib.sh"

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
