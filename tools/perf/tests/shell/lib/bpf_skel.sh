#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Helpers for the shell tests of perf features built on BPF skeletons.

# bpf_skel_missing WHAT: when WHAT cannot run here (perf built without BPF
# skeletons, not root, no BTF), print one "Skip:" line saying why and return 0;
# otherwise return 1.
bpf_skel_missing() {
	if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
		echo "Skip: perf was built without BPF skeletons (BUILD_BPF_SKEL=1)"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "Skip: $1 needs root"
		return 0
	fi
	if [ ! -r /sys/kernel/btf/vmlinux ]; then
		echo "Skip: $1 needs a kernel with BTF (/sys/kernel/btf/vmlinux)"
		return 0
	fi
	return 1
}
