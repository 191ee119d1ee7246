#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What CI runs on a clean clone: the edit-loop round trip, checkpatch, the
# proof that the exported series applies with git am to the pristine base
# and that every prefix builds (with BPF skeletons, then without), the
# README's test command (build + all tests), the features on Debian's
# kernels in qemu (make kernels, three of them) and upstream's regression
# suite.  Every guard runs every time.
#
# The proof with skeletons leaves perf built from the whole series, so
# 'make check' builds nothing; the tests, then the kernels, run while the
# prefixes are built without skeletons in a tree of their own (they hold
# on a busy machine).
# The regression suite runs last, alone: not all of upstream's tests hold
# beside a build.  The last line counts every check: the tests of 'make
# check' one by one, the other steps as one check each.
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

# check_count LOG RC SECS: make check's output, its tests counted one by one
check_count()
{
	local p f s

	echo "=== make check ==="
	cat "$1"
	echo "=== make check took $3 s ==="
	read -r p f s < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$1" | tail -1)
	if [ -z "${p:-}" ]; then
		echo "=== FAILED: make check printed no summary (exit $2) ==="
		fail=$((fail + 1))
	else
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		[ "$2" = 0 ] || [ "$f" != 0 ] || fail=$((fail + 1))
	fi
}

step bash -c '. scripts/lib.sh && deps build test kernels'
step make roundtrip
step make checkpatch
step scripts/series.sh proof --skel
# make check, then make kernels without its build (make check's), beside
# the proof without skeletons
log=build/ci-check.log klog=build/ci-kernels.log
mkdir -p build
rm -f "$log.rc" "$klog.rc"
(
	t0=$SECONDS
	make check > "$log" 2>&1
	echo "$? $((SECONDS - t0))" > "$log.rc"
	t0=$SECONDS
	env KERNELS=5.10,6.1,7.3 scripts/kernels/boot.sh > "$klog" 2>&1
	echo "$? $((SECONDS - t0))" > "$klog.rc"
) &
tests=$!
step scripts/series.sh proof --no-skel
wait $tests
read -r rc secs < "$log.rc" || rc=1 secs=0
check_count "$log" "$rc" "$secs"
read -r rc secs < "$klog.rc" || rc=1 secs=0
echo "=== make kernels ==="
cat "$klog"
echo "=== make kernels took $secs s ==="
if [ "$rc" = 0 ]; then pass=$((pass + 1)); else echo "=== FAILED: make kernels ==="; fail=$((fail + 1)); fi
step make regression

echo "=== CI took $((SECONDS - t_all)) s ==="
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
