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
#                          linux-source on offer is used instead, saying so
#                          in one line; when the suite serves a newer one
#                          than the pin, it says so in one line
#   base.sh move [VERSION] move the pin to VERSION (default: the newest
#                          linux-source on offer) and check that the series
#                          still assembles
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

# newest_source: "PACKAGE VERSION" of the newest linux-source-X.Y of the
# suite (its name changes with each release: linux-source-7.4 after 7.3)
newest_source()
{
	local p v best="" bestv=""

	for p in $(apt_suite apt-cache pkgnames linux-source- 2>/dev/null |
		   grep -E '^linux-source-[0-9]+\.[0-9]+$'); do
		v=$(newest_offered "$p")
		[ -n "$v" ] || continue
		if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then
			best=$p bestv=$v
		fi
	done
	[ -z "$best" ] || echo "$best $bestv"
}

# newer_notice: one line when the suite serves a newer base than the pin
# (best effort: the package list is refreshed at most once an hour, and
# without a network nothing is said)
newer_notice()
{
	local lists=$CACHE/apt-${SUITE:-}/lists newest

	if [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mmin -60 2>/dev/null)" ]; then
		timeout 60 bash -c '. "$0"/scripts/lib.sh; apt_suite apt-get update -q' "$ROOT" \
			>/dev/null 2>&1 || return 0
	fi
	newest=$(newest_source)
	[ -n "$newest" ] && [ "$newest" != "$PACKAGE $VERSION" ] || return 0
	note "Debian $SUITE serves $newest now, the pin is $PACKAGE $VERSION: make move-pin takes it"
}

fetch()
{
	local deb sum newest package version

	if [ ! -f "$CACHE/base-$VERSION/PERF-VERSION-FILE" ]; then
		deb=$(deb_path "$VERSION")
		if download "$PACKAGE" "$VERSION"; then
			sum=$(sha256sum "$deb" | cut -d' ' -f1)
			if [ "$sum" != "$SHA256" ]; then
				rm -f "$deb"
				die "$PACKAGE $VERSION: sha256 $sum does not match the pin $SHA256"
			fi
			note "extracting $PACKAGE $VERSION (sha256 ok)"
			extract "$deb" "$PACKAGE" "$CACHE/base-$VERSION"
		else
			newest=$(newest_source)
			[ -n "$newest" ] || die "Debian $SUITE offers no linux-source at all"
			read -r package version <<< "$newest"
			echo "WARNING: $PACKAGE $VERSION is no longer served and not in $CACHE/debs;" \
				"using $package $version (make move-pin moves the pin)" >&2
			if [ ! -f "$CACHE/base-$version/PERF-VERSION-FILE" ]; then
				download "$package" "$version" ||
					die "apt-get download $package=$version failed"
				extract "$(deb_path "$version" "$package")" "$package" "$CACHE/base-$version"
			fi
			echo "$version" > "$CACHE/current-$PACKAGE"
			return 0
		fi
	fi
	echo "$VERSION" > "$CACHE/current-$PACKAGE"
	newer_notice
}

move()
{
	local package version sum

	apt_suite apt-get update -q >/dev/null 2>&1 || true
	if [ -n "${1:-}" ]; then
		package=$PACKAGE version=$1
	else
		read -r package version <<< "$(newest_source)"
	fi
	[ -n "$version" ] || die "Debian $SUITE offers no linux-source"
	download "$package" "$version" || die "apt-get download $package=$version failed"
	sum=$(sha256sum "$(deb_path "$version" "$package")" | cut -d' ' -f1)
	sed -i -e "s/^PACKAGE=.*/PACKAGE=$package/" -e "s/^VERSION=.*/VERSION=$version/" \
		-e "s/^SHA256=.*/SHA256=$sum/" "$SDIR/BASE"
	echo "$SDIR/BASE now pins $package $version ($sum)"
	PACKAGE=$package VERSION=$version SHA256=$sum
	fetch
	"$ROOT/scripts/build.sh" --assemble && echo "the series applies on $version; run make check"
}

mkdir -p "$CACHE/debs"
case "${1:-fetch}" in
fetch) fetch ;;
move) move "${2:-}" ;;
*) die "usage: base.sh [fetch | move [VERSION]]" ;;
esac
