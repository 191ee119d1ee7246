#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build perf from base + series, out of tree, with BPF skeletons.  The perf
# binary is $BUILD/perf/perf.  Idempotent: a second run rebuilds only what
# tools/ or patches/ changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/deps.sh" build
"$ROOT/scripts/assemble.sh"

mkdir -p "$OBJ"
log=$BUILD/build.log
# perf's Makefile turns features off with a warning when a dependency is
# missing; for this series that would silently remove every feature, so
# such warnings stop the build.
{
	# Debian's python3, not whatever python3 comes first in PATH
	make -C "$SRC/tools/perf" O="$OBJ" BUILD_BPF_SKEL=1 -j"$JOBS" \
		PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config 2>&1
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
for f in bpf_skeletons:bpf_skeletons libtraceevent:libtraceevent libbpf:bpf \
	libprotobuf-c:libprotobuf-c; do
	name=${f%%:*}
	key=${f#*:}
	if ! grep -Eq "^ *$key: \[ on  \]" <<< "$opts"; then
		die "perf was built without $name: $(grep -E "^ *$key:" <<< "$opts" || echo missing)"
	fi
done
echo "built $PERF ($("$PERF" version))"
