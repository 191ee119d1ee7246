#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make a git tree of the series: commit "base" (tag base) holds the pinned
# base, then one commit per patch of patches/series, each holding the new
# files that patch adds, as the series had them at that point.
#
# tools/ only has the new files as the whole series leaves them, so their
# earlier states are found by going back from the end: the changes a later
# patch makes to a new file are in its patches/ file, and are undone, last
# patch first, until the patch that adds the file.
#
# Usage: series-tree.sh DIR [--author "Name <email>"]
#   --author  make every commit with this author and committer, signed off
#             by them (scripts/series.sh); otherwise the patches' own
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$1
shift
author=""
if [ "${1:-}" = --author ]; then
	author=$2
	shift 2
fi
[ $# = 0 ] || die "usage: series-tree.sh DIR [--author \"Name <email>\"]"

"$ROOT/scripts/fetch-base.sh"
series_check

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Going back: $tmp/new holds the new files as they are after patch k; the
# files patch k adds are saved in $tmp/add/k before its changes to earlier
# new files are undone.
patches=($(series))
mkdir -p "$tmp/new"
cp -R "$ROOT/tools" "$tmp/new/"
for ((k = ${#patches[@]} - 1; k >= 0; k--)); do
	p=${patches[k]}
	mkdir -p "$tmp/add/$k"
	for f in $(series_new_files "$p"); do
		mkdir -p "$tmp/add/$k/$(dirname "$f")"
		mv "$tmp/new/$f" "$tmp/add/$k/$f"
	done
	incl=()
	for f in $(series_new_files); do
		incl+=(--include="$f")
	done
	if grep -q '^diff --git ' "$ROOT/patches/$p"; then
		(cd "$tmp/new" && git_plain apply -R "${incl[@]}" "$ROOT/patches/$p") ||
			die "patches/$p: its changes to new files do not undo from tools/"
	fi
done
left=$(cd "$tmp/new" && find . -type f | sed 's|^\./||')
[ -z "$left" ] || die "new files no patch adds: $left"

rm -rf "$dir"
mkdir -p "$dir"
cp -a "$(base_dir)/." "$dir/"
cd "$dir"
git init -q -b work
git config core.autocrlf false
git config am.keepcr false
export GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost
export GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost
export GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000"
git add -A
git commit -q -m "base: $PACKAGE $(cat "$CACHE/current")"
git tag base
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
unset GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# Going forward: apply each patch (upstream files and earlier new files),
# add its new files, and make it one commit.
for ((k = 0; k < ${#patches[@]}; k++)); do
	p=${patches[k]}
	git mailinfo -b "$tmp/msg" "$tmp/diff" < "$ROOT/patches/$p" > "$tmp/info"
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	date=$(sed -n 's/^Date: //p' "$tmp/info")
	if [ -n "$author" ]; then
		name=${author% <*}
		email=${author##*<}
		email=${email%>}
	else
		name=$(sed -n 's/^Author: //p' "$tmp/info")
		email=$(sed -n 's/^Email: //p' "$tmp/info")
	fi
	[ -n "$subject" ] && [ -n "$name" ] || die "patches/$p has no Subject: or From: line"
	if [ -s "$tmp/diff" ]; then
		git apply --index "$tmp/diff" || die "patches/$p does not apply at its place in the series"
	fi
	if [ -n "$(ls -A "$tmp/add/$k")" ]; then
		cp -R "$tmp/add/$k/." .
		git add -- $(series_new_files "$p")
	fi
	{
		echo "$subject"
		echo
		cat "$tmp/msg"
		if [ -n "$author" ]; then
			echo
			echo "Signed-off-by: $name <$email>"
		fi
	} | GIT_COMMITTER_DATE="$date" git -c user.name="$name" -c user.email="$email" \
		commit -q --cleanup=whitespace --allow-empty -F - \
		--author="$name <$email>" --date="$date"
done
[ -z "$(git status --porcelain)" ] || die "the series left files no patch accounts for in $dir"
