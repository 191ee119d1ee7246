#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The pinned base of a series (its BASE file): Debian's linux-source
# package of that version, downloaded with apt-get from the suite BASE
# names (a private package list of that suite alone, never the machine's
# sources), checked against its sha256 and kept in the cache, then only
# what building perf (the base's tools/perf/MANIFEST) and checkpatch need
# extracted.
#
#   base.sh [fetch]        the pinned base; when the suite no longer serves
#                          it and the cache has no verified copy, the newest
#                          version on offer is used instead, saying so in
#                          one line
#   base.sh move [VERSION] move the pin to VERSION (default: the newest on
#                          offer) and check that the series still assembles
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECKPATCH_FILES="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"

# extract DEB PACKAGE DEST: the MANIFEST paths, checkpatch and a
# PERF-VERSION-FILE (perf takes its version from it outside a git tree)
extract()
{
	local deb=$1 package=$2 dest=$3 tmp=$CACHE/tmp.$$ top=$2 v p s

	rm -rf "$tmp"
	mkdir -p "$tmp/deb" "$tmp/base"
	dpkg-deb -x "$deb" "$tmp/deb"
	local tarball=$tmp/deb/usr/src/$package.tar.xz
	[ -f "$tarball" ] || die "$deb holds no usr/src/$package.tar.xz"
	tar -xJf "$tarball" -C "$tmp" "$top/tools/perf/MANIFEST"
	# shellcheck disable=SC2046
	tar -xJf "$tarball" -C "$tmp/base" --strip-components=1 --wildcards \
		$(sed "s|^|$top/|" "$tmp/$top/tools/perf/MANIFEST") \
		$(printf "$top/%s " $CHECKPATCH_FILES) "$top/Makefile"
	# the top-level Makefile is only read for the version, never run
	v=$(sed -n 's/^VERSION = //p' "$tmp/base/Makefile")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$tmp/base/Makefile")
	s=$(sed -n 's/^SUBLEVEL = //p' "$tmp/base/Makefile")
	rm "$tmp/base/Makefile"
	echo "#define PERF_VERSION \"$v.$p.$s\"" > "$tmp/base/PERF-VERSION-FILE"
	rm -rf "$dest"
	mv "$tmp/base" "$dest"
	rm -rf "$tmp"
}

# download PACKAGE VERSION: into the cache, the package list refreshed
# once when the version is not found
download()
{
	local package=$1 version=$2

	[ -f "$(deb_path "$version" "$package")" ] && return 0
	mkdir -p "$CACHE/debs"
	(cd "$CACHE/debs" && apt_suite apt-get download -q "$package=$version" >/dev/null 2>&1) && return 0
	if [ -n "${SUITE:-}" ] || [ "$(id -u)" = 0 ]; then
		apt_suite apt-get update -q >/dev/null 2>&1 || true
	fi
	(cd "$CACHE/debs" && apt_suite apt-get download -q "$package=$version" >/dev/null 2>&1)
}

fetch()
{
	local deb sum newest

	if [ -f "$CACHE/base-$VERSION/PERF-VERSION-FILE" ]; then
		echo "$VERSION" > "$CACHE/current-$PACKAGE"
		return 0
	fi
	deb=$(deb_path "$VERSION")
	if download "$PACKAGE" "$VERSION"; then
		sum=$(sha256sum "$deb" | cut -d' ' -f1)
		if [ "$sum" != "$SHA256" ]; then
			rm -f "$deb"
			die "$PACKAGE $VERSION: sha256 $sum does not match the pin $SHA256"
		fi
		note "extracting $PACKAGE $VERSION (sha256 ok)"
		extract "$deb" "$PACKAGE" "$CACHE/base-$VERSION"
		echo "$VERSION" > "$CACHE/current-$PACKAGE"
		return 0
	fi
	newest=$(newest_offered)
	[ -n "$newest" ] || die "Debian ${SUITE:-bookworm} offers no $PACKAGE at all"
	echo "WARNING: $PACKAGE $VERSION is no longer served and not in $CACHE/debs; using $newest (make move-pin moves the pin)" >&2
	if [ ! -f "$CACHE/base-$newest/PERF-VERSION-FILE" ]; then
		download "$PACKAGE" "$newest" || die "apt-get download $PACKAGE=$newest failed"
		extract "$(deb_path "$newest")" "$PACKAGE" "$CACHE/base-$newest"
	fi
	echo "$newest" > "$CACHE/current-$PACKAGE"
}

move()
{
	local new sum

	apt_suite apt-get update -q >/dev/null 2>&1 || true
	new=${1:-$(newest_offered)}
	[ -n "$new" ] || die "Debian ${SUITE:-} offers no $PACKAGE"
	download "$PACKAGE" "$new" || die "apt-get download $PACKAGE=$new failed"
	sum=$(sha256sum "$(deb_path "$new")" | cut -d' ' -f1)
	sed -i -e "s/^VERSION=.*/VERSION=$new/" -e "s/^SHA256=.*/SHA256=$sum/" "$SDIR/BASE"
	echo "$SDIR/BASE now pins $PACKAGE $new ($sum)"
	VERSION=$new SHA256=$sum
	fetch
	"$ROOT/scripts/build.sh" --assemble && echo "the series applies on $new; run make check"
}

mkdir -p "$CACHE/debs"
case "${1:-fetch}" in
fetch) fetch ;;
move) move "${2:-}" ;;
*) die "usage: base.sh [fetch | move [VERSION]]" ;;
esac
