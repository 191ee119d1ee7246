#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The initramfs every kernel of 'make kernels' boots (Debian's cloud kernels
# have no 9p): busybox, the perf that make built, coreutils' sleep (libc
# frames with symbols for the off-cpu check), addr2line (for perf report
# -g), the libraries ldd lists for them, and smoke.sh as /init.  Built again
# when perf or the smoke changed; prints its path.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

image=$BUILD/kernels/initramfs.cpio
stage=$BUILD/kernels/root
bins=("$PERF" /usr/bin/sleep "$(command -v addr2line)")
[ -x "$PERF" ] || die "no $PERF: run make first"
for f in "$PERF" "$ROOT/scripts/kernels/smoke.sh" "$0"; do
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
	cp "$ROOT/scripts/kernels/smoke.sh" "$stage/init"
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
