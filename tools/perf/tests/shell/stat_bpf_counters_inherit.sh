#!/bin/bash
# perf stat --bpf-counters counts children like perf stat
# SPDX-License-Identifier: GPL-2.0
#
# --bpf-counters must work without BPF trampolines, count the children a
# target forks after the session started (unless --no-inherit), and agree
# with plain perf stat for the same tasks.

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.stat_bpf_inherit.XXXXX)
events=context-switches,page-faults,cpu-migrations

cleanup() {
	[ -n "$target" ] && kill "$target" 2>/dev/null && wait "$target" 2>/dev/null
	rm -rf "$tmpdir"
	trap - EXIT TERM INT
}
trap 'cleanup; exit 1' TERM INT
trap cleanup EXIT

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

skip_if_unsupported() {
	if bpf_skel_missing --bpf-counters; then
		exit 2
	fi
	if [ ! -d /sys/fs/bpf ]; then
		echo "Skip: no /sys/fs/bpf to mount bpffs on"
		exit 2
	fi
}

# value of event $2 in perf stat -x, output file $1
count() {
	awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"
}

# succeed if $1 and $2 differ by at most 5% of the larger or by 2
agree() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9]+$/ || b !~ /^[0-9]+$/) exit 1
		d = a - b; if (d < 0) d = -d
		m = a > b ? a : b
		exit !(d <= 2 || d <= m * 0.05)
	}'
}

# A shell that, once both sessions are attached, forks three workloads:
# two sleep loops (50 sleeps each) and a getppid loop.  Plain perf stat and
# perf stat --bpf-counters watch it at the same time with -p, so both must
# see the same children do the same work.
test_same_as_plain() {
	local run=$1 ev plain bpf

	sh -c 'sleep 3
	       perf test -w sleeper 10 50 &
	       perf test -w sleeper 10 50 &
	       perf test -w getppid_loop 500000
	       wait' &
	target=$!
	perf stat -x, -o "$tmpdir/plain" -e $events -p $target &
	local plain_pid=$!
	perf stat -x, -o "$tmpdir/bpf" --bpf-counters -e $events -p $target &
	local bpf_pid=$!
	wait $target
	target=
	if ! wait $plain_pid || ! wait $bpf_pid; then
		echo "run $run: perf stat -p failed"
		cat "$tmpdir/bpf"
		err=1
		return
	fi
	for ev in ${events//,/ }; do
		plain=$(count "$tmpdir/plain" $ev)
		bpf=$(count "$tmpdir/bpf" $ev)
		if ! agree "$plain" "$bpf"; then
			echo "run $run: $ev: perf stat $plain, --bpf-counters $bpf"
			err=1
		fi
	done
	# 100 sleeps in children, each a context switch
	bpf=$(count "$tmpdir/bpf" context-switches)
	if [ "$bpf" -lt 100 ]; then
		echo "run $run: children not counted: $bpf context-switches"
		err=1
	fi
}

# A known sleep loop: a process doing 50 sleeps, started once both sessions
# are attached, is seen the same by both: 50 switches plus its start.
test_sleep_loop() {
	local plain bpf

	sh -c 'sleep 3; exec perf test -w sleeper 10 50' &
	target=$!
	perf stat -x, -o "$tmpdir/sleep_plain" -e context-switches -p $target &
	local plain_pid=$!
	perf stat -x, -o "$tmpdir/sleep" --bpf-counters -e context-switches -p $target &
	local bpf_pid=$!
	wait $target
	target=
	wait $plain_pid
	wait $bpf_pid
	plain=$(count "$tmpdir/sleep_plain" context-switches)
	bpf=$(count "$tmpdir/sleep" context-switches)
	if [ -z "$bpf" ] || [ -z "$plain" ] || [ "$bpf" -lt 50 ] ||
	   [ "$bpf" -gt $((plain + 2)) ] || [ "$bpf" -lt $((plain - 2)) ]; then
		echo "sleep loop: --bpf-counters $bpf, perf stat $plain context-switches (>= 50)"
		err=1
	fi
}

# A workload's children are counted; with --no-inherit only the workload.
test_workload() {
	local inherit no_inherit plain

	perf stat -x, -o "$tmpdir/wl" --bpf-counters -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	perf stat -x, -o "$tmpdir/wl_plain" -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	perf stat -x, -o "$tmpdir/wl_noinh" --bpf-counters --no-inherit -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	inherit=$(count "$tmpdir/wl" context-switches)
	no_inherit=$(count "$tmpdir/wl_noinh" context-switches)
	if [ -z "$inherit" ] || [ "$inherit" -lt 100 ]; then
		echo "workload: children not counted: $inherit context-switches"
		err=1
	fi
	if [ -z "$no_inherit" ] || [ "$no_inherit" -ge 50 ]; then
		echo "workload --no-inherit: children counted: $no_inherit context-switches"
		err=1
	fi
	# page faults of the same programs do not depend on the load
	inherit=$(count "$tmpdir/wl" page-faults)
	plain=$(count "$tmpdir/wl_plain" page-faults)
	if ! agree "$plain" "$inherit"; then
		echo "workload: page-faults: perf stat $plain, --bpf-counters $inherit"
		err=1
	fi
}

skip_if_unsupported
for run in 1 2 3; do
	test_same_as_plain $run
done
test_sleep_loop
test_workload

[ $err = 0 ] && echo "perf stat --bpf-counters inherit test [Success]"
exit $err
