#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the exported series is what a distribution gets:
#   1. git am of the export (scripts/series.sh --proof) onto the pristine
#      base applies every patch exactly (git am takes no fuzz);
#   2. the resulting tools/ is byte-identical to the assembled tree that
#      make build and make check use;
#   3. every prefix of the series builds (bisectable): each patch is
#      checked out in turn and built incrementally in one object tree.
# Usage: series-proof.sh [--no-build]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build=1
[ "${1:-}" != --no-build ] || build=0

"$ROOT/scripts/deps.sh" build
"$ROOT/scripts/assemble.sh"
out=$BUILD/series-proof
"$ROOT/scripts/series.sh" --proof "$out" >/dev/null

am=$BUILD/series-am
rm -rf "$am"
mkdir -p "$am"
cp -a "$(base_dir)/." "$am/"
cd "$am"
git init -q -b proof
git config core.autocrlf false
git add -A
git -c user.name=base -c user.email=base@localhost commit -q -m base
git tag base
git -c user.name=proof -c user.email=proof@localhost \
	am -q --whitespace=nowarn $(ls "$out"/*.patch | grep -v -- '-cover-letter\.patch$') ||
	die "git am of the exported series failed on the pristine base"
n=$(git rev-list --count base..HEAD)
echo "series-proof: git am applied $n patches to the pristine base"

if ! diff -r -q -x .git "$am/tools" "$SRC/tools" > "$BUILD/series-proof.diff"; then
	cat "$BUILD/series-proof.diff" >&2
	die "the series applied by git am differs from the assembled tree (above)"
fi
echo "series-proof: tools/ after git am is identical to the assembled tree"
[ $build = 1 ] || exit 0

# One object tree for every prefix: a checkout changes only the files a
# patch touches, so each build recompiles only what the patch changed.
obj=$BUILD/series-proof-obj
mkdir -p "$obj"
k=0
for c in $(git rev-list --reverse base..HEAD); do
	k=$((k + 1))
	git checkout -q "$c"
	t0=$SECONDS
	if ! make -C "$am/tools/perf" O="$obj" BUILD_BPF_SKEL=1 -j"$JOBS" \
		PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config \
		> "$BUILD/series-proof-build.log" 2>&1; then
		tail -30 "$BUILD/series-proof-build.log" >&2
		die "prefix $k/$n does not build: $(git log -1 --format=%s)"
	fi
	echo "series-proof: prefix $k/$n builds ($((SECONDS - t0)) s): $(git log -1 --format=%s)"
done
git checkout -q proof
echo "series-proof: ok, $n patches apply with git am and every prefix builds"
