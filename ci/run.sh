#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What CI runs on a clean clone, for each series: the upstream series on
# 7.2 and the stable backport on 6.12.  Per base: the edit-loop round trip,
# checkpatch, the proof that the exported series applies with git am to the
# pristine base and that every prefix builds (with and without BPF
# skeletons), the README's test command (build + all tests), the bounded
# torture run where the base has the features, and the regression guard.
# series-proof leaves perf built from its last prefix, so 'make check'
# builds nothing; the 7.2 tests run while the backport's prefixes build;
# the regression guards and the torture run last, alone, and are not run
# again for a series that passed them unchanged (ci/passed).  'make tip'
# (the git am and build on the newest upstream reachable) is not run
# here: a third full build does not fit CI's 45 minutes;
# Documentation/bench/ci.md has its last run.  The last line counts every
# check: the tests of 'make check' one by one, the other steps as one
# check each.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

export CI=${CI:-true}
pass=0 fail=0 skip=0
t_all=$SECONDS

step()
{
	local t0=$SECONDS

	echo "=== $* ==="
	if "$@"; then
		pass=$((pass + 1))
	else
		echo "=== FAILED: $* ==="
		fail=$((fail + 1))
	fi
	echo "=== $* took $((SECONDS - t0)) s ==="
}

# check_run BASE LOG: make check, its output and exit code in LOG
check_run()
{
	local t0=$SECONDS

	make check BASE="$1" > "$2" 2>&1
	echo "rc $? took $((SECONDS - t0)) s" > "$2.rc"
}

# check_count BASE LOG: the output of check_run, its tests counted one by one
check_count()
{
	local rc took p f s

	echo "=== make check BASE=$1 ==="
	cat "$2"
	read -r _ rc _ took _ < "$2.rc"
	echo "=== make check BASE=$1 took $took s ==="
	read -r p f s < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$2" | tail -1)
	rm -f "$2" "$2.rc"
	if [ -z "${p:-}" ]; then
		echo "=== FAILED: make check BASE=$1 printed no summary (exit $rc) ==="
		fail=$((fail + 1))
	else
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		[ "$rc" = 0 ] || [ "$f" != 0 ] || fail=$((fail + 1))
	fi
}

# every base's Debian packages first: two steps run at once below, and
# apt installs for one at a time
for base in 7.2 6.12; do
	step env BASE=$base bash -c '. scripts/lib.sh && deps build test'
done
# Both series pin --bpf-counters' attr map at /sys/fs/bpf/perf_attr_map_v2,
# unpatched perf at perf_attr_map; 7.2's and 6.12's perf_event_attr differ
# in size (144 and 136 bytes), so a map of one base is of the wrong shape
# for the other.  Each base's tests start without one, on CI's own machine.
rm -f /sys/fs/bpf/perf_attr_map /sys/fs/bpf/perf_attr_map_v2
step make roundtrip BASE=7.2
step make checkpatch BASE=7.2
step make series-proof BASE=7.2
# The 7.2 tests hold beside a CPU hog (make check LOAD=1): they run while
# the backport's prefixes build.  No test runs beside the regression
# guards, whose upstream tests do not all hold on a busy machine.
check_run 7.2 build-check-7.2.log &
checker=$!
step make roundtrip BASE=6.12
step make checkpatch BASE=6.12
step make series-proof BASE=6.12
wait $checker
check_count 7.2 build-check-7.2.log
rm -f /sys/fs/bpf/perf_attr_map /sys/fs/bpf/perf_attr_map_v2
check_run 6.12 build-check-6.12.log
check_count 6.12 build-check-6.12.log
# the regression guards and the torture run: not again for a series that
# passed them unchanged (ci/passed of each series; lib.sh: series_id)
export SKIP_UNCHANGED=1
step make torture BASE=6.12 TORTURE=--quick
step make regression BASE=6.12
rm -f /sys/fs/bpf/perf_attr_map /sys/fs/bpf/perf_attr_map_v2
step make regression BASE=7.2

echo "=== CI took $((SECONDS - t_all)) s ==="
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
