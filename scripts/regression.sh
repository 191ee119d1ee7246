#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regression guard: every test of the base's own 'perf test' suite that passes
# on this machine kind without the series must still pass with it.
#
#   regression.sh             run the suite with the series, compare with
#                             ci/regression-baseline.txt of the series
#   regression.sh --baseline  build the unpatched base, run the suite
#                             ROUNDS times (default 2) and record the tests
#                             that passed every time
#
# Tests are matched by description: the series adds shell tests, which
# renumbers the base's.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

list=$SDIR/ci/regression-baseline.txt

# run_suite PERF SRC LOG: the full suite, as perf test runs it by default
# (in parallel, the tests marked exclusive alone)
run_suite()
{
	local perf=$1 src=$2 log=$3 skip list f

	# the series' own tests and the upstream tests of ci/feature-tests are
	# run by scripts/test.sh, and "!name reason" lines exclude a test: skip
	# them here
	list=$(cd "$src/tools/perf" && "$perf" test list 2>/dev/null)
	skip=$({
		for f in $(series_shell_tests); do
			test_number "$list" "$SDIR/$f"
		done
		for f in $(feature_tests); do
			test_number "$list" "$src/tools/perf/tests/shell/$f"
		done
	} | paste -sd,)
	(cd "$src/tools/perf" && PATH=$(dirname "$perf"):$PATH \
		timeout 1500 perf test ${skip:+-s "$skip"} > "$log" 2>&1)
}

# feature_tests: the upstream shell tests ci/feature-tests names
feature_tests()
{
	sed -n 's/^!\{0,1\}\([^# ][^ ]*\).*/\1/p' "$SDIR/ci/feature-tests"
}

# passed LOG: the descriptions of the tests (and subtests) that passed
passed()
{
	sed -n 's/^ *[0-9][0-9.]*: \(.*[^ ]\) *: Ok$/\1/p' "$1" | sort -u
}

mount_fs
deps test

if [ "${1:-}" = --baseline ]; then
	ub=$BUILD/unpatched
	SERIES=none PERF_SERIES_BUILD=$ub "$ROOT/scripts/build.sh" >/dev/null ||
		die "building the unpatched base failed"
	rounds=${ROUNDS:-2}
	tmp=$(mktemp -d)
	t0=$(date +%s)
	for ((r = 1; r <= rounds; r++)); do
		run_suite "$ub/perf/perf" "$ub/src" "$tmp/run$r.log"
		passed "$tmp/run$r.log" > "$tmp/ok$r"
		if [ $r = 1 ]; then
			cp "$tmp/ok1" "$tmp/ok"
		else
			comm -12 "$tmp/ok" "$tmp/ok$r" > "$tmp/ok.new" && mv "$tmp/ok.new" "$tmp/ok"
		fi
	done
	secs=$((($(date +%s) - t0) / rounds))
	{
		echo "# Base 'perf test' tests that pass on this machine kind without the series"
		echo "# (passed in each of $rounds rounds). Recorded by scripts/regression.sh --baseline"
		echo "# on $(date -u +%F), kernel $(uname -r), base $PACKAGE $(current_version)."
		echo "# One full run of the suite took ${secs} s; $(wc -l < "$tmp/ok") tests listed."
		cat "$tmp/ok"
	} > "$list"
	cp "$tmp/run1.log" "$BUILD/regression-baseline-run1.log"
	rm -rf "$tmp"
	echo "recorded $(grep -vc '^#' "$list") tests in $list (${secs} s a run)"
	exit 0
fi

[ -f "$list" ] || die "no $list; run $0 --baseline first"
"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
log=$BUILD/regression.log
t0=$(date +%s)
run_suite "$PERF" "$SRC" "$log"
secs=$(($(date +%s) - t0))
passed "$log" > "$BUILD/regression.ok"
# less the tests run_suite skips, which make check runs
for f in $(feature_tests); do
	sed -n '2{s/^# *//;s/ *(exclusive)$//;p}' "$SRC/tools/perf/tests/shell/$f"
done > "$BUILD/regression.skipped"
grep -v '^#' "$list" | grep -vxF -f "$BUILD/regression.skipped" | sort -u > "$BUILD/regression.want"
comm -23 "$BUILD/regression.want" "$BUILD/regression.ok" > "$BUILD/regression.lost"
# A test that failed is run once more on its own: one that passes then is
# flaky on this machine kind (a sampling test such as "Test java symbol"
# is), said so, and not a regression.  A second failure is one.
if [ -s "$BUILD/regression.lost" ]; then
	: > "$BUILD/regression.lost2"
	while IFS= read -r desc; do
		# a subtest ("1.2: ...") is rerun through its main test
		if (cd "$SRC/tools/perf" && PATH=$(dirname "$PERF"):$PATH \
		    timeout 900 perf test -S -vv "$desc" > "$BUILD/regression.rerun.log" 2>&1) &&
		   passed "$BUILD/regression.rerun.log" | grep -qxF "$desc"; then
			echo "regression: '$desc' failed in the suite and passed alone (flaky here)"
		else
			echo "$desc" >> "$BUILD/regression.lost2"
		fi
	done < "$BUILD/regression.lost"
	mv "$BUILD/regression.lost2" "$BUILD/regression.lost"
fi
want=$(wc -l < "$BUILD/regression.want")
lost=$(wc -l < "$BUILD/regression.lost")
if [ "$lost" != 0 ]; then
	echo "regression: these base tests passed without the series and do not now:"
	sed 's/^/    /' "$BUILD/regression.lost"
	grep -F -f "$BUILD/regression.lost" "$log" | sed 's/^/    /'
fi
echo "regression: $((want - lost)) passed, $lost failed (of $want base tests, ${secs} s, log: $log)"
[ "$lost" = 0 ]
