#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write a series tree (scripts/edit-tree.sh) back into the repository:
#   - the files the base does not have go to tools/ as they are at HEAD;
#   - every commit after "base" becomes one patch in patches/, in commit
#     order, without the new files it adds: patches/series lists those
#     under the patch.  Its changes to new files that an earlier commit
#     added stay in the patch.
# Usage: writeback.sh [EDIT_DIR [OUT_DIR]]   (defaults: build/edit, the repo)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$(cd "${1:-$BUILD/edit}" && pwd)
out=$(mkdir -p "${2:-$ROOT}" && cd "${2:-$ROOT}" && pwd)
cd "$dir"
[ -z "$(git status --porcelain)" ] || die "$dir has uncommitted changes; commit them first"
git rev-parse -q --verify base >/dev/null || die "$dir has no commit tagged base"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

git ls-tree -r --name-only base | sort > "$tmp/base-files"
git ls-tree -r --name-only HEAD | sort > "$tmp/head-files"
comm -13 "$tmp/base-files" "$tmp/head-files" > "$tmp/new-files"
if grep -v '^tools/' "$tmp/new-files"; then
	die "the files above are new and outside tools/; the series only adds files under tools/"
fi

mkdir -p "$tmp/tools" "$tmp/patches" "$tmp/name"
if [ -s "$tmp/new-files" ]; then
	# shellcheck disable=SC2046
	git archive HEAD $(cat "$tmp/new-files") | tar -x -C "$tmp"
fi

{
	echo "# The series in order: one line per patch of patches/; the indented"
	echo "# lines under a patch name the new files it adds (their final text is"
	echo "# in tools/).  Read by scripts/lib.sh, written by scripts/writeback.sh."
} > "$tmp/patches/series"
n=0
for c in $(git rev-list --reverse base..HEAD); do
	n=$((n + 1))
	# files this commit adds that the base does not have
	git diff-tree --no-commit-id --name-only --diff-filter=A -r "$c" | sort |
		comm -23 - "$tmp/base-files" > "$tmp/added"
	if grep -vxF -f "$tmp/new-files" "$tmp/added"; then
		die "commit $(git log -1 --format=%s "$c") adds the files above, which a later commit removes"
	fi
	rm -f "$tmp/name"/*
	f=$(git format-patch -1 "$c" --zero-commit --no-signature -N \
		--start-number=$n -o "$tmp/name")
	name=$(basename "$f")
	excl=()
	while IFS= read -r a; do
		excl+=(":(exclude)$a")
	done < "$tmp/added"
	{
		sed '/^---$/q' "$f"
		git diff --stat=72 --summary -p "$c^" "$c" -- . "${excl[@]}" | sed '1{/^$/d}'
	} > "$tmp/patches/$name"
	echo "$name" >> "$tmp/patches/series"
	sed 's/^/\t/' "$tmp/added" >> "$tmp/patches/series"
done

rm -rf "$out/tools" "$out/patches"
mkdir -p "$out/patches"
if [ -d "$tmp/tools" ]; then
	cp -R "$tmp/tools" "$out/tools"
fi
cp "$tmp/patches/"* "$out/patches/"
echo "wrote $n patches and $(wc -l < "$tmp/new-files") new files to $out"
