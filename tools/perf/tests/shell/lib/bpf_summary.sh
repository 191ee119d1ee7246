#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the shell tests of perf trace's BPF summary:
#
#   bpf_summary_setup NAME	skip (exit 2) unless root runs a perf built
#			with BPF skeletons; then lib/perf_check.sh's
#			check_setup NAME: its checks and scratch $tmpdir

bpf_summary_setup() {
	if [ "$(id -u)" != 0 ]; then
		echo "Skip: perf trace's BPF summary needs root"
		exit 2
	fi
	if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
		echo "Skip: perf is built without BPF skeletons"
		exit 2
	fi
	# shellcheck source=lib/perf_check.sh
	. "$(dirname "$0")"/lib/perf_check.sh
	check_setup "$1"
}
