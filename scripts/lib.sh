# SPDX-License-Identifier: GPL-2.0
# Common settings for the scripts: sourced, not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../BASE
. "$ROOT/BASE"

# The base lives outside the source tree; it is shared by every clone.
CACHE=${PERF_SERIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-bpf-series}
BUILD=${PERF_SERIES_BUILD:-$ROOT/build}
SRC=$BUILD/src			# assembled tree: base + tools/ + patches/
OBJ=$BUILD/perf			# out-of-tree objects; the perf binary is $OBJ/perf
PERF=$OBJ/perf
JOBS=${JOBS:-$(($(nproc) + 1))}

die()
{
	echo "$(basename "$0"): $*" >&2
	exit 1
}

note()
{
	echo "$(basename "$0"): $*" >&2
}

# The base version actually in use (the pin, or the fallback fetch-base.sh
# chose and recorded).
base_dir()
{
	local v

	v=$(cat "$CACHE/current" 2>/dev/null) || v=$VERSION
	echo "$CACHE/base-$v"
}

# patches/series: one line per patch of patches/, in order; under a patch,
# indented lines name the new files (tools/...) that patch adds.  tools/
# holds every new file as the whole series leaves it; a later patch that
# changes a new file carries that change in its patches/ file.
SERIES_FILE=${SERIES_FILE:-$ROOT/patches/series}

# series: the patches in order
series()
{
	awk '/^[^#[:space:]]/ { print $1 }' "$SERIES_FILE"
}

# series_new_files [PATCH]: the new files PATCH adds (all, without PATCH)
series_new_files()
{
	awk -v p="${1:-}" '/^[^#[:space:]]/ { cur = $1; next }
		/^[[:space:]]+[^#[:space:]]/ && (p == "" || cur == p) { print $1 }' "$SERIES_FILE"
}

# series_check: every file under tools/ is added by exactly one patch, and
# every file the series names is under tools/
series_check()
{
	local listed present

	listed=$(series_new_files | sort)
	present=$(cd "$ROOT" && find tools -type f | sort)
	[ -z "$(echo "$listed" | uniq -d)" ] ||
		die "patches/series names a new file twice: $(echo "$listed" | uniq -d | tr '\n' ' ')"
	[ "$listed" = "$present" ] ||
		die "patches/series and tools/ disagree: $(diff <(echo "$listed") <(echo "$present") | sed -n 's/^[<>] //p' | tr '\n' ' ')"
}

# git_plain ARGS: git that never finds a repository above the current
# directory (git apply in a build tree inside this repository)
git_plain()
{
	GIT_CEILING_DIRECTORIES=$(dirname "$PWD") git "$@"
}

# The newest version of the base package apt offers.
newest_offered()
{
	apt-cache madison "$PACKAGE" 2>/dev/null | awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }'
}

# Where apt-get download puts the .deb of VERSION in the cache.
deb_path()
{
	echo "$CACHE/debs/${PACKAGE}_${1//:/%3a}_all.deb"
}

# test_number LIST SCRIPT: the number of shell test SCRIPT in the output
# LIST of 'perf test list', found by its description (line 2 of SCRIPT).
test_number()
{
	local desc

	desc=$(sed -n '2s/^# *//p' "$2")
	echo "$1" | awk -F': ' -v d="$desc" '{ sub(/^ +/, "", $1) } $2 == d { print $1; exit }'
}
