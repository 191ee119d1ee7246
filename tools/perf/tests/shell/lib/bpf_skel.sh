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

# bperf_attr_map NAME: sets attr_map to a --bpf-attr-map of the test's own
# on bpffs (mounted if it is not).  The test's sessions share it as they
# would share the default /sys/fs/bpf/perf_attr_map_v2, and a map another
# perf pinned there, of another version whose perf_event_attr has another
# size, does not stand in their way.  bperf_attr_map_rm removes it.
bperf_attr_map() {
	mkdir -p /sys/fs/bpf
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	attr_map=/sys/fs/bpf/perf_test_$1_$$
}

bperf_attr_map_rm() {
	[ -n "${attr_map}" ] && rm -f "${attr_map}"
}

# bperf_missing: bpf_skel_missing --bpf-counters, and a PID namespace other
# than the initial one (inode PROC_PID_INIT_INO, 4026531836), where
# --bpf-counters counts CPUs only and refuses the tasks these tests count.
bperf_missing() {
	if bpf_skel_missing --bpf-counters; then
		return 0
	fi
	if [ "$(stat -L -c %i /proc/self/ns/pid 2>/dev/null)" != 4026531836 ]; then
		echo "Skip: --bpf-counters counts tasks from the initial PID namespace only"
		return 0
	fi
	return 1
}
