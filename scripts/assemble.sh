#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the build tree: the pinned base, our tools/ overlay on top, then
# patches/ applied in series order.  The result is synced into $SRC by
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
	cp -R "$ROOT/tools/." "$stage/tools/"
	patches=$(series)
fi

for p in $patches; do
	f=$ROOT/patches/$p
	[ -f "$f" ] || die "patches/series names $p, which does not exist"
	if ! out=$(patch -d "$stage" -p1 -F0 -N --dry-run < "$f" 2>&1); then
		# name every file with a failed hunk, not just the first
		rejected=$(echo "$out" | awk '/^checking file /{ f = $3 }
					     /FAILED|Reversed|No such file/{ if (f != "") print f; f = "" }' |
			   sort -u | tr '\n' ' ')
		echo "$out" | grep -v '^checking file' >&2
		die "patches/$p does not apply; rejected: ${rejected:-see above}"
	fi
	patch -d "$stage" -p1 -F0 -N -s < "$f" >/dev/null
done

mkdir -p "$SRC"
rsync -r -p --checksum --delete "$stage/" "$SRC/"
rm -rf "$stage"
