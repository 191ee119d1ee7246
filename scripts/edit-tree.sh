#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make a git work tree of the assembled source for editing:
#   commit "base"     the pinned base (tag: base)
#   commit "overlay"  our new files from tools/ (tag: overlay)
#   one commit per patch in patches/series, applied with git am
# Edit there, commit (fixup the patch a change belongs to, or add a commit
# for a new patch), then run scripts/writeback.sh.
# Usage: edit-tree.sh [--force] [DIR]   (default DIR: build/edit)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

force=0
if [ "${1:-}" = --force ]; then
	force=1
	shift
fi
dir=${1:-$BUILD/edit}

if [ -d "$dir/.git" ] && [ $force = 0 ]; then
	die "$dir exists; write it back first or pass --force to throw it away"
fi
"$ROOT/scripts/fetch-base.sh"

rm -rf "$dir"
mkdir -p "$dir"
cp -a "$(base_dir)/." "$dir/"
cd "$dir"
export GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost
export GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost
git init -q -b work
git config core.autocrlf false
git add -A
git commit -q -m "base: $PACKAGE $(cat "$CACHE/current")"
git tag base
cp -R "$ROOT/tools/." tools/
git add -A
git commit -q --allow-empty -m "overlay: new files from tools/"
git tag overlay
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
# -3: after a move of the pin, a patch whose context changed stops here for
# a three-way merge; resolve it, then "git am --continue" applies the rest.
patches=()
for p in $(series); do
	patches+=("$ROOT/patches/$p")
done
if [ ${#patches[@]} -gt 0 ] &&
   ! git am -q -3 --committer-date-is-author-date "${patches[@]}"; then
	die "a patch did not apply in $dir: resolve it there, run 'git am --continue', then make writeback"
fi
echo "edit tree: $dir ($(git rev-list --count overlay..HEAD) patches on the overlay)"
