#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Move the pin in BASE to another linux-source-6.12 version (default: the
# newest apt offers): download it, record its sha256, and check that the
# series still assembles on it.  Run make check afterwards.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

new=${1:-$(newest_offered)}
[ -n "$new" ] || die "apt offers no $PACKAGE; run apt-get update"
mkdir -p "$CACHE/debs"
(cd "$CACHE/debs" && apt-get download -q "$PACKAGE=$new" >/dev/null) ||
	die "apt-get download $PACKAGE=$new failed"
sum=$(sha256sum "$(deb_path "$new")" | cut -d' ' -f1)
sed -i -e "s/^VERSION=.*/VERSION=$new/" -e "s/^SHA256=.*/SHA256=$sum/" "$ROOT/BASE"
echo "BASE now pins $PACKAGE $new ($sum)"
"$ROOT/scripts/assemble.sh" && echo "the series applies on $new"
