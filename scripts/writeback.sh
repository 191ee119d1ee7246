#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write an edit tree (scripts/edit-tree.sh) back into the repository:
#   - files that the base does not have go to tools/ as they are at HEAD;
#   - every commit after "overlay" that touches base files becomes one patch
#     in patches/, limited to those files, in commit order.
# Usage: writeback.sh [EDIT_DIR [OUT_DIR]]   (defaults: build/edit, the repo)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$(cd "${1:-$BUILD/edit}" && pwd)
out=$(mkdir -p "${2:-$ROOT}" && cd "${2:-$ROOT}" && pwd)
cd "$dir"
[ -z "$(git status --porcelain)" ] || die "$dir has uncommitted changes; commit them first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

git ls-tree -r --name-only base | sort > "$tmp/base-files"
git ls-tree -r --name-only HEAD | sort > "$tmp/head-files"
comm -13 "$tmp/base-files" "$tmp/head-files" > "$tmp/new-files"
if grep -v '^tools/' "$tmp/new-files"; then
	die "the files above are new and outside tools/; the overlay only holds tools/"
fi

mkdir -p "$tmp/tools" "$tmp/patches"
if [ -s "$tmp/new-files" ]; then
	git archive HEAD $(cat "$tmp/new-files") | tar -x -C "$tmp"
fi

n=0
echo "# Applied in this order by scripts/assemble.sh" > "$tmp/patches/series"
for c in $(git rev-list --reverse overlay..HEAD); do
	git diff-tree --no-commit-id --name-only -r "$c" | sort > "$tmp/touched"
	comm -12 "$tmp/base-files" "$tmp/touched" > "$tmp/paths"
	[ -s "$tmp/paths" ] || continue
	n=$((n + 1))
	f=$(git format-patch -1 "$c" --zero-commit --no-signature -N \
		--start-number=$n -o "$tmp/patches" -- $(cat "$tmp/paths"))
	basename "$f" >> "$tmp/patches/series"
done

rm -rf "$out/tools" "$out/patches"
mkdir -p "$out/patches"
cp -R "$tmp/tools" "$out/tools"
cp "$tmp/patches/"* "$out/patches/"
echo "wrote $n patches and $(wc -l < "$tmp/new-files") files under tools/ to $out"
