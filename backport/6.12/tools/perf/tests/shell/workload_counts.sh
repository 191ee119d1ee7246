#!/bin/bash
# perf test workloads make exactly the calls their arguments say
# SPDX-License-Identifier: GPL-2.0

# The shell tests of the BPF features compare perf's output with what these
# workloads did, so first check the workloads against syscall tracepoints.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

if ! perf list tracepoint 2>/dev/null | grep -q 'syscalls:sys_enter_getppid'; then
	echo "Skip: no syscalls:* tracepoints (tracefs not mounted or no root)"
	exit 2
fi
check_setup workload_counts

# count EVENT WORKLOAD ARGS...: the event's count from perf stat -x,
count()
{
	local event=$1

	shift
	perf stat -x, -o "${tmpdir}/stat" -e "$event" -- perf test -w "$@" >/dev/null 2>&1
	stat_count "${tmpdir}/stat" "$event"
}

expect_count "getppid_loop 12345 calls" 12345 "$(count syscalls:sys_enter_getppid getppid_loop 12345)"
expect_count "getppid_loop 1000 700, both threads" 1700 \
	"$(count syscalls:sys_enter_getppid getppid_loop 1000 700)"
expect_count "getppid_loop 3 50 fork, 50 processes" 150 \
	"$(count syscalls:sys_enter_getppid getppid_loop 3 50 fork)"
expect_count "getppid_loop 3 50 fork, forks" 50 "$(count task:task_newtask getppid_loop 3 50 fork)"
expect_count "syscall_fail 321 flock calls" 321 "$(count syscalls:sys_enter_flock syscall_fail 321)"

# every one of them fails with EBADF (-9)
perf stat -x, -o "${tmpdir}/stat" -e syscalls:sys_exit_flock --filter 'ret == -9' -- \
	perf test -w syscall_fail 321 >/dev/null 2>&1
fails=$(stat_count "${tmpdir}/stat" syscalls:sys_exit_flock)
expect_count "syscall_fail 321 calls failing with EBADF" 321 "$fails"

expect_count "sleeper 20 3 5 4 sleeps" 7 "$(count syscalls:sys_enter_clock_nanosleep sleeper 20 3 5 4)"

# 3 x 200 ms: the wall time is at least 600 ms
t0=$(date +%s%N)
perf test -w sleeper 200 3
ms=$((($(date +%s%N) - t0) / 1000000))
if [ $ms -lt 600 ]; then
	echo "FAIL: sleeper 200 3 took ${ms} ms, less than 600 ms"
	err=1
else
	echo "ok: sleeper 200 3 took ${ms} ms"
fi

# bad arguments are errors, not zero
if perf test -w getppid_loop nonsense 2>/dev/null; then
	echo "FAIL: getppid_loop accepted a non-number"
	err=1
fi
if perf test -w getppid_loop 3 5 spoon 2>/dev/null; then
	echo "FAIL: getppid_loop accepted a mode other than fork"
	err=1
fi
if perf test -w sleeper -5 1 2>/dev/null; then
	echo "FAIL: sleeper accepted a negative time"
	err=1
fi

check_exit
