#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The initramfs every kernel of 'make kernels' boots (Debian's cloud kernels
# have no 9p): busybox, the perf that make built, coreutils' sleep (libc
# frames with symbols for the off-cpu check), addr2line (for perf report
# -g), the libraries ldd lists for them, and smoke.sh as /init.  Built again
# when perf or the smoke changed; prints its path.
#
# KERNELS_INIT=bperf-bench: scripts/kernels/bperf-bench.sh as /init, with
# the base's perf as perf-base (built first: scripts/bench/stat-bpf-counters.sh)
# and bpftool.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

init=${KERNELS_INIT:-smoke}
image=$BUILD/kernels/initramfs-$init.cpio
stage=$BUILD/kernels/root
bins=("$PERF" /usr/bin/sleep "$(command -v addr2line)")
[ -x "$PERF" ] || die "no $PERF: run make first"
[ -f "$ROOT/scripts/kernels/$init.sh" ] || die "no scripts/kernels/$init.sh"
base_perf=$ROOT/build/unpatched/perf/perf
if [ "$init" = bperf-bench ]; then
	[ -x "$base_perf" ] || die "no $base_perf: SERIES=none PERF_SERIES_BUILD=build/unpatched scripts/build.sh"
	bins+=("$(command -v bpftool)")
fi
for f in "$PERF" "$ROOT/scripts/kernels/$init.sh" "$0"; do
	[ "$image" -nt "$f" ] || rm -f "$image"
done
if [ ! -f "$image" ]; then
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,usr/bin,dev,proc,sys,tmp,root}
	cp /bin/busybox "$stage/bin/"
	for applet in $(busybox --list | grep -vx busybox); do
		ln -s busybox "$stage/bin/$applet"
	done
	cp "${bins[@]}" "$stage/usr/bin/"
	[ "$init" != bperf-bench ] || cp "$base_perf" "$stage/usr/bin/perf-base"
	cp "$ROOT/scripts/kernels/$init.sh" "$stage/init"
	# each library at the path ldd gives, the loader included
	for f in $(ldd "${bins[@]}" | grep -o '/[^ ]*[^:]\( \|$\)' | sort -u); do
		cp -L --parents "$f" "$stage"
	done
	# uncompressed: decompressing would cost the guest seconds under TCG
	(cd "$stage" && find . | busybox cpio -o -H newc 2>/dev/null) > "$image.tmp"
	mv "$image.tmp" "$image"
	rm -rf "$stage"
	note "built $image ($(du -m "$image" | cut -f1) MB)"
fi
echo "$image"
