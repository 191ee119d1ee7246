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
	bperf_attr_map_rm
}

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

skip_if_unsupported() {
	if bperf_missing; then
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
	      awk -F: '/ name (bperf_on_switch|bperf_on_fork|bperf_on_exit|bperf_on_exec) /{ print $1 }')
	for p in $ids; do
		links=$((links + $(bpftool link show 2>/dev/null | grep -cE "prog $p *\$")))
	done
	maps='bperf_sessions|bperf_filter|bperf_ids|bperf_accum|bperf_info|bperf_stopped'
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

# Four sessions at once on four targets, one leader for all.  Each counts
# with cs_stat, so that what each counts of its own target is checked
# exactly however loaded the machine:
# two sleep loops watched with -p (50 sleeps of 20 ms, 20 of 50 ms), both
# stopped until their session counts; a workload of 100 sleeps of 10 ms;
# and CPU 0, with a workload of 50 sleeps of 20 ms on it.
test_concurrent() {
	local s20 s50 sessions leaders n others

	# the leaders of other perf users' sessions on their own attr maps
	others=$(nr_progs bperf_on_switch)
	start_stopped sleeper 20 50 || return
	s20=$target
	start_stopped sleeper 50 20 || return
	s50=$target
	cs_stat -o "$tmpdir/c20" -D 1 -p "$s20" 2> "$tmpdir/c20.log" &
	sessions=$!
	cs_stat -o "$tmpdir/c50" -D 1 -p "$s50" 2> "$tmpdir/c50.log" &
	sessions="$sessions $!"
	# perf stat enables its BPF counters first, then says "Events enabled"
	# on a failure the stopped targets go too, not left for a later wait
	if ! wait_log_line "${sessions% *}" "$tmpdir/c20.log" "Events enabled" ||
	   ! wait_log_line "${sessions#* }" "$tmpdir/c50.log" "Events enabled"; then
		kill $sessions "$s20" "$s50" 2>/dev/null
		kill -CONT "$s20" "$s50" 2>/dev/null
		wait $sessions "$s20" "$s50" 2>/dev/null
		check_pids=
		return
	fi
	kill -CONT "$s20" "$s50"
	cs_stat -o "$tmpdir/cwl" -- perf test -w sleeper 10 100 &
	sessions="$sessions $!"
	cs_stat --fifo -o "$tmpdir/ccpu" -C 0 -- taskset -c 0 perf test -w sleeper 20 50 &
	sessions="$sessions $!"
	# the most leader programs of ours seen while the sessions run
	leaders=0
	while kill -0 $sessions 2>/dev/null; do
		n=$(($(nr_progs bperf_on_switch) - others))
		[ "$n" -gt "$leaders" ] && leaders=$n
		sleep 0.2
	done
	wait $sessions
	wait "$s20" "$s50" 2>/dev/null
	check_pids=

	if [ "$leaders" != 1 ]; then
		echo "concurrent: $leaders leader programs for one event, expected 1"
		err=1
	fi
	# -p: the same, or one more as the target exits (stat_bpf_counters_inherit.sh)
	concurrent_check "-p of 50 sleeps" "$tmpdir/c20" 50 +1
	concurrent_check "-p of 20 sleeps" "$tmpdir/c50" 20 +1
	# a workload: counted from perf stat's enable by BPF, from its exec by
	# the perf event, a few switches a run more on a loaded machine
	concurrent_check "workload of 100 sleeps" "$tmpdir/cwl" 100 +50%
	# CPU 0 sees the 50 sleeps switch out and back in: 100 at least; the
	# two windows differ by the time between the enables and between the
	# disables
	concurrent_check "-C 0" "$tmpdir/ccpu" 100 "~5%"
}

