#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What CI runs on a clean clone, for each series: the upstream series on
# 7.2 and the stable backport on 6.12.  Per base: the edit-loop round trip,
# checkpatch, the proof that the exported series applies with git am to the
# pristine base and that every prefix builds (with and without BPF
# skeletons), the README's test command (build + all tests), the bounded
# torture run where the base has the features, and the regression guard.
# series-proof leaves perf built from its last prefix, so 'make check'
# builds nothing.  'make tip' (the git am and build on the newest upstream
# reachable) is not run here: a third full build does not fit CI's 45
# minutes; Documentation/bench/ci.md has its last run.  The last line
# counts every check: the tests of 'make check' one by one, the other
# steps as one check each.
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

# check BASE: make check, its tests counted one by one
check()
{
	local t0=$SECONDS rc p f s

	echo "=== make check BASE=$1 ==="
	make check BASE="$1" 2>&1 | tee build-check.log
	rc=${PIPESTATUS[0]}
	echo "=== make check BASE=$1 took $((SECONDS - t0)) s ==="
	read -r p f s < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' build-check.log | tail -1)
	rm -f build-check.log
	if [ -z "${p:-}" ]; then
		echo "=== FAILED: make check BASE=$1 printed no summary (exit $rc) ==="
		fail=$((fail + 1))
	else
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		[ "$rc" = 0 ] || [ "$f" != 0 ] || fail=$((fail + 1))
	fi
}

for base in 7.2 6.12; do
	# Both bases pin --bpf-counters' attr map at the default path, in
	# formats of their own: upstream's and the backport's leader differ.
	# Each base's tests start without one (until the backport's map gets a
	# path of its own), on CI's own machine.
	rm -f /sys/fs/bpf/perf_attr_map
	step make roundtrip BASE=$base
	step make checkpatch BASE=$base
	step make series-proof BASE=$base
	check $base
	[ $base = 7.2 ] || step make torture BASE=$base TORTURE=--quick
	step make regression BASE=$base
done

echo "=== CI took $((SECONDS - t_all)) s ==="
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
