#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernels: boot each kernel of ci/kernels (KERNELS=6.1,7.2: those whose
# version starts so) in qemu on the image of image.sh, whose /init is
# smoke.sh; a line per kernel, then the total; console logs in
# build/kernels/VERSION.log.  The .debs come from each suite alone and stay
# in the cache; a version the suite no longer serves and the cache lacks is
# replaced by the newest of its series, and the line says so.  A guest still
# running after KERNELS_TIMEOUT seconds (600) is one failure.  KERNELS_INIT
# and KERNELS_MEM (MB, 2048) choose another /init (image.sh) and memory;
# the logs of another /init are build/kernels/VERSION-INIT.log.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

dir=$CACHE/kernels
timeout=${KERNELS_TIMEOUT:-600}
KERNELS=${KERNELS:-}
pass=0 fail=0 skip=0 booted=0

# offered PACKAGE VERSION: SUITE serves VERSION of PACKAGE
offered()
{
	apt_suite apt-cache madison "$1" 2>/dev/null | grep -qF " $2 |"
}

# fetch: the .deb of package and version into the cache, or else of the
# newest kernel of that series SUITE serves (its meta-package's; from 7.2 on
# the vmlinuz is in linux-binary-*, not in linux-image-*), saying so
fetch()
{
	local series v p

	[ -f "$dir/${package}_${version}_amd64.deb" ] && return 0
	apt_suite apt-get update -q >/dev/null 2>&1 || note "apt-get update of $SUITE failed"
	if ! offered "$package" "$version"; then
		series=$(grep -Eo '^[0-9]+\.[0-9]+' <<< "$version")
		v=$(newest_offered linux-image-cloud-amd64)
		[[ $v == "$series".* || $v == "$series"[~-]* ]] ||
			{ said=": $SUITE serves neither $version nor another $series kernel"; return 1; }
		p=$(apt_suite apt-cache show "linux-image-cloud-amd64=$v" |
			grep -o -m1 'linux-image-[^ ,]*-cloud-amd64')
		! offered "linux-binary-${p#linux-image-}" "$v" || p=linux-binary-${p#linux-image-}
		said=", $version is gone from $SUITE, booted the newest $series it serves: $v"
		package=$p version=$v
		[ -f "$dir/${package}_${version}_amd64.deb" ] && return 0
	fi
	note "downloading $package $version from $SUITE"
	(cd "$dir" && apt_suite apt-get download -q "$package=$version" >/dev/null 2>&1) ||
		{ said="$said, apt-get download $package=$version from $SUITE failed"; return 1; }
}

# boot: the kernel in qemu; its line, its counts added to the total
boot()
{
	local deb=$dir/${package}_${version}_amd64.deb vmlinuz=$BUILD/kernels/vmlinuz
	local log=$BUILD/kernels/$kver${KERNELS_INIT:+-$KERNELS_INIT}.log
	local member rc=0 t0 lines p f s why last

	if [ ! -f "$deb" ]; then
		echo "kernel $kver: 0 passed, 1 failed, 0 skipped (not booted$said)"
		fail=$((fail + 1))
		return
	fi
	member=$(dpkg-deb -c "$deb" | awk '$6 ~ /\/vmlinuz[^/]*$/ && !n++ { print $6 }')
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$member" > "$vmlinuz"
	t0=$SECONDS
	# one TCG thread: with one per vCPU a 7.3 guest hit an int3 oops where the
	# kernel had just patched __schedule's code (BPF attach)
	timeout "$timeout" qemu-system-x86_64 -accel tcg,thread=single -m "${KERNELS_MEM:-2048}" -smp 2 \
		-nographic -no-reboot -kernel "$vmlinuz" -initrd "$image" \
		-append "console=ttyS0 panic=-1 quiet" < /dev/null > "$log" 2>&1 || rc=$?
	lines=$(tr -d '\r' < "$log" | grep -E '^smoke: ' || true)
	read -r p f s < <(awk '{ n[$2]++ } END { print n["PASS"] + 0, n["FAIL"] + 0, n["SKIP"] + 0 }' \
		<<< "$lines")
	if ! grep -Eq '^smoke: [0-9]+ passed' <<< "$lines"; then
		f=$((f + 1))
		why="the guest stopped, qemu exit $rc"	# -no-reboot: a reset ends qemu
		[ $rc != 124 ] || why="stopped after $timeout s"
		! grep -q 'Kernel panic' "$log" || why="kernel panic"
		last=$(sed -n 's/^smoke: [A-Z]* \([^:]*\):.*/\1/p' <<< "$lines" | tail -1)
		said="$said, no summary: $why, the last check was ${last:-none}, log: $log"
	fi
	echo "kernel $kver: $p passed, $f failed, $s skipped ($((SECONDS - t0)) s$said)"
	sed -n 's/^smoke: FAIL /  FAIL /p' <<< "$lines"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

deps kernels
image=$("$ROOT/scripts/kernels/image.sh")
mkdir -p "$dir"
mapfile -t list < <(grep -v -e '^#' -e '^$' "$SDIR/ci/kernels")
for entry in "${list[@]}"; do
	read -r SUITE package version <<< "$entry"
	export SUITE
	want=${KERNELS:+no}
	for k in ${KERNELS//,/ }; do
		case "$version" in "$k" | "$k".* | "$k"~* | "$k"-*) want="" ;; esac
	done
	[ -z "$want" ] || continue
	booted=$((booted + 1))
	said=""
	fetch || true
	kver=${version%-*} kver=${kver/\~/-}
	boot
done
[ $booted -gt 0 ] || die "KERNELS=$KERNELS names no kernel of ci/kernels"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
