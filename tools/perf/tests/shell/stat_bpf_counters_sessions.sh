#!/bin/bash
# perf stat --bpf-counters sessions share one leader and clean up
# SPDX-License-Identifier: GPL-2.0
#
# Concurrent --bpf-counters sessions on different targets share one leader
# program per event and each see only their target; sessions that exit or
# are killed leave nothing behind; a bad --bpf-attr-map fails clearly.
# Only bperf's own programs and maps are counted: other tools may load BPF
# programs on this system at the same time.

# err, tmpdir and check_pids belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

check_setup stat_bpf_sessions

# the perf stat sessions still running after a failure
check_more_cleanup() {
	wait 2>/dev/null
}

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

skip_if_unsupported() {
	if bpf_skel_missing --bpf-counters; then
		exit 2
	fi
	if ! command -v bpftool > /dev/null; then
		echo "Skip: bpftool is needed to count BPF objects"
		exit 2
	fi
}

# number of loaded BPF programs named $1
nr_progs() {
	bpftool prog show name "$1" 2>/dev/null | grep -c '^[0-9]'
}

# bperf programs, maps and links on the system
bperf_objects() {
	local ids p maps links=0

	ids=$(bpftool prog show 2>/dev/null |
	      awk -F: '/ name (bperf_on_switch|bperf_on_fork|bperf_on_exit) /{ print $1 }')
	for p in $ids; do
		links=$((links + $(bpftool link show 2>/dev/null | grep -cE "prog $p *\$")))
	done
	maps='bperf_sessions|bperf_filter|bperf_accum|bperf_info|bperf_stopped'
	echo "progs $(echo $ids | wc -w)" \
	     "maps $(bpftool map show 2>/dev/null | grep -cE " name ($maps) ")" \
	     "links $links"
}

# The kernel takes a program out of its list when its last reference goes,
# but frees it, and so lets go of its maps, after an RCU grace period: the
# objects of a session that exited leave the list a moment after it.  Wait
# up to 10 seconds for the bperf objects to be $1.
wait_bperf_objects() {
	local i

	for i in $(seq 1 20); do
		[ "$(bperf_objects)" = "$1" ] && return 0
		sleep 0.5
	done
	return 1
}

# What the tests come back to: nothing of bperf's, or, when another session
# is using bperf on this system (or the last test's objects are still held
# after 10 s), what is there now.
baseline_objects() {
	initial="progs 0 maps 0 links 0"
	if ! wait_bperf_objects "$initial"; then
		initial=$(bperf_objects)
		echo "bperf objects of other sessions on this system: $initial"
	fi
}

# Four sessions, four targets: two sleep loops of 20 and 50 ms watched with
# -p, a workload of 100 sleeps of 10 ms, and CPU 0.  One leader serves all.
test_concurrent() {
	local s20 s50 cs leaders

	# on CPU 0, so that -C 0 sees its 100 sleeps a second
	taskset -c 0 perf test -w sleeper 20 1000 &
	s20=$!
	perf test -w sleeper 50 1000 &
	s50=$!
	check_pids="$s20 $s50"
	perf stat -x, -o "$tmpdir/c20" --bpf-counters -e context-switches -p $s20 -- sleep 2 &
	perf stat -x, -o "$tmpdir/c50" --bpf-counters -e context-switches -p $s50 -- sleep 2 &
	perf stat -x, -o "$tmpdir/cwl" --bpf-counters -e context-switches -- \
		perf test -w sleeper 10 100 &
	perf stat -x, -o "$tmpdir/ccpu" --bpf-counters -e context-switches -C 0 -- sleep 2 &
	local sessions n
	sessions=$(jobs -p | grep -v -e "^$s20\$" -e "^$s50\$")
	# the most leader programs seen while the sessions run
	leaders=0
	while kill -0 $sessions 2>/dev/null; do
		n=$(nr_progs bperf_on_switch)
		[ "$n" -gt "$leaders" ] && leaders=$n
		sleep 0.2
	done
	wait $sessions
	kill $s20 $s50
	wait $s20 $s50 2>/dev/null
	check_pids=

	if [ "$leaders" != 1 ]; then
		echo "concurrent: $leaders leader programs for one event, expected 1"
		err=1
	fi
	# 2 seconds of 20 ms sleeps: about 100; of 50 ms sleeps: about 40
	cs=$(stat_count "$tmpdir/c20" context-switches)
	if [ -z "$cs" ] || [ "$cs" -lt 50 ] || [ "$cs" -gt 110 ]; then
		echo "concurrent: -p of a 20 ms sleep loop: $cs context-switches"
		err=1
	fi
	cs=$(stat_count "$tmpdir/c50" context-switches)
	if [ -z "$cs" ] || [ "$cs" -lt 20 ] || [ "$cs" -gt 45 ]; then
		echo "concurrent: -p of a 50 ms sleep loop: $cs context-switches"
		err=1
	fi
	cs=$(stat_count "$tmpdir/cwl" context-switches)
	if [ -z "$cs" ] || [ "$cs" -lt 100 ] || [ "$cs" -gt 300 ]; then
		echo "concurrent: workload of 100 sleeps: $cs context-switches"
		err=1
	fi
	# CPU 0 sees the 20 ms sleep loop switch out and back in, about 200
	# times in 2 seconds, and more
	cs=$(stat_count "$tmpdir/ccpu" context-switches)
	if [ -z "$cs" ] || [ "$cs" -lt 100 ]; then
		echo "concurrent: -C 0: $cs context-switches"
		err=1
	fi
}