# concurrent_check WHAT FILE FLOOR DIFF: the perf event and BPF counted
# FLOOR at least, and BPF as much as the perf event and DIFF more (+N,
# +N%), or within N% of it either way (~N%, or 2)
concurrent_check() {
	local plain cs min max n

	plain=$(stat_count "$2" context-switches)
	cs=$(stat_count "$2" cs)
	if ! expect_min_count "concurrent: $1: perf stat" "$3" "$plain" > /dev/null ||
	   ! expect_min_count "concurrent: $1: --bpf-counters" "$3" "$cs" > /dev/null; then
		echo "concurrent: $1: perf stat '$plain', --bpf-counters '$cs', both must be >= $3"
		return
	fi
	case "$4" in
	+*%)	min=$plain max=$((plain + plain * ${4:1:-1} / 100)) ;;
	+*)	min=$plain max=$((plain + ${4:1})) ;;
	~*%)	n=$((plain * ${4:1:-1} / 100))
		[ $n -lt 2 ] && n=2
		min=$((plain - n)) max=$((plain + n)) ;;
	esac
	if [ "$cs" -lt "$min" ] || [ "$cs" -gt "$max" ]; then
		echo "FAIL: concurrent: $1: perf stat $plain, --bpf-counters $cs, expected $min to $max"
		err=1
	else
		echo "ok: concurrent: $1: perf stat $plain, --bpf-counters $cs"
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
			perf stat --bpf-counters --bpf-attr-map "$attr_map" \
				-e context-switches -a -- sleep 10 \
				> /dev/null 2>&1 &
			p=$!
			# killed once it counts: it holds the leader's four links
			wait_bpf_links $p 4
			# the objects are seen at all: a counting session holds them
			case "$(bperf_objects)" in
			"progs 0 "* | *" links 0")
				echo "kill/reclaim: a counting session holds no bperf objects:" \
				     "$(bperf_objects)"
				err=1 ;;
			esac
			kill -9 $p
			wait $p 2>/dev/null
		elif ! perf stat --bpf-counters --bpf-attr-map "$attr_map" \
				-e context-switches -a -- true \
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

	local pids=()

	for i in $(seq 1 8); do
		perf stat -x, -o "$tmpdir/s$i" --bpf-counters --bpf-attr-map "$attr_map" \
			-e context-switches,page-faults -- \
			perf test -w sleeper 10 20 > /dev/null 2>&1 &
		pids[i]=$!
	done
	for i in $(seq 1 8); do
		if ! wait "${pids[i]}"; then
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

	cs_stat -o "$tmpdir/repeat" -r 5 -- perf test -w sleeper 10 20
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
# The attr map holds 16 events, and nothing else removes an entry: the
# 17th distinct event of a machine failed for good.  Entries whose leader
# is gone (its sessions exited) are reclaimed, so 18 sessions in a row,
# each counting another event, all count.
test_attr_map_reclaim() {
	local ev mod n=0 out cnt
	local map="${attr_map}_reclaim"

	for mod in "" ":u"; do
		for ev in task-clock cpu-clock page-faults minor-faults major-faults \
			  context-switches cpu-migrations alignment-faults emulation-faults; do
			n=$((n + 1))
			perf stat --bpf-counters --bpf-attr-map "$map" -x, -o "$tmpdir/reclaim" \
				-e "$ev$mod" -- true 2> "$tmpdir/reclaim.err"
			cnt=$(stat_count "$tmpdir/reclaim" "$ev$mod")
			case "$cnt" in
			'' | *[!0-9.]*)
				echo "attr map reclaim: event $n ($ev$mod) not counted: '$cnt'," \
				     "$(head -1 "$tmpdir/reclaim.err")"
				err=1 ;;
			esac
		done
	done
	out=$(bpftool map dump pinned "$map" 2>/dev/null | grep -c '^key')
	if [ "$n" != 18 ] || [ -z "$out" ] || [ "$out" -gt 16 ]; then
		echo "attr map reclaim: $n events, $out entries left"
		err=1
	fi
	rm -f "$map"
}

