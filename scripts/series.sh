#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the series as upstream and distributions take it: one
# git format-patch file per patch of patches/series, each holding the new
# files it adds, and a cover letter (Documentation/cover-letter.txt, with
# the shortlog and diffstat that git adds).
#
# From: and Signed-off-by: are the git config identity (user.name and
# user.email) of whoever runs it; a placeholder identity is refused, since
# the sign-off certifies the Developer's Certificate of Origin.
#
# Usage: series.sh [-v N] [--proof] [OUT_DIR]   (default OUT_DIR: build/series)
#   -v N     version of the posting ([PATCH vN ...])
#   --proof  for the checks of scripts/series-proof.sh and checkpatch.sh:
#            a placeholder identity is replaced by a fixed one, and the
#            output is not meant to be sent
set -euo pipefail
. "$(dirname "$0")/lib.sh"

version="" proof=0
while [ $# -gt 0 ]; do
	case "$1" in
	-v) version=$2; shift 2 ;;
	--proof) proof=1; shift ;;
	-*) die "usage: series.sh [-v N] [--proof] [OUT_DIR]" ;;
	*) break ;;
	esac
done
out=${1:-$BUILD/series}
[ -z "$version" ] || [[ "$version" =~ ^[1-9][0-9]*$ ]] || die "-v takes a version number, not '$version'"

# placeholder NAME EMAIL: why this identity cannot sign off, or nothing
placeholder()
{
	local name=$1 email=$2 domain

	[ -n "$name" ] || { echo "git config user.name is not set"; return; }
	[ -n "$email" ] || { echo "git config user.email is not set"; return; }
	[[ "$email" =~ ^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$ ]] ||
		{ echo "'$email' is not a mail address"; return; }
	domain=${email##*@}
	domain=${domain,,}
	# RFC 2606 and RFC 6761 reserve these names for examples and tests
	case "$domain" in
	example.com | example.net | example.org | *.example.com | *.example.net | *.example.org | \
	*.example | *.invalid | *.localhost | localhost | *.test | *.local | *.localdomain)
		echo "'$email' is a placeholder address ($domain is reserved)"; return ;;
	esac
	case "${name,,}" in
	"your name" | root | base | "perf bpf series")
		echo "'$name' is a placeholder name"; return ;;
	esac
}

name=$(git -C "$ROOT" config user.name || true)
email=$(git -C "$ROOT" config user.email || true)
why=$(placeholder "$name" "$email")
if [ -n "$why" ]; then
	if [ $proof = 0 ]; then
		die "refusing to sign off as a placeholder: $why; set yours with git config user.name/user.email"
	fi
	name="Series Proof" email="series-proof@example.org"
fi

tree=$BUILD/series-tree
[ $proof = 0 ] || tree=$BUILD/series-proof-tree
"$ROOT/scripts/series-tree.sh" "$tree" --author "$name <$email>"

rm -rf "$out"
mkdir -p "$out"
cd "$tree"
n=$(git rev-list --count base..HEAD)
git -c user.name="$name" -c user.email="$email" format-patch -q \
	--cover-letter ${version:+-v "$version"} --zero-commit -o "$out" base..HEAD
# the cover letter: our subject and text instead of git's placeholders
cover=$(ls "$out"/*0000-cover-letter.patch)
subject=$(sed -n '1p' "$ROOT/Documentation/cover-letter.txt")
sed -n '3,$p' "$ROOT/Documentation/cover-letter.txt" |
	sed -e "s|@BASE@|$PACKAGE $(cat "$CACHE/current")|" > "$tree/.cover-body"
awk -v subj="$subject" -v body="$tree/.cover-body" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < body) > 0) print l; next }
	{ print }' "$cover" > "$cover.new"
mv "$cover.new" "$cover"
rm -f "$tree/.cover-body"
echo "wrote $n patches and a cover letter to $out (From: $name <$email>)"
