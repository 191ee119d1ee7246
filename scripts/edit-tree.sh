#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make a git tree of the series for editing (scripts/series-tree.sh): commit
# "base" (tag base), then one commit per patch, new files included.  Edit
# there: fix up the commit a change belongs to, or add a commit for a new
# patch (git rebase -i base), then run scripts/writeback.sh.
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
"$ROOT/scripts/series-tree.sh" "$dir"
echo "edit tree: $dir ($(git -C "$dir" rev-list --count base..HEAD) patches on the base)"