# ns_session NS-ARGS OUT ARGS...: perf stat -x, -o OUT counting context
# switches with a perf_event and through BPF (cs), in the background under
# unshare NS-ARGS; returns once it counts (its perf holds the leader's links)
ns_session() {
	local nsargs=$1 out=$2 child

	shift 2
	# shellcheck disable=SC2086
	PERF_CONFIG="$tmpdir/cs_config" unshare $nsargs --fork \
		perf stat -x, -o "$out" --bpf-attr-map "$attr_map" -e context-switches,cs "$@" &
	ns=$!
	child=
	while [ -z "$child" ] && [ -e "/proc/$ns" ]; do
		child=$(pgrep -P "$ns")
		sleep 0.01
	done
	if [ -z "$child" ]; then
		echo "namespace session: unshare $nsargs ended before its perf started"
		err=1
		return 1
	fi
	wait_bpf_links "$child" 4
}

# check_ns_count WHAT FILE FLOOR: both counts of FILE at least FLOOR, the
# BPF one equal to the perf_event one or up to 2 above (test_sleep_loop)
check_ns_count() {
	local plain bpf

	plain=$(stat_count "$2" context-switches)
	bpf=$(stat_count "$2" cs)
	if ! expect_min_count "$1" "$3" "$plain" > /dev/null || [ -z "$bpf" ] ||
	   [ "$bpf" -lt "$plain" ] || [ "$bpf" -gt $((plain + 2)) ]; then
		echo "$1: perf stat '$plain', --bpf-counters '$bpf' context switches (>= $3)"
		err=1
	fi
}

# Sessions in other namespaces share the attr map with one outside.  A
# session taking a slot frees those of dead sessions: it must not take a
# live one in a time namespace (whose /proc start times are shifted) for
# dead, which made the two sessions share a slot (46 switches for the outer
# loop's 24, nothing for the inner one).  From inside a PID namespace, perf
# knows no pid the leader sees: task targets are refused in one line, CPU
# targets count.
test_namespaces() {
	local want ns out plain bpf

	want="--bpf-counters cannot count tasks from inside a PID namespace, only CPUs (-a, -C)"
	# time namespaces: CONFIG_TIME_NS, util-linux 2.36
	if unshare --time --boottime 100000 --fork true 2> /dev/null; then
		ns_session "--time --boottime 100000" "$tmpdir/ns_inner" \
			-- perf test -w sleeper 10 100 || return
		PERF_CONFIG="$tmpdir/cs_config" perf stat -x, -o "$tmpdir/ns_outer" \
			--bpf-attr-map "$attr_map" -e context-switches,cs -- perf test -w sleeper 10 20
		wait "$ns"
		check_ns_count "time namespace: inner session" "$tmpdir/ns_inner" 100
		check_ns_count "time namespace: outer session" "$tmpdir/ns_outer" 20
	else
		echo "Skip: time namespace: unshare --time does not work here"
	fi
	if ! unshare --pid --fork --mount-proc true 2> /dev/null; then
		echo "Skip: pid namespace: unshare --pid --fork --mount-proc does not work here"
		return
	fi

	out=$(unshare --pid --fork --mount-proc perf stat --bpf-counters \
		--bpf-attr-map "$attr_map" -e context-switches -- true 2>&1)
	if [ $? = 0 ] || [ "$(echo "$out" | head -1)" != "$want" ]; then
		echo "pid namespace: a workload not refused in one line: $out"
		err=1
	fi
	ns_session "--pid --mount-proc" "$tmpdir/ns_inner" -a -- sleep 1 || return
	PERF_CONFIG="$tmpdir/cs_config" perf stat -x, -o "$tmpdir/ns_outer" \
		--bpf-attr-map "$attr_map" -e context-switches,cs -- perf test -w sleeper 10 20
	wait "$ns"
	check_ns_count "pid namespace: outer session" "$tmpdir/ns_outer" 20
	# the outer loop's 20 sleeps switch at least 40 times on the system; the
	# two ways of counting are enabled a moment apart: 10% or 5 apart at most
	plain=$(stat_count "$tmpdir/ns_inner" context-switches)
	bpf=$(stat_count "$tmpdir/ns_inner" cs)
	if ! expect_min_count "pid namespace: inner -a session" 40 "$plain" > /dev/null ||
	   ! awk -v a="$plain" -v b="$bpf" 'BEGIN {
		if (b !~ /^[0-9]+$/) exit 1
		d = a - b; if (d < 0) d = -d
		exit !(d <= 5 || d <= a * 0.1) }'; then
		echo "pid namespace: inner -a session: perf stat '$plain', --bpf-counters '$bpf'"
		err=1
	fi
}

