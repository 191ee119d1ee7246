#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the build tree: the pinned base, the new files of tools/ on top, then
# the patches' changes to the base's files, in series order (their changes
# to new files are already in tools/).  The result is synced into $SRC by
# content, so files that did not change keep their time stamps and an
# incremental build recompiles only what changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/fetch-base.sh"
base=$(base_dir)
stage=$BUILD/stage

rm -rf "$stage"
mkdir -p "$BUILD"
cp -a "$base" "$stage"
# SERIES=none assembles the unpatched base (scripts/regression.sh --baseline)
if [ "${SERIES:-all}" = none ]; then
	patches=""
else
	series_check
	cp -R "$ROOT/tools/." "$stage/tools/"
	patches=$(series)
fi

excl=()
for f in $(series_new_files); do
	excl+=(--exclude="$f")
done
cd "$stage"
for p in $patches; do
	f=$ROOT/patches/$p
	[ -f "$f" ] || die "patches/series names $p, which does not exist"
	grep -q '^diff --git ' "$f" || continue
	# git apply takes no fuzz: a hunk whose context moved fails
	if ! out=$(git_plain apply --check "${excl[@]}" "$f" 2>&1); then
		echo "$out" >&2
		die "patches/$p does not apply; rejected: $(echo "$out" |
			sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p' | sort -u | tr '\n' ' ')"
	fi
	git_plain apply "${excl[@]}" "$f"
done
cd - >/dev/null

mkdir -p "$SRC"
rsync -r -p --checksum --delete "$stage/" "$SRC/"
rm -rf "$stage"
