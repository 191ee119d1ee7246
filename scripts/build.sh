#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Assemble the build tree and build perf from it, out of tree, with BPF
# skeletons; the perf binary is $BUILD/perf/perf.
#
# The build tree is the pinned base, the new files of tools/ on top, then
# the patches' changes to the base's files, in series order (their changes
# to new files are already in tools/).  It is synced into $SRC by content,
# so files that did not change keep their time stamps and an incremental
# build recompiles only what changed.
#
# Usage: build.sh [--assemble]   (--assemble: the tree only, no build)
#        build.sh --install PREFIX   build, then perf's own 'make install'
#                                    with prefix=PREFIX
#        SERIES=none build.sh    the unpatched base (scripts/regression.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

assemble()
{
	local stage=$BUILD/stage patches="" excl=() f p out

	"$ROOT/scripts/base.sh"
	rm -rf "$stage"
	mkdir -p "$BUILD"
	cp -a "$(base_dir)" "$stage"
	if [ "${SERIES:-all}" != none ]; then
		series_check
		copy_new_files "$stage"
		patches=$(series)
	fi
	for f in $(series_new_files); do
		excl+=(--exclude="$f")
	done
	cd "$stage"
	for p in $patches; do
		f=$SDIR/patches/$p
		[ -f "$f" ] || die "patches/series names $p, which does not exist"
		grep -q '^diff --git ' "$f" || continue
		# git apply takes no fuzz: a hunk whose context moved fails
		if ! out=$(git_plain apply --check "${excl[@]}" "$f" 2>&1); then
			echo "$out" >&2
			die "patches/$p does not apply; rejected: $(echo "$out" |
				sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p' | sort -u | tr '\n' ' ')"
		fi
		git_plain apply "${excl[@]}" "$f"
	done
	cd - >/dev/null
	mkdir -p "$SRC"
	rsync -rlp --checksum --delete "$stage/" "$SRC/"
	rm -rf "$stage"
}

deps build
assemble
[ "${1:-}" != --assemble ] || exit 0

mkdir -p "$OBJ"
log=$BUILD/build.log
# perf's Makefile turns features off with a warning when a dependency is
# missing; for this series that would silently remove every feature, so
# such warnings stop the build.
{
	make -C "$SRC/tools/perf" O="$OBJ" -j"$JOBS" "${PERF_MAKE[@]}" 2>&1
	echo $? > "$BUILD/make.rc"
} | tee "$log" |
	grep -E --line-buffered '^(  (CC|LD|LINK|CLANG|GENSKEL)|.*(error|Error|warning:))' |
	grep -v -e '/bpf_skel/vmlinux' -e '/libbpf/' -e '/libperf/' -e '/libsubcmd/' \
		-e '/libapi/' -e '/libsymbol/' -e '/bpftool/' || true
rc=$(cat "$BUILD/make.rc")
[ "$rc" = 0 ] || die "make failed (exit $rc), full log in $log"

if reason=$(grep -E 'Disabled BPF skeletons|libtraceevent is missing|No libtraceevent|BPF skeletons? (is|are) disabled' "$log"); then
	die "the build turned off a feature the series needs: $reason"
fi
opts=$("$PERF" version --build-options)
# here-strings, not echo | grep -q: grep -q exits at the first match, and
# with pipefail the SIGPIPE echo may get then fails the check
for key in $BUILD_OPTIONS; do
	# the unpatched base has no line for a build option the series adds
	if [ "${SERIES:-all}" = none ] && ! grep -Eq "^ *$key:" <<< "$opts"; then
		continue
	fi
	grep -Eq "^ *$key: \[ on  \]" <<< "$opts" ||
		die "perf was built without $key: $(grep -E "^ *$key:" <<< "$opts" || echo missing)"
done
echo "built $PERF ($("$PERF" version), base $PACKAGE $(current_version))"
[ "${1:-}" = --install ] || exit 0

# the same make flags as the build, so that install builds nothing
prefix=$(realpath -m "${2:?build.sh --install PREFIX}")
make -C "$SRC/tools/perf" O="$OBJ" -j"$JOBS" "${PERF_MAKE[@]}" prefix="$prefix" install \
	> "$BUILD/install.log" 2>&1 || die "make install failed, full log in $BUILD/install.log"
echo "installed $prefix/bin/perf ($("$prefix/bin/perf" version))"
