#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as it is posted and applied.
#
#   series.sh [export] [-v N] [OUT]   one directory per posted series
#       under OUT (default build/series): its cover letter and one git
#       format-patch file per patch, From: and Signed-off-by: the git config
#       identity (a placeholder is refused: the sign-off certifies the DCO);
#       -v N makes a version N posting
#   series.sh proof [--no-build | --skel | --no-skel]
#       git am of the export onto the pristine base applies every patch
#       and reproduces the assembled tree; every prefix builds, with BPF
#       skeletons and with BUILD_BPF_SKEL=0 DEBUG=1 (or one of the two)
#   series.sh checkpatch              checkpatch.pl --strict of the base on
#       every exported patch; errors fail
#   series.sh table                   per patch: lines changed in upstream
#       files and in new files (MAINTAINERS-notes)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# placeholder NAME EMAIL: why this identity cannot sign off, or nothing
placeholder()
{
	local name=$1 email=$2 domain

	[ -n "$name" ] || { echo "git config user.name is not set"; return; }
	[ -n "$email" ] || { echo "git config user.email is not set"; return; }
	[[ "$email" =~ ^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$ ]] ||
		{ echo "'$email' is not a mail address"; return; }
	domain=${email##*@}
	domain=${domain,,}
	# RFC 2606 and RFC 6761 reserve these names for examples and tests
	case "$domain" in
	example.com | example.net | example.org | *.example.com | *.example.net | *.example.org | \
	*.example | *.invalid | *.localhost | localhost | *.test | *.local | *.localdomain)
		echo "'$email' is a placeholder address ($domain is reserved)"; return ;;
	esac
	case "${name,,}" in
	"your name" | root | base | "perf bpf series")
		echo "'$name' is a placeholder name"; return ;;
	esac
}

# export PROOF VERSION OUT: PROOF=1 takes a fixed identity where the
# machine's is a placeholder, for the checks; that output is never sent
export_series()
{
	local proof=$1 version=$2 out=$3 name email why tree commits n k sname first count dir cover

	name=$(git -C "$ROOT" config user.name || true)
	email=$(git -C "$ROOT" config user.email || true)
	why=$(placeholder "$name" "$email")
	if [ -n "$why" ]; then
		[ "$proof" = 1 ] ||
			die "refusing to sign off as a placeholder: $why; set yours with git config user.name/user.email"
		name="Series Proof" email="series-proof@example.org"
	fi
	tree=$BUILD/series-tree
	"$ROOT/scripts/tree.sh" make "$tree" --author "$name <$email>"
	rm -rf "$out"
	mkdir -p "$out"
	cd "$tree"
	commits=($(git rev-list --reverse base..HEAD))
	n=0
	while read -r sname first count; do
		n=$((n + 1))
		dir=$out/$(printf '%02d' $n)-$sname
		git -c user.name="$name" -c user.email="$email" format-patch -q \
			--cover-letter ${version:+-v "$version"} --zero-commit -o "$dir" \
			"${commits[first]}^..${commits[first + count - 1]}"
		cover=$SDIR/cover/$sname.txt
		[ -f "$cover" ] || die "no cover letter $cover for the series '$sname'"
		# the cover letter: our subject and text instead of git's placeholders
		sed -n '3,$p' "$cover" |
			sed -e "s|@BASE@|$PACKAGE $(current_version) (perf $(sed 's/.*"\(.*\)"/\1/' "$(base_dir)/PERF-VERSION-FILE"))|" \
			> "$tree/.cover-body"
		k=$(ls "$dir"/*0000-cover-letter.patch)
		awk -v subj="$(sed -n 1p "$cover")" -v body="$tree/.cover-body" '
			/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
			/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < body) > 0) print l; next }
			{ print }' "$k" > "$k.new"
		mv "$k.new" "$k"
		echo "$dir: $count patches and a cover letter"
	done < <(series_names)
	rm -f "$tree/.cover-body"
	cd - >/dev/null
	echo "wrote ${#commits[@]} patches in $n series to $out (From: $name <$email>)"
}

# am DIR EXPORT [GITDIR [FROM]]: DIR becomes a git tree of the base (or
# FROM; git_base) with the exported series applied by git am (no fuzz),
# all series in order
am()
{
	local dir=$1 exp=$2 gitdir=${3:-$1/.git} from=${4:-$(base_dir)}

	git_base "$dir" "$gitdir" "$from"
	# shellcheck disable=SC2046
	git -C "$dir" --git-dir="$gitdir" --work-tree="$dir" \
		-c user.name=proof -c user.email=proof@localhost \
		am -q --whitespace=nowarn $(ls "$exp"/*/*.patch | grep -v -- '-cover-letter\.patch$') ||
		die "git am of the exported series failed on $(basename "$from")"
	echo "series-proof: git am applied $(git --git-dir="$gitdir" rev-list --count base..HEAD) patches to $(basename "$from")"
}

