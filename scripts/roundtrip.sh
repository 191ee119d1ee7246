#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the edit loop is exact: build an edit tree from tools/ and patches/,
# write it back to a scratch directory, and compare with the repository.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/scripts/edit-tree.sh" "$tmp/edit" >/dev/null
"$ROOT/scripts/writeback.sh" "$tmp/edit" "$tmp/out" >/dev/null
mkdir -p "$tmp/orig"
cp -R "$ROOT/tools" "$ROOT/patches" "$tmp/orig/"
if ! diff -r "$tmp/orig" "$tmp/out" > "$tmp/diff"; then
	cat "$tmp/diff" >&2
	die "FAILED: assemble + write back changes the series (diff above)"
fi
echo "roundtrip: ok ($(series | wc -l) patches, $(find "$ROOT/tools" -type f | wc -l) new files)"
