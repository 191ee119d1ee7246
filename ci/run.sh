#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What CI runs on a clean clone: checkpatch and the edit-loop round trip,
# the proof that the exported series applies with git am to the pristine
# base and that every prefix builds, the README's test command (build + all
# tests), the bounded torture run (scripts/torture.sh --quick) and the
# regression guard.  The last line counts every check: the tests of 'make
# check' one by one, and checkpatch, roundtrip, series-proof, torture and
# regression as one check each.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

export CI=${CI:-true}
pass=0 fail=0 skip=0
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

step make checkpatch
step make roundtrip
step make series-proof

echo "=== make check ==="
t0=$SECONDS
make check 2>&1 | tee build-check.log
rc=${PIPESTATUS[0]}
echo "=== make check took $((SECONDS - t0)) s ==="
read -r p f s < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' build-check.log | tail -1)
rm -f build-check.log
if [ -z "${p:-}" ]; then
	echo "=== FAILED: make check printed no summary (exit $rc) ==="
	fail=$((fail + 1))
else
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$rc" = 0 ] || [ "$f" != 0 ] || fail=$((fail + 1))
fi

step make torture TORTURE=--quick
step make regression

echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