# build_perf SRC OBJ LOG [MAKE ARGS]: one build, the log's end on failure
build_perf()
{
	local src=$1 obj=$2 log=$3

	shift 3
	mkdir -p "$obj"
	if ! make -C "$src/tools/perf" O="$obj" -j"$JOBS" "${PERF_MAKE[@]}" "$@" > "$log" 2>&1; then
		tail -30 "$log" >&2
		return 1
	fi
}

# The proof works in the build tree itself ($SRC, the repository outside
# it): the base, git am of the export, then the assembled tree synced over
# it by content must change nothing.  Every prefix is built with BPF
# skeletons in $OBJ, the last one being the whole series: 'make' and
# 'make check' find perf built.  Then, in a clone of its own so that
# 'make check' can run in $SRC meanwhile, every prefix is built without
# them.  A checkout changes only the files a patch touches, so each build
# recompiles only what the patch changed.  perf's feature detection (half
# the time of a build with nothing to compile) runs in the first build of
# a chain: its results are handed to the next builds as FEATURES_DUMP,
# and detected again after a patch that changes a feature check.  A last
# build with perf's own detection must then find nothing to do.
#
# feature_dump SRC OBJ OUT [MAKE ARGS]: every feature-* result of perf's
# detection (FEATURE-DUMP lacks those of Makefile.config's own checks)
feature_dump()
{
	local src=$1 obj=$2 out=$3

	shift 3
	make -s -C "$src/tools/perf" -f Makefile.perf O="$obj" "${PERF_MAKE[@]}" "$@" \
		--eval='feature-dump-all: ; @printf "%s\n" $(foreach v,$(sort $(filter feature-%,$(.VARIABLES))),$(v)=$($(v)))' \
		feature-dump-all 2>/dev/null | grep '^feature-' | grep -v '^feature-all=' > "$out" || true
	[ -s "$out" ] || die "perf's feature detection gave no results"
}

# proof_builds SKEL SRCDIR OBJDIR GITDIR: every prefix of the repository in SRCDIR
proof_builds()
{
	local skel=$1 src=$2 obj=$3 k=0 n c t0 prev=base dump=$3/FEATURE-DUMP.proof
	local g=(git -C "$src" --git-dir="$4" --work-tree="$src")
	# without skeletons in perf's DEBUG=1 configuration (-O0 -g, asserts
	# on), another configuration upstream builds, and a quicker one;
	# -O3's warnings come with the skeletons, and so does shellcheck of
	# the shell tests, which are the same in both
	local args=(BUILD_BPF_SKEL="$skel" $([ "$skel" = 1 ] || echo DEBUG=1 NO_SHELLCHECK=1))

	rm -f "$dump"
	n=$("${g[@]}" rev-list --count base..work)
	for c in $("${g[@]}" rev-list --reverse base..work); do
		k=$((k + 1))
		"${g[@]}" checkout -q "$c"
		"${g[@]}" diff --quiet "$prev" "$c" -- tools/build tools/perf/Makefile.config \
			tools/perf/Makefile.perf || rm -f "$dump"
		prev=$c
		t0=$SECONDS
		build_perf "$src" "$obj" "$BUILD/series-proof-build$skel.log" "${args[@]}" \
			$([ ! -s "$dump" ] || echo FEATURES_DUMP="$dump") ||
			die "prefix $k/$n does not build with BUILD_BPF_SKEL=$skel: $("${g[@]}" log -1 --format=%s)"
		[ -s "$dump" ] || feature_dump "$src" "$obj" "$dump" "${args[@]}"
		echo "series-proof: prefix $k/$n builds, BUILD_BPF_SKEL=$skel ($((SECONDS - t0)) s): $("${g[@]}" log -1 --format=%s)"
	done
	"${g[@]}" checkout -q work
	build_perf "$src" "$obj" "$BUILD/series-proof-build$skel.log" "${args[@]}" ||
		die "the series does not build with BUILD_BPF_SKEL=$skel and perf's own feature detection"
	! grep -qE '^  (CC|LINK) ' "$BUILD/series-proof-build$skel.log" ||
		die "perf's own feature detection rebuilt what the proof built: its FEATURES_DUMP differs"
}

