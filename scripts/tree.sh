#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as a git tree, and back: the edit loop.
#
#   tree.sh make DIR [--author "Name <email>"]
#       commit "base" (tag base) holds the pinned base, then one commit per
#       patch of patches/series, each holding the new files that patch
#       adds, as the series had them at that point; with --author every
#       commit is made and signed off by that identity (series.sh)
#   tree.sh edit [--force] [DIR]        the same, to edit (default build/edit)
#   tree.sh writeback [DIR [OUT]]       write DIR (default build/edit) back
#       into tools/ and patches/ of the series directory (or OUT)
#   tree.sh roundtrip                   prove make + writeback is exact
#
# tools/ only has the new files as the whole series leaves them, so their
# earlier states are found by going back from the end: the changes a later
# patch makes to a new file are in its patches/ file, and are undone, last
# patch first, until the patch that adds the file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

make_tree()
{
	local dir=$1 author="" tmp k p f patches incl name email subject date

	shift
	if [ "${1:-}" = --author ]; then
		author=$2
		shift 2
	fi
	[ $# = 0 ] || die "usage: tree.sh make DIR [--author \"Name <email>\"]"
	"$ROOT/scripts/base.sh"
	series_check

	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	# Going back: $tmp/new holds the new files as they are after patch k;
	# the files patch k adds are saved in $tmp/add/k before its changes to
	# earlier new files are undone.
	patches=($(series))
	mkdir -p "$tmp/new/tools"
	copy_new_files "$tmp/new"
	incl=()
	for f in $(series_new_files); do
		incl+=(--include="$f")
	done
	for ((k = ${#patches[@]} - 1; k >= 0; k--)); do
		p=${patches[k]}
		mkdir -p "$tmp/add/$k"
		for f in $(series_new_files "$p"); do
			mkdir -p "$tmp/add/$k/$(dirname "$f")"
			mv "$tmp/new/$f" "$tmp/add/$k/$f"
		done
		if grep -q '^diff --git ' "$SDIR/patches/$p"; then
			(cd "$tmp/new" && git_plain apply -R "${incl[@]}" "$SDIR/patches/$p") ||
				die "patches/$p: its changes to new files do not undo from tools/"
		fi
	done
	f=$(cd "$tmp/new" && find . -type f | sed 's|^\./||')
	[ -z "$f" ] || die "new files no patch adds: $f"

	rm -rf "$dir"
	git_base "$dir"
	cd "$dir"

	# Going forward: apply each patch (upstream files and earlier new
	# files), add its new files, and make it one commit.
	for ((k = 0; k < ${#patches[@]}; k++)); do
		p=${patches[k]}
		git mailinfo -b "$tmp/msg" "$tmp/diff" < "$SDIR/patches/$p" > "$tmp/info"
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
		# a patch that only adds new files has no diff here
		if grep -q '^diff --git ' "$tmp/diff"; then
			git apply --index "$tmp/diff" || die "patches/$p does not apply at its place in the series"
		fi
		if [ -n "$(ls -A "$tmp/add/$k")" ]; then
			cp -R "$tmp/add/$k/." .
			git add -- $(series_new_files "$p")
		fi
		# A note for the reviewers goes below a "---" that ends the
		# commit log, as in a posted patch (git am drops it): the lines
		# from the first "---" of the patch file to the last one before
		# its diff.  git mailinfo leaves it out of the message.
		awk '/^---$/ { if (first) last = NR; else first = last = NR } /^diff --git / { exit }
			{ l[NR] = $0 } END { for (i = first; i < last; i++) print l[i] }' \
			"$SDIR/patches/$p" > "$tmp/note"
		# the sign-off joins the trailers (Fixes:, Cc:) where there are
		if [ -n "$author" ]; then
			git interpret-trailers --in-place \
				--trailer "Signed-off-by: $name <$email>" "$tmp/msg"
		fi
		{
			echo "$subject"
			echo
			cat "$tmp/msg"
			cat "$tmp/note"
		} | GIT_COMMITTER_DATE="$date" git -c user.name="$name" -c user.email="$email" \
			commit -q --cleanup=whitespace --allow-empty -F - \
			--author="$name <$email>" --date="$date"
	done
	[ -z "$(git status --porcelain)" ] || die "the series left files no patch accounts for in $dir"
}

# writeback DIR OUT: the files the base does not have go to OUT/tools as
# they are at HEAD; every commit after "base" becomes one patch in
# OUT/patches, in commit order, without the new files it adds:
# patches/series lists those under the patch.  Its changes to new files
# that an earlier commit added stay in the patch.  "# series:" lines of
# the old patches/series are kept before the patch they stood before.
writeback()
{
	local dir out tmp n c f name a excl

	dir=$(cd "$1" && pwd)
	out=$(mkdir -p "$2" && cd "$2" && pwd)
	cd "$dir"
	[ -z "$(git status --porcelain)" ] || die "$dir has uncommitted changes; commit them first"
	git rev-parse -q --verify base >/dev/null || die "$dir has no commit tagged base"
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT

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
	# the "# series:" markers, each by the patch it precedes (less its number)
	awk '/^# series: / { m = $0; next }
		/^[^#[:space:]]/ && m != "" { p = $1; sub(/^[0-9]+-/, "", p); print p "\t" m; m = "" }' \
		"$SERIES_FILE" > "$tmp/markers"
	# the comment at the top of patches/series
	awk '/^# series: / || !/^#/ { exit } { print }' "$SERIES_FILE" > "$tmp/patches/series"
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
			# the message, up to the "---" format-patch puts before
			# the diffstat (a "---" of the message itself is kept)
			awk '/^---$/ { last = NR } { l[NR] = $0 } /^diff --git / { exit }
				END { for (i = 1; i <= last; i++) print l[i] }' "$f"
			git -c core.abbrev=12 diff --stat=72 --summary -p "$c^" "$c" -- . "${excl[@]}" | sed '1{/^$/d}'
		} > "$tmp/patches/$name"
		awk -F'\t' -v s="${name#[0-9][0-9][0-9][0-9]-}" '$1 == s { print $2 }' \
			"$tmp/markers" >> "$tmp/patches/series"
		echo "$name" >> "$tmp/patches/series"
		sed 's/^/\t/' "$tmp/added" >> "$tmp/patches/series"
	done
	rm -rf "$out/tools" "$out/patches"
	mkdir -p "$out/patches"
	[ ! -d "$tmp/tools" ] || cp -R "$tmp/tools" "$out/tools"
	cp "$tmp/patches/"* "$out/patches/"
	echo "wrote $n patches and $(wc -l < "$tmp/new-files") new files to $out"
}

roundtrip()
{
	local tmp

	tmp=$(mktemp -d)
	make_tree "$tmp/edit" >/dev/null
	(writeback "$tmp/edit" "$tmp/out") >/dev/null
	mkdir -p "$tmp/orig"
	cp -R "$SDIR/patches" "$tmp/orig/"
	[ ! -d "$SDIR/tools" ] || cp -R "$SDIR/tools" "$tmp/orig/"
	if ! diff -r "$tmp/orig" "$tmp/out" > "$tmp/diff"; then
		cat "$tmp/diff" >&2
		rm -rf "$tmp"
		die "FAILED: make + write back changes the series (diff above)"
	fi
	echo "roundtrip: ok ($(series | wc -l) patches, $(series_new_files | wc -l) new files)"
	rm -rf "$tmp"
}

cmd=${1:-}
shift || true
case "$cmd" in
make) make_tree "$@" ;;
edit)
	force=0
	if [ "${1:-}" = --force ]; then
		force=1
		shift
	fi
	dir=${1:-$BUILD/edit}
	[ ! -d "$dir/.git" ] || [ $force = 1 ] ||
		die "$dir exists; write it back first or pass --force to throw it away"
	make_tree "$dir"
	echo "edit tree: $dir ($(git -C "$dir" rev-list --count base..HEAD) patches on the base)" ;;
writeback)
	writeback "${1:-$BUILD/edit}" "${2:-$SDIR}" ;;
roundtrip) roundtrip ;;
*) die "usage: tree.sh make DIR [--author ID] | edit [--force] [DIR] | writeback [DIR [OUT]] | roundtrip" ;;
esac
