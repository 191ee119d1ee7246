#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Mount the pseudo file systems perf's BPF features and tests need, when
# they are not mounted yet.  Needs root; without it, says what is missing.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

need()
{
	local type=$1 dir=$2

	grep -q " $dir $type " /proc/mounts && return 0
	if [ "$(id -u)" != 0 ]; then
		note "$type is not mounted at $dir (as root: mount -t $type $type $dir)"
		return 0
	fi
	mkdir -p "$dir" && mount -t "$type" "$type" "$dir" ||
		note "could not mount $type at $dir"
}

need bpf /sys/fs/bpf
need debugfs /sys/kernel/debug
need tracefs /sys/kernel/tracing
# tools that still look for tracefs under debugfs
if [ -d /sys/kernel/debug/tracing ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/debug/tracing 2>/dev/null || true
fi
exit 0