# proof [--no-build | --skel | --no-skel]: all of it, or a part
proof()
{
	local what=${1:-all} out=$BUILD/series-proof gitdir=$BUILD/series-proof.git
	local src0=$BUILD/series-proof-src0
	local g=(git -C "$SRC" --git-dir="$gitdir" --work-tree="$SRC")

	deps build
	if [ "$what" != --no-skel ]; then
		"$ROOT/scripts/base.sh"
		export_series 1 "" "$out" >/dev/null
		am "$SRC" "$out" "$gitdir"
		"$ROOT/scripts/build.sh" --assemble
		if [ -n "$("${g[@]}" status --porcelain --untracked-files=all --ignored=matching)" ]; then
			"${g[@]}" status --short --untracked-files=all --ignored=matching >&2
			die "the series applied by git am differs from the assembled tree (above: what assembling changed)"
		fi
		echo "series-proof: the tree after git am is identical to the assembled tree"
	fi
	case "$what" in
	--no-build) return 0 ;;
	all | --skel) proof_builds 1 "$SRC" "$OBJ" "$gitdir" ;;
	esac
	case "$what" in
	all | --no-skel)
		[ -d "$gitdir" ] || die "no $gitdir: run series.sh proof --skel first"
		rm -rf "$src0"
		# the clone's branch is work, and it has the tag base
		git clone -q --no-checkout "$gitdir" "$src0"
		proof_builds 0 "$src0" "$BUILD/series-proof-obj0" "$src0/.git" ;;
	esac
	case "$what" in
	all) what="with and without BPF skeletons" ;;
	--skel) what="with BPF skeletons" ;;
	--no-skel) what="without BPF skeletons" ;;
	esac
	echo "series-proof: ok, $("${g[@]}" rev-list --count base..work) patches apply with git am" \
		"and every prefix builds $what"
}

checkpatch()
{
	local cp out=$BUILD/series-checkpatch p errors=0 warnings=0 checks=0 res e w c
	# checkpatch.pl reads spelling.txt and const_structs.checkpatch next to it
	local opts=(--strict --no-tree --show-types --color=never
		    --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG)

	"$ROOT/scripts/base.sh"
	cp=$(base_dir)/scripts/checkpatch.pl
	export_series 1 "" "$out" >/dev/null
	for p in "$out"/*/*.patch; do
		case "$p" in *-cover-letter.patch) continue ;; esac
		res=$(perl "$cp" "${opts[@]}" "$p" 2>&1) || true
		read -r e w c < <(echo "$res" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p;s/^total: \([0-9]*\) errors, \([0-9]*\) warnings,.*/\1 \2 0/p' | tail -1)
		e=${e:-1} w=${w:-0} c=${c:-0}
		errors=$((errors + e)) warnings=$((warnings + w)) checks=$((checks + c))
		if [ "$e$w$c" != 000 ]; then
			echo "== ${p#"$out"/}: $e errors, $w warnings, $c checks"
			echo "$res" | grep -E -A4 '^(ERROR|WARNING|CHECK):' | sed 's/^/   /'
		else
			echo "ok ${p#"$out"/}"
		fi
	done
	echo "checkpatch: $errors errors, $warnings warnings, $checks checks"
	[ "$errors" = 0 ]
}

table()
{
	local tree=$BUILD/series-table-tree n=0 c b nw

	"$ROOT/scripts/tree.sh" make "$tree" >/dev/null
	cd "$tree"
	git ls-tree -r --name-only base | sort > "$tree/.git/base-files"
	printf '%-4s %7s %7s  %s\n' nr base new subject
	for c in $(git rev-list --reverse base..HEAD); do
		n=$((n + 1))
		read -r b nw < <(git diff --numstat "$c^" "$c" | awk -v bf="$tree/.git/base-files" '
			BEGIN { while ((getline f < bf) > 0) base[f] = 1 }
			{ if ($3 in base) b += $1 + $2; else nw += $1 + $2 }
			END { printf "%d %d\n", b, nw }')
		printf '%04d %7d %7d  %s\n' $n "$b" "$nw" "$(git log -1 --format=%s "$c")"
	done
	cd - >/dev/null
	rm -rf "$tree"
}

cmd=export
case "${1:-}" in
export | proof | checkpatch | table) cmd=$1; shift ;;
esac
case "$cmd" in
export)
	version=""
	if [ "${1:-}" = -v ]; then
		version=${2:-}
		[[ "$version" =~ ^[1-9][0-9]*$ ]] || die "-v takes a version number, not '$version'"
		shift 2
	fi
	export_series 0 "$version" "${1:-$BUILD/series}" ;;
proof) proof "$@" ;;
*) "$cmd" ;;
esac
