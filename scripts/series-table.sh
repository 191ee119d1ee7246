#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the series as MAINTAINERS-notes lists it: per patch its subject, the
# lines it changes in files upstream has (+/-) and in the new files it adds
# or changes, and the largest change to an upstream file, which review asks
# to keep under about 400 lines.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$BUILD/series-table-tree
"$ROOT/scripts/series-tree.sh" "$tree" >/dev/null
cd "$tree"
git ls-tree -r --name-only base | sort > "$tree/.git/base-files"
n=0
printf '%-4s %7s %7s  %s\n' nr base new subject
for c in $(git rev-list --reverse base..HEAD); do
	n=$((n + 1))
	git diff --numstat "$c^" "$c" | awk -v bf="$tree/.git/base-files" '
		BEGIN { while ((getline f < bf) > 0) base[f] = 1 }
		{ if ($3 in base) b += $1 + $2; else nw += $1 + $2 }
		END { printf "%d %d\n", b, nw }' > "$tree/.git/sizes"
	read -r b nw < "$tree/.git/sizes"
	printf '%04d %7d %7d  %s\n' $n "$b" "$nw" "$(git log -1 --format=%s "$c")"
done
rm -rf "$tree"
