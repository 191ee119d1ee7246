# SPDX-License-Identifier: GPL-2.0
# Common settings for the scripts: sourced, not run.
#
# The repository holds one series directory, its top: BASE (the pin),
# tools/ (the files the series adds), patches/ (its changes to upstream
# files, in patches/series order), cover/ and ci/.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SDIR=$ROOT
# shellcheck source=../BASE
. "$SDIR/BASE"

# The bases live outside the source tree; they are shared by every clone.
CACHE=${PERF_SERIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-bpf-series}
BUILD=${PERF_SERIES_BUILD:-$ROOT/build}
SRC=$BUILD/src			# assembled tree: base + tools/ + patches/
OBJ=$BUILD/perf			# out-of-tree objects; the perf binary is $OBJ/perf
PERF=$OBJ/perf
JOBS=${JOBS:-$(($(nproc) + 1))}
# perf's make flags for this base (BASE: PERF_MAKEFLAGS)
PERF_MAKE=(BUILD_BPF_SKEL=1 PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config
	   ${PERF_MAKEFLAGS:-})

die()
{
	echo "$(basename "$0"): $*" >&2
	exit 1
}

note()
{
	echo "$(basename "$0"): $*" >&2
}

# The base version in use: the pin, or the fallback fetch_base chose.
current_version()
{
	cat "$CACHE/current-$PACKAGE" 2>/dev/null || echo "$VERSION"
}

base_dir()
{
	echo "$CACHE/base-$(current_version)"
}

# patches/series: the patches in order, under each the new files it adds;
# "# series: NAME" starts a posted series (Documentation/design.md)
SERIES_FILE=${SERIES_FILE:-$SDIR/patches/series}

# series: the patches in order
series()
{
	awk '/^[^#[:space:]]/ { print $1 }' "$SERIES_FILE"
}

