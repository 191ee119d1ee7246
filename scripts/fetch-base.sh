#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the pinned linux-source-6.12 with apt-get download into the cache,
# check its sha256 and extract only what building perf (the base's
# tools/perf/MANIFEST) and checkpatch need.
#
# Debian drops superseded security versions from its archive.  When the pinned
# version is no longer served, the newest linux-source-6.12 on offer is used
# instead, loudly; scripts/move-pin.sh makes that the new pin.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECKPATCH_FILES="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"

extract()
{
	local deb=$1 version=$2 dest tmp top

	dest=$CACHE/base-$version
	tmp=$CACHE/tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp/deb" "$tmp/base"
	dpkg-deb -x "$deb" "$tmp/deb"
	local tarball=$tmp/deb/usr/src/$PACKAGE.tar.xz
	[ -f "$tarball" ] || die "$deb holds no usr/src/$PACKAGE.tar.xz"
	top=$PACKAGE
	tar -xJf "$tarball" -C "$tmp" "$top/tools/perf/MANIFEST"
	# shellcheck disable=SC2046
	tar -xJf "$tarball" -C "$tmp/base" --strip-components=1 --wildcards \
		$(sed "s|^|$top/|" "$tmp/$top/tools/perf/MANIFEST") \
		$(printf "$top/%s " $CHECKPATCH_FILES) "$top/Makefile"
	# perf takes its version from PERF-VERSION-FILE outside a git tree; the
	# top-level Makefile is only read for the version, never run.
	local v p s
	v=$(sed -n 's/^VERSION = //p' "$tmp/base/Makefile")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$tmp/base/Makefile")
	s=$(sed -n 's/^SUBLEVEL = //p' "$tmp/base/Makefile")
	rm "$tmp/base/Makefile"
	echo "#define PERF_VERSION \"$v.$p.$s\"" > "$tmp/base/PERF-VERSION-FILE"
	rm -rf "$dest"
	mv "$tmp/base" "$dest"
	rm -rf "$tmp"
	echo "$version" > "$CACHE/current"
}

download()
{
	local version=$1

	(cd "$CACHE/debs" && apt-get download -q "$PACKAGE=$version" >/dev/null 2>&1)
}

mkdir -p "$CACHE/debs"
deb=$(deb_path "$VERSION")

if [ -f "$CACHE/base-$VERSION/PERF-VERSION-FILE" ]; then
	echo "$VERSION" > "$CACHE/current"
	exit 0
fi

if [ ! -f "$deb" ] && ! download "$VERSION"; then
	# The package lists may be stale or missing on a fresh machine.
	if [ "$(id -u)" = 0 ]; then
		apt-get update -q >/dev/null
	fi
	download "$VERSION" || true
fi

if [ -f "$deb" ]; then
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ "$sum" != "$SHA256" ]; then
		rm -f "$deb"
		die "$PACKAGE $VERSION: sha256 $sum does not match the pin $SHA256"
	fi
	note "extracting $PACKAGE $VERSION (sha256 ok)"
	extract "$deb" "$VERSION"
	exit 0
fi

newest=$(newest_offered)
[ -n "$newest" ] || die "apt offers no $PACKAGE at all (is deb.debian.org/debian-security in sources.list?)"
echo "################################################################" >&2
echo "WARNING: pinned $PACKAGE $VERSION is no longer served; using $newest instead (scripts/move-pin.sh $newest moves the pin)" >&2
echo "################################################################" >&2
if [ -f "$CACHE/base-$newest/PERF-VERSION-FILE" ]; then
	echo "$newest" > "$CACHE/current"
	exit 0
fi
download "$newest" || die "apt-get download $PACKAGE=$newest failed"
extract "$(deb_path "$newest")" "$newest"
