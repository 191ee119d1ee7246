#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the base's scripts/checkpatch.pl --strict over every patch of the
# series as exported for posting (scripts/series.sh --proof): the changes
# to upstream files, the new files each patch adds, the commit messages
# and their Signed-off-by.  Errors fail; warnings and checks are listed,
# to be answered in the commit message.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/fetch-base.sh" || exit 1
cp=$(base_dir)/scripts/checkpatch.pl
# checkpatch.pl reads spelling.txt and const_structs.checkpatch next to it
opts=(--strict --no-tree --show-types --color=never
      --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG)

errors=0 warnings=0 checks=0
run()
{
	local what=$1 out e w c

	shift
	out=$(perl "$cp" "${opts[@]}" "$@" 2>&1)
	read -r e w c < <(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p;s/^total: \([0-9]*\) errors, \([0-9]*\) warnings,.*/\1 \2 0/p' | tail -1)
	e=${e:-1} w=${w:-0} c=${c:-0}
	errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
	if [ "$e$w$c" != 000 ]; then
		echo "== $what: $e errors, $w warnings, $c checks"
		echo "$out" | grep -E -A4 '^(ERROR|WARNING|CHECK):' | sed 's/^/   /'
	else
		echo "ok $what"
	fi
}

out=$BUILD/series-checkpatch
"$ROOT/scripts/series.sh" --proof "$out" >/dev/null || exit 1
for p in "$out"/*.patch; do
	case "$p" in *-cover-letter.patch) continue ;; esac
	run "$(basename "$p")" "$p"
done

echo "checkpatch: $errors errors, $warnings warnings, $checks checks"
[ "$errors" = 0 ]
