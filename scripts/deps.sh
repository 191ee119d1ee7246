#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages a step needs (as root), or name them (not root).
# Usage: deps.sh build|test|bench ...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs_build="gcc make git patch rsync xz-utils bc flex bison pkg-config clang llvm
	libelf-dev libdw-dev libtraceevent-dev libtracefs-dev libcap-dev libzstd-dev
	liblzma-dev zlib1g-dev libslang2-dev libperl-dev python3-dev python3-setuptools
	libunwind-dev libnuma-dev libssl-dev libpfm4-dev libbabeltrace-dev
	systemtap-sdt-dev libprotobuf-c-dev protobuf-c-compiler
	golang-github-google-pprof-dev"
# gcc-multilib builds the 32-bit syscall test program; the rest are used by
# the base's shell tests; bpftool counts bperf objects in stat_bpf_counters_sessions.sh;
# golang-go's 'go tool pprof' reads what perf data convert --to-pprof writes.
pkgs_test="gcc-multilib strace util-linux procps psmisc python3 file bpftool golang-go"
# graphviz: go tool pprof -svg draws Documentation/pprof-cpu_split.svg
pkgs_bench="bpftrace strace python3-matplotlib bpftool util-linux graphviz golang-go"

want=""
for group in "$@"; do
	v=pkgs_$group
	[ -n "${!v:-}" ] || die "unknown dependency group '$group'"
	want="$want ${!v}"
done

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
	die "missing Debian packages, install them as root: apt-get install$missing"
fi
note "installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