# 50 sessions in a row, every fifth killed with SIGKILL while counting:
# afterwards bperf programs, maps and links are back to where they were.
test_kill_reclaim() {
	local i p

	if ! wait_bperf_objects "$initial"; then
		echo "kill/reclaim: bperf objects before the sessions: $(bperf_objects), expected $initial"
		err=1
		return
	fi
	for i in $(seq 1 50); do
		if [ $((i % 5)) = 0 ]; then
			perf stat --bpf-counters -e context-switches -a -- sleep 10 \
				> /dev/null 2>&1 &
			p=$!
			# killed once it counts: it holds the leader's three links
			wait_bpf_links $p 3
			# the objects are seen at all: a counting session holds them
			case "$(bperf_objects)" in
			"progs 0 "* | *" links 0")
				echo "kill/reclaim: a counting session holds no bperf objects:" \
				     "$(bperf_objects)"
				err=1 ;;
			esac
			kill -9 $p
			wait $p 2>/dev/null
		elif ! perf stat --bpf-counters -e context-switches -a -- true \
				> /dev/null 2>&1; then
			echo "kill/reclaim: session $i failed"
			err=1
		fi
	done
	if ! wait_bperf_objects "$initial"; then
		echo "kill/reclaim: bperf objects before: $initial, after: $(bperf_objects)"
		err=1
	fi
}

# Eight sessions started at the same moment all succeed and count.
test_simultaneous() {
	local i cs

	for i in $(seq 1 8); do
		perf stat -x, -o "$tmpdir/s$i" --bpf-counters -e context-switches,page-faults -- \
			perf test -w sleeper 10 20 > /dev/null 2>&1 &
	done
	for i in $(seq 1 8); do
		if ! wait %$i; then
			echo "simultaneous: session $i failed"
			err=1
		fi
	done
	for i in $(seq 1 8); do
		cs=$(stat_count "$tmpdir/s$i" context-switches)
		if [ -z "$cs" ] || [ "$cs" -lt 20 ]; then
			echo "simultaneous: session $i: $cs context-switches, expected at least 20"
			err=1
		fi
	done
}

# perf stat -r loads the counters for each run: each run counts its own
# workload from zero, as plain perf stat -r does.  Counts carried over
# from run to run would make the average about three times a run's.  Each
# run counts context switches both ways in one session ('cs' through BPF,
# as stat.bpf-counter-events asks), so both averages are over the same
# windows: two separate sessions differ by how often a loaded machine
# preempts the sleep loop (29 against 91 at a load average of 200).
test_repeat() {
	local cs plain

	printf '[stat]\n\tbpf-counter-events = cs\n' > "$tmpdir/repeat_config"
	PERF_CONFIG="$tmpdir/repeat_config" perf stat -x, -o "$tmpdir/repeat" -r 5 \
		-e context-switches,cs -- perf test -w sleeper 10 20
	cs=$(stat_count "$tmpdir/repeat" cs)
	cs=${cs%.*}
	plain=$(stat_count "$tmpdir/repeat" context-switches)
	plain=${plain%.*}
	# The 20 sleeps of a run at least.  --bpf-counters counts the forked
	# workload from when perf stat enables its counters, the perf event
	# from the workload's exec (enable_on_exec): a loaded machine preempts
	# it in between a few times a run (110 against 106), so the BPF count
	# may be larger, by less than half of a run's.
	if [ -z "$cs" ] || [ -z "$plain" ] || [ "$plain" -lt 20 ] ||
	   [ "$cs" -lt "$plain" ] || [ $((cs * 2)) -ge $((plain * 3)) ]; then
		echo "repeat: average of $cs context-switches per run with --bpf-counters," \
		     "$plain with perf stat -r 5 (>= 20), expected from 1 to 1.5 times that"
		err=1
	fi
}

# A file that is not a BPF map, or a map of another shape, at the attr map
# path: one clear line, non-zero exit.
test_bad_attr_map() {
	local out

	echo garbage > "$tmpdir/attr_map"
	out=$(perf stat --bpf-counters --bpf-attr-map "$tmpdir/attr_map" \
		-e context-switches -- true 2>&1)
	if [ $? = 0 ] || ! echo "$out" | grep -q "is not a BPF map"; then
		echo "bad attr map: regular file accepted or unclear error: $out"
		err=1
	fi

	mkdir -p /sys/fs/bpf
	mountpoint -q /sys/fs/bpf || mount -t bpf none /sys/fs/bpf
	local pin=/sys/fs/bpf/perf_test_stat_bad_attr_map_$$
	if bpftool map create $pin type hash key 4 value 4 entries 1 name perf_test_bad; then
		out=$(perf stat --bpf-counters --bpf-attr-map $pin \
			-e context-switches -- true 2>&1)
		if [ $? = 0 ] || ! echo "$out" | grep -q "wrong shape"; then
			echo "bad attr map: wrong map shape accepted or unclear error: $out"
			err=1
		fi
		if [ "$(bpftool map dump pinned $pin | grep -c key)" != 0 ]; then
			echo "bad attr map: the wrong map was modified"
			err=1
		fi
		rm -f $pin
	else
		echo "bad attr map: bpftool cannot create a map to test with"
		err=1
	fi
}

# Without privileges: one clear line, non-zero exit.
test_not_root() {
	local out

	if ! command -v setpriv > /dev/null; then
		echo "not root: setpriv (util-linux) missing"
		err=1
		return
	fi
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$(command -v perf)" stat --bpf-counters -e context-switches -- true 2>&1)
	if [ $? = 0 ] || ! echo "$out" | grep -q "CAP_BPF"; then
		echo "not root: no clear error: $out"
		err=1
	fi
}

skip_if_unsupported
baseline_objects
test_concurrent
test_kill_reclaim
test_simultaneous
test_repeat
test_bad_attr_map
test_not_root

[ $err = 0 ] && echo "perf stat --bpf-counters sessions test [Success]"
exit $err
