#!/bin/bash
# perf stat --bpf-counters counts like perf stat
# SPDX-License-Identifier: GPL-2.0
#
# --bpf-counters must work without BPF trampolines, count the children a
# target forks after the session started (unless --no-inherit), and agree
# with plain perf stat for the same tasks and CPUs.
#
# To compare over the same window, one perf stat session counts each event
# twice: under its name with a perf_event, and under its alias through BPF,
# as the stat.bpf-counter-events config asks.

# err, tmpdir and target belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup stat_bpf_inherit
events=context-switches,page-faults,cpu-migrations

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

skip_if_unsupported() {
	if bperf_missing; then
		exit 2
	fi
	if [ ! -d /sys/fs/bpf ]; then
		echo "Skip: no /sys/fs/bpf to mount bpffs on"
		exit 2
	fi
}

printf '[stat]\n\tbpf-counter-events = cs,faults,migrations\n' > "$tmpdir/config"

# perf stat -x, -o FILE ARGS...: each event counted with a perf_event and
# under its alias by BPF.  perf stat enables and disables its BPF counters
# just before its perf events: a loaded machine that preempts it in between
# for tens of ms moves a CPU's counts by thousands (122547 against 136753
# context switches at a load average of 200).  So perf stat runs SCHED_FIFO
# here, so that no other task runs between the two (it may still block);
# its workload does not (--reset-on-fork).
stat_both() {
	local out=$1

	shift
	PERF_CONFIG="$tmpdir/config" chrt --reset-on-fork -f 1 \
		perf stat -x, -o "$out" --bpf-attr-map "$attr_map" \
		-e context-switches,cs,page-faults,faults,cpu-migrations,migrations "$@"
}

