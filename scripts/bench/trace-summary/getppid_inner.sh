#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the tracer: prints the CPU time (user + system) per call of N
# getppid() calls, minus that of starting the workload (a run with 0 calls),
# then the same in wall-clock time.  CPU time is what a syscall tracer adds
# to the traced task (its BPF programs run in the task); unlike wall time it
# does not include waiting for a CPU on a loaded machine.
# Usage: getppid_inner.sh N
# The workload is the series' perf (BENCH_TS_PERF): a perf tracing it puts
# its own directory first in PATH, and unpatched perf has no getppid_loop.
n=$1
perf=${BENCH_TS_PERF:-perf}

# Prints "cpu_ns wall_ns" of a command
run()
{
	local TIMEFORMAT='%3U %3S %3R' t

	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	echo "$t" | awk '{ printf "%.0f %.0f\n", ($1 + $2) * 1e9, $3 * 1e9 }'
}

read -r c0 w0 < <(run "$perf" test -w getppid_loop 0)
read -r c1 w1 < <(run "$perf" test -w getppid_loop "$n")
echo "ns_per_call=$(((c1 - c0) / n))"
echo "wall_ns_per_call=$(((w1 - w0) / n))"
