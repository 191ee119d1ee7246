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

series()
{
	grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/patches/series"
}