# series_names: the posted series, in order, and the number of patches
# before each ("NAME FIRST COUNT")
series_names()
{
	awk '/^# series: / { if (name != "") print name, first, n - first; name = $3; first = n + 0; next }
		/^[^#[:space:]]/ { n++ }
		END { if (name == "") name = "all"; print name, first + 0, n - first }' "$SERIES_FILE"
}

# series_new_files [PATCH]: the new files PATCH adds (all, without PATCH)
series_new_files()
{
	awk -v p="${1:-}" '/^[^#[:space:]]/ { cur = $1; next }
		/^[[:space:]]+[^#[:space:]]/ && (p == "" || cur == p) { print $1 }' "$SERIES_FILE"
}

# copy_new_files DIR: every new file of the series into DIR
copy_new_files()
{
	local f

	for f in $(series_new_files); do
		mkdir -p "$1/$(dirname "$f")"
		cp -p "$SDIR/$f" "$1/$f"
	done
}

# series_shell_tests: the shell tests the series adds (tools/perf/...)
series_shell_tests()
{
	series_new_files | grep '^tools/perf/tests/shell/[^/]*\.sh$' || true
}

# series_check: every file under tools/ is added by exactly one patch, and
# every file the series names is under tools/
series_check()
{
	local listed present f

	listed=$(series_new_files | sort)
	present=$(cd "$SDIR" && { find tools -type f 2>/dev/null || true; } | sort)
	[ -z "$(echo "$listed" | uniq -d)" ] ||
		die "patches/series names a new file twice: $(echo "$listed" | uniq -d | tr '\n' ' ')"
	f=$(comm -13 <(echo "$listed") <(echo "$present") | tr '\n' ' ')
	[ -z "${f// /}" ] || die "files under tools/ that patches/series does not name: $f"
	for f in $listed; do
		[ -f "$SDIR/$f" ] || die "patches/series names $f, which is not under tools/"
	done
}

# git_plain ARGS: git that never finds a repository above the current
# directory (git apply in a build tree inside this repository)
git_plain()
{
	GIT_CEILING_DIRECTORIES=$(dirname "$PWD") git "$@"
}

# git_base DIR [GITDIR [FROM]]: DIR holds the pristine base (or the tree
# FROM) as the commit "base: ..." (tag base, fixed identity and date), every file
# of it tracked, ignored ones too.  DIR is synced to the base by content:
# files that already match keep their time stamps, so an incremental
# build in DIR recompiles only what differs.  With GITDIR the repository
# lives there, outside DIR, whose perf then reports the base's version
# (PERF-VERSION-GEN adds the commit when it finds ../../.git).
git_base()
{
	local dir=$1 gitdir=${2:-$1/.git} from=${3:-$(base_dir)} what
	local g=(git -C "$dir" --git-dir="$gitdir" --work-tree="$dir")

	what="$PACKAGE $(current_version)"
	[ "$from" = "$(base_dir)" ] || what=$(basename "$from")
	mkdir -p "$dir"
	rsync -rlp --checksum --delete --exclude=/.git "$from/" "$dir/"
	rm -rf "$gitdir"
	if [ "$gitdir" = "$dir/.git" ]; then
		git init -q -b work "$dir"
	else
		"${g[@]}" init -q -b work
	fi
	"${g[@]}" config core.autocrlf false
	"${g[@]}" config am.keepcr false
	"${g[@]}" add -Af .
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost GIT_AUTHOR_DATE="@0 +0000" \
	GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost GIT_COMMITTER_DATE="@0 +0000" \
		"${g[@]}" commit -q -m "base: $what"
	"${g[@]}" tag base
}

# apt_suite ARGS: apt-get or apt-cache (first word of ARGS) on a private
# package list of SUITE alone, so that a base from another Debian suite is
# downloaded without touching the machine's apt sources.  Without SUITE:
# the machine's own apt.
apt_suite()
{
	local tool=$1 dir=$CACHE/apt-${SUITE:-}

	shift
	if [ -z "${SUITE:-}" ]; then
		"$tool" "$@"
		return
	fi
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" \
		> "$dir/sources.list"
	"$tool" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" "$@"
}

# newest_offered [PACKAGE]: the newest version apt offers
newest_offered()
{
	apt_suite apt-cache madison "${1:-$PACKAGE}" 2>/dev/null |
		awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }'
}

# Where apt-get download puts the .deb of VERSION of PACKAGE in the cache.
deb_path()
{
	echo "$CACHE/debs/${2:-$PACKAGE}_${1//:/%3a}_all.deb"
}

# test_number LIST SCRIPT: the number of shell test SCRIPT in the output
# LIST of 'perf test list', found by its description (line 2 of SCRIPT).
test_number()
{
	local desc

	desc=$(sed -n '2{s/^# *//;s/ *(exclusive)$//;p}' "$2")
	echo "$1" | awk -F': ' -v d="$desc" '{ sub(/^ +/, "", $1); sub(/ *\(exclusive\)$/, "", $2) }
		$2 == d { print $1; exit }'
}

# Debian packages per step, plus the base's own (BASE: DEPS_BUILD).
# gcc-multilib builds the 32-bit syscall test program; bpftool counts
# bperf objects; golang-go's 'go tool pprof' reads what --to-pprof writes.
pkgs_build="gcc make git patch rsync xz-utils bc flex bison pkg-config clang llvm
	libelf-dev libdw-dev libtraceevent-dev libtracefs-dev libcap-dev libzstd-dev
	liblzma-dev zlib1g-dev libslang2-dev libperl-dev python3-dev python3-setuptools
	libunwind-dev libnuma-dev libssl-dev libpfm4-dev systemtap-sdt-dev ${DEPS_BUILD:-}"
pkgs_test="gcc-multilib strace util-linux procps psmisc python3 file bpftool golang-go"
pkgs_bench="bpftrace strace python3-matplotlib bpftool util-linux"
pkgs_kernels="qemu-system-x86 busybox-static binutils"

# deps GROUP...: install the Debian packages of the groups (as root), or
# name them and fail (not root)
deps()
{
	local group v p want="" missing=""

	for group in "$@"; do
		v=pkgs_$group
		[ -n "${!v:-}" ] || die "unknown dependency group '$group'"
		want="$want ${!v}"
	done
	for p in $want; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	[ "$(id -u)" = 0 ] || die "missing Debian packages, install them as root: apt-get install$missing"
	note "installing$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
}

# mount_fs: the pseudo file systems perf's BPF features and tests need
mount_fs()
{
	local m type dir

	for m in bpf:/sys/fs/bpf debugfs:/sys/kernel/debug tracefs:/sys/kernel/tracing; do
		type=${m%%:*} dir=${m#*:}
		grep -q " $dir $type " /proc/mounts && continue
		if [ "$(id -u)" != 0 ]; then
			note "$type is not mounted at $dir (as root: mount -t $type $type $dir)"
			continue
		fi
		mkdir -p "$dir" && mount -t "$type" "$type" "$dir" ||
			note "could not mount $type at $dir"
	done
	# tools that still look for tracefs under debugfs
	if [ -d /sys/kernel/debug/tracing ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
		mount -t tracefs tracefs /sys/kernel/debug/tracing 2>/dev/null || true
	fi
	return 0
}