# Sessions share counters by BPF object id, which needs CAP_SYS_ADMIN:
# without it, with or without CAP_BPF and CAP_PERFMON, perf stat says so
# in one line, before libbpf says anything.
test_not_root() {
	local out rc caps want

	want="--bpf-counters: needs CAP_SYS_ADMIN: sessions find the shared counters by BPF object id"
	if ! command -v setpriv > /dev/null; then
		echo "Skip: not root: setpriv (util-linux) missing"
		return
	fi
	for caps in "" "+bpf,+perfmon"; do
		# capability names bpf and perfmon: util-linux 2.36 and later
		if [ -n "$caps" ] && ! setpriv --inh-caps="$caps" true 2> /dev/null; then
			echo "Skip: not root: this setpriv does not know CAP_BPF and CAP_PERFMON"
			continue
		fi
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			${caps:+--inh-caps=$caps --ambient-caps=$caps} \
			"$(command -v perf)" stat --bpf-counters --bpf-attr-map "$attr_map" \
			-e context-switches -- true 2>&1)
		rc=$?
		if [ $rc = 0 ] || [ "$(echo "$out" | head -1)" != "$want" ]; then
			echo "not root (caps '$caps'): exit $rc, expected the line '$want': $out"
			err=1
		fi
	done
	# root of a user namespace holds CAP_SYS_ADMIN there only
	if unshare --user --map-root-user true 2> /dev/null; then
		want="--bpf-counters: loading BPF programs in a user namespace needs a BPF"
		want="$want token delegated to it (Linux 6.9+), or capabilities in the initial user namespace"
		out=$(unshare --user --map-root-user "$(command -v perf)" stat --bpf-counters \
			--bpf-attr-map "$attr_map" -e context-switches -- true 2>&1)
		rc=$?
		if [ $rc = 0 ] || [ "$out" != "$want" ]; then
			echo "user namespace: exit $rc, expected the line '$want': $out"
			err=1
		fi
	fi
}

# cs_stat [--fifo] ARGS...: perf stat -x, counting context switches twice
# over one window, with a perf event and under the alias 'cs' through BPF
# (stat.bpf-counter-events).  --fifo runs it SCHED_FIFO, so that its BPF
# counters and its perf event are enabled and disabled with no other task
# running in between.
cs_stat() {
	local fifo=()

	if [ "$1" = --fifo ]; then
		fifo=(chrt --reset-on-fork -f 1)
		shift
	fi
	PERF_CONFIG="$tmpdir/cs_config" "${fifo[@]}" \
		perf stat -x, --bpf-attr-map "$attr_map" -e context-switches,cs "$@"
}