# stat_stopped FILE SCRIPT: sh -c SCRIPT, stopped until the stat_both
# session counting it (-p) has enabled all its counters.  perf stat enables
# its BPF counters before the others: started with -D, it says "Events
# enabled" once both are on, which its BPF links alone do not tell.
stat_stopped() {
	local out=$1 stat

	(kill -STOP "${BASHPID}"; exec sh -c "$2") &
	target=$!
	check_pids=$target
	while [ "$(awk '{ print $3 }' "/proc/${target}/stat" 2>/dev/null)" != "T" ]; do
		sleep 0.01
	done
	# perf itself in the background, for its pid
	PERF_CONFIG="$tmpdir/config" perf stat -x, -o "$out" --bpf-attr-map "$attr_map" \
		-e context-switches,cs,page-faults,faults,cpu-migrations,migrations \
		-D 1 -p "$target" 2> "$out.log" &
	stat=$!
	if ! wait_log_line "$stat" "$out.log" 'Events enabled'; then
		cat "$out.log"
	fi
	kill -CONT "$target"
	wait "$stat"
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

# event:alias of the events the workloads here make happen, with the
# count each must reach before the two ways of counting are compared.
# cpu-migrations is not compared: nothing here forces migrations.
floors="context-switches:cs:50 page-faults:faults:100"

# every event of $floors agrees in output file $1; $2 names the case.
# $3, if given, is the number of tasks of the case that exit while counted:
# a task preempted after perf_event_exit_task() but before exit_notify()
# counts one context switch more with --bpf-counters (the leader cannot see
# that perf stat stopped counting it), and a loaded machine preempts many
# of them, so each may count one more, and none fewer.
check_pairs() {
	local pair event alias floor plain bpf exits=${3:-}

	for pair in $floors; do
		event=${pair%%:*}
		alias=${pair#*:}
		floor=${alias#*:}
		alias=${alias%:*}
		plain=$(stat_count "$1" "$event")
		bpf=$(stat_count "$1" "$alias")
		if ! expect_min_count "$2: $event" "$floor" "$plain" > /dev/null ||
		   ! expect_min_count "$2: $alias" "$floor" "$bpf" > /dev/null; then
			echo "$2: $event: perf stat '$plain', --bpf-counters '$bpf', both must be >= $floor"
			err=1
		elif [ "$event" = context-switches ] && [ -n "$exits" ]; then
			if [ "$bpf" -lt "$plain" ] || [ "$bpf" -gt $((plain + exits)) ]; then
				echo "$2: $event: perf stat $plain, --bpf-counters $bpf (0 to $exits more)"
				err=1
			fi
		elif ! agree "$plain" "$bpf"; then
			echo "$2: $event: perf stat $plain, --bpf-counters $bpf"
			err=1
		fi
	done
}

# A shell that, once the session is attached, forks three workloads: two
# sleep loops (50 sleeps each) and a getppid loop, then 50 short-lived
# processes.  Both ways of counting must see the same children do the same
# work; a switch counted for the task entering the CPU instead of the one
# leaving it would count one more per short-lived process.
test_same_as_plain() {
	local run=$1 bpf

	# shellcheck disable=SC2016
	if ! stat_stopped "$tmpdir/same" 'perf test -w sleeper 10 50 &
	       perf test -w sleeper 10 50 &
	       perf test -w getppid_loop 500000
	       wait
	       for i in $(seq 50); do /bin/true; done'; then
		echo "run $run: perf stat -p failed"
		err=1
	fi
	# exiting tasks: sh, three workloads, the subshell and seq of $(seq 50),
	# 50 true
	check_pairs "$tmpdir/same" "run $run" 56
	# 100 sleeps in children, each a context switch
	bpf=$(stat_count "$tmpdir/same" cs)
	if [ -z "$bpf" ] || [ "$bpf" -lt 100 ]; then
		echo "run $run: children not counted: $bpf context-switches"
		err=1
	fi
}

# A known sleep loop: a process doing 50 sleeps, started once the session
# is attached: 50 switches and more.  Each switch is counted for the task
# leaving the CPU, as perf stat does.  The only difference allowed is one
# the leader cannot see: a task preempted after perf_event_exit_task() but
# before exit_notify() counts one switch more with --bpf-counters, and two
# tasks (sh and sleep) exit here.
test_sleep_loop() {
	local plain bpf

	stat_stopped "$tmpdir/sleep" 'exec perf test -w sleeper 10 50'
	plain=$(stat_count "$tmpdir/sleep" context-switches)
	bpf=$(stat_count "$tmpdir/sleep" cs)
	if [ -z "$bpf" ] || [ -z "$plain" ] || [ "$bpf" -lt 50 ] ||
	   [ "$bpf" -lt "$plain" ] || [ "$bpf" -gt $((plain + 2)) ]; then
		echo "sleep loop: --bpf-counters $bpf, perf stat $plain context-switches (>= 50)"
		err=1
	fi
}

# Sessions counting CPUs: a sleep loop pinned to CPU 1 switches at least
# twice per sleep there, and both ways of counting agree for -a and -C 1.
test_cpus() {
	local target_opt cs

	for target_opt in -a "-C 1"; do
		# shellcheck disable=SC2086
		stat_both "$tmpdir/cpus" $target_opt -- \
			taskset -c 1 perf test -w sleeper 10 100
		check_pairs "$tmpdir/cpus" "$target_opt"
		cs=$(stat_count "$tmpdir/cpus" cs)
		if [ -z "$cs" ] || [ "$cs" -lt 200 ]; then
			echo "$target_opt: $cs context-switches, expected >= 200"
			err=1
		fi
	done
}

# A workload's children are counted; with --no-inherit only the workload.
test_workload() {
	local inherit no_inherit plain

	perf stat -x, -o "$tmpdir/wl" --bpf-counters --bpf-attr-map "$attr_map" -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	perf stat -x, -o "$tmpdir/wl_plain" -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	perf stat -x, -o "$tmpdir/wl_noinh" --bpf-counters --bpf-attr-map "$attr_map" \
		--no-inherit -e $events -- \
		sh -c 'perf test -w sleeper 10 50 & perf test -w sleeper 10 50; wait'
	inherit=$(stat_count "$tmpdir/wl" context-switches)
	no_inherit=$(stat_count "$tmpdir/wl_noinh" context-switches)
	if [ -z "$inherit" ] || [ "$inherit" -lt 100 ]; then
		echo "workload: children not counted: $inherit context-switches"
		err=1
	fi
	if [ -z "$no_inherit" ] || [ "$no_inherit" -ge 50 ]; then
		echo "workload --no-inherit: children counted: $no_inherit context-switches"
		err=1
	fi
	# page faults of the same programs do not depend on the load
	inherit=$(stat_count "$tmpdir/wl" page-faults)
	plain=$(stat_count "$tmpdir/wl_plain" page-faults)
	if ! agree "$plain" "$inherit"; then
		echo "workload: page-faults: perf stat $plain, --bpf-counters $inherit"
		err=1
	fi
}

# what check_cleanup does not undo
check_more_cleanup() {
	bperf_attr_map_rm
}

skip_if_unsupported
bperf_attr_map stat_bpf_inherit
for run in 1 2 3; do
	test_same_as_plain $run
done
test_sleep_loop
if [ "$(nproc)" -lt 2 ]; then
	skip_check "-a and -C 1" "one CPU"
elif ! chrt -f 1 true 2>/dev/null; then
	skip_check "-a and -C 1" "perf stat cannot run SCHED_FIFO here"
else
	test_cpus
fi
test_workload

[ $err = 0 ] && echo "perf stat --bpf-counters same as perf stat test [Success]"
check_exit