# A map given with --bpf-attr-map may hold a leader of another perf version,
# one with the follower program: the session says so in one line, loads a
# leader of its own in its place and counts.  The other leader is played by
# a BPF link of perf trace's summary programs put in the map's entry for
# context-switches.
test_other_version() {
	local pin=/sys/fs/bpf/perf_test_stat_other_version_$$ out trace link key value n cnt i

	if ! command -v python3 > /dev/null ||
	   ! perf trace -h 2>&1 | grep -q -- '--bpf-summary'; then
		echo "Skip: other version: needs python3 and perf trace --bpf-summary"
		return
	fi
	perf stat --bpf-counters --bpf-attr-map $pin -e context-switches -- true > /dev/null 2>&1
	perf trace -s --bpf-summary -- sleep 20 > /dev/null 2>&1 &
	trace=$!
	for i in $(seq 100); do
		link=$(bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
ids = [p["id"] for p in json.load(sys.stdin) if p.get("name") == "sys_enter"]
print(max(ids) if ids else "")')
		[ -n "$link" ] && link=$(bpftool -j link show 2>/dev/null | python3 -c '
import json, sys
ids = [l["id"] for l in json.load(sys.stdin) if l.get("prog_id") == '"$link"']
print(ids[0] if ids else "")')
		[ -n "$link" ] && break
		sleep 0.1
	done
	key=$(bpftool -j map dump pinned $pin 2>/dev/null | python3 -c '
import json, sys
e = json.load(sys.stdin)
print(" ".join(e[0]["key"]) if len(e) == 1 else "")')
	if [ -z "$link" ] || [ -z "$key" ]; then
		echo "other version: no perf trace link ('$link') or no single attr map entry"
		err=1
	else
		# struct perf_event_attr_map_entry: link_id, diff_map_id
		value=$(printf '%02x %02x %02x %02x 00 00 00 00' $((link & 255)) \
			$((link >> 8 & 255)) $((link >> 16 & 255)) $((link >> 24)))
		# the bytes are words of their own
		# shellcheck disable=SC2086
		bpftool map update pinned $pin key hex $key value hex $value
		out=$(perf stat --bpf-counters --bpf-attr-map $pin -x, \
			-e context-switches -- perf test -w sleeper 10 20 2>&1)
		n=$(echo "$out" | grep -c \
			"the leader of context-switches in the attr map is of another perf version")
		cnt=$(echo "$out" | awk -F, '/,context-switches/ { print $1 }')
		if [ "$n" != 1 ] || [ -z "$cnt" ] || [ "$cnt" -lt 20 ]; then
			echo "other version: expected one line on the other leader" \
			     "and >= 20 context switches: $out"
			err=1
		fi
	fi
	kill -INT $trace 2>/dev/null
	wait $trace 2>/dev/null
	rm -f $pin
}

# stat.bpf-counter-sessions sets the task sessions of the leaders a session
# loads: with 2, a third session counting tasks is refused in one line
# naming the number until one of the two ends; CPU sessions take no slot.
# Values out of range are refused in one line.
test_session_limit() {
	local map="${attr_map}_limit" cfg="$tmpdir/limit_config" out want rc i
	local -a sleepers=() tasks=()

	printf '[stat]\n\tbpf-counter-sessions = 2\n' > "$cfg"
	# two task sessions, each holding its slot ("Events enabled") before
	# the next starts
	for i in 1 2; do
		sleep 100 &
		sleepers+=($!)
		PERF_CONFIG="$cfg" perf stat --bpf-counters --bpf-attr-map "$map" \
			-e context-switches -D 1 -p $! -o /dev/null 2> "$tmpdir/limit$i.log" &
		tasks+=($!)
		if ! wait_log_line "$!" "$tmpdir/limit$i.log" "Events enabled"; then
			cat "$tmpdir/limit$i.log"
			kill -INT "${tasks[@]}" 2>/dev/null
			kill "${sleepers[@]}"
			wait
			rm -f "$map"
			return
		fi
	done
	out=$(PERF_CONFIG="$cfg" perf stat --bpf-counters --bpf-attr-map "$map" \
		-e context-switches -- true 2>&1)
	rc=$?
	want="--bpf-counters: all 2 sessions counting tasks for this event are in use;"
	want="$want stat.bpf-counter-sessions sets the number for new events"
	if [ $rc = 0 ] || ! echo "$out" | grep -qxF -e "$want"; then
		echo "session limit: a third task session got exit $rc: $out"
		err=1
	fi
	if ! perf stat --bpf-counters --bpf-attr-map "$map" -a -e context-switches \
		-o /dev/null -- true; then
		echo "session limit: a CPU session was refused"
		err=1
	fi
	kill -INT "${tasks[0]}"
	wait "${tasks[0]}"
	if ! out=$(PERF_CONFIG="$cfg" perf stat --bpf-counters --bpf-attr-map "$map" \
		-x, -e context-switches -- true 2>&1); then
		echo "session limit: no slot after a session ended: $out"
		err=1
	fi
	kill -INT "${tasks[1]}"
	wait "${tasks[1]}"
	kill "${sleepers[@]}"
	wait "${sleepers[@]}" 2>/dev/null
	rm -f "$map"

	# a bad value is ignored with a warning, and perf goes on
	for i in 0 1025; do
		printf '[stat]\n\tbpf-counter-sessions = %d\n' $i > "$cfg"
		out=$(PERF_CONFIG="$cfg" perf stat --bpf-counters --bpf-attr-map "$map" \
			-x, -e context-switches -- true 2>&1)
		rc=$?
		want="stat.bpf-counter-sessions is $i, not 1 to 1024: ignoring it"
		if [ $rc != 0 ] || ! echo "$out" | grep -qxF "$want" ||
		   ! echo "$out" | grep -q ',context-switches'; then
			echo "session limit: stat.bpf-counter-sessions=$i not ignored" \
			     "with a warning: exit $rc: $out"
			err=1
		fi
	done
	rm -f "$map"
}

# -t: a session counting one thread (a sleep loop's, stopped until its
# session counts), with a perf event and with --bpf-counters at once.
# perf stat runs SCHED_FIFO, so that a loaded machine does not come
# between its enabling, or its disabling, of the two.
test_tid() {
	local t s

	start_stopped sleeper 20 50 || return
	t=$target
	cs_stat --fifo -o "$tmpdir/ctid" -D 1 -t "$t" 2> "$tmpdir/ctid.log" &
	s=$!
	if ! wait_log_line "$s" "$tmpdir/ctid.log" "Events enabled"; then
		kill "$s" "$t" 2>/dev/null
		kill -CONT "$t" 2>/dev/null
		wait "$s" "$t" 2>/dev/null
		check_pids=
		return
	fi
	kill -CONT "$t"
	wait "$s"
	wait "$t" 2>/dev/null
	check_pids=
	# the same, or one more as the thread exits, as for -p
	concurrent_check "-t of 50 sleeps" "$tmpdir/ctid" 50 +1
}

# A session's slot is cleared for its next owner.  With a session on an
# idle task holding slot 0 (and the leader, and the ids the leader looks
# up), one session counts a sleeper that goes on running after it ends;
# the next takes the same slot for a task that sleeps 200 ms at a time
# and must count what perf stat counts for it, two or three switches,
# and not the sleeper's 50 (the filter entries of a slot were left
# behind, looked up by the wrong word of their key).  perf stat runs
# SCHED_FIFO, so that it enables both counters of the sleeper at once.
test_slot_reuse() {
	local idle hold busy quiet

	sleep 30 &
	idle=$!
	cs_stat -o "$tmpdir/reuse_hold" -D 1 -p "$idle" -- sleep 5 2> "$tmpdir/reuse_hold.log" &
	hold=$!
	if ! wait_log_line "$hold" "$tmpdir/reuse_hold.log" "Events enabled"; then
		kill "$hold" "$idle" 2>/dev/null
		wait "$hold" "$idle"
		return
	fi
	perf test -w sleeper 10 300 &
	busy=$!
	perf test -w sleeper 200 50 &
	quiet=$!
	check_pids="${check_pids} ${idle} ${hold} ${busy} ${quiet}"
	cs_stat --fifo -o "$tmpdir/reuse1" -p "$busy" -- sleep 0.5
	cs_stat --fifo -o "$tmpdir/reuse2" -p "$quiet" -- sleep 0.5
	kill "$hold" "$idle" "$busy" "$quiet" 2>/dev/null
	wait "$hold" "$idle" "$busy" "$quiet" 2>/dev/null
	check_pids=
	concurrent_check "slot reuse: a sleeper" "$tmpdir/reuse1" 10 +1
	concurrent_check "slot reuse: then a slower sleeper, in its slot" "$tmpdir/reuse2" 1 +1
}

skip_if_unsupported
bperf_attr_map stat_bpf_sessions
printf '[stat]\n\tbpf-counter-events = cs\n' > "$tmpdir/cs_config"
baseline_objects
test_concurrent
test_tid
test_slot_reuse
test_kill_reclaim
test_simultaneous
test_repeat
test_bad_attr_map
test_attr_map_reclaim
test_namespaces
test_other_version
test_session_limit
test_not_root

[ $err = 0 ] && echo "perf stat --bpf-counters sessions test [Success]"
exit $err
