#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the tool measured: perf bench sched pipe -l N pinned to CPU,
# then prints usec per round trip in wall-clock time (perf bench's own
# figure) and in CPU time (user + system of the two ping-pong tasks, from
# bash's "time", minus that of a run of 1 round trip: perf's own start),
# which on a shared machine does not include waiting for the CPU.
# bpftrace -c splits its command at spaces: arguments only.
# Usage: pipe_inner.sh CPU N
cpu=$1 n=$2
TIMEFORMAT='%3U %3S'

# Usage: pipe LOOPS: the ping-pong, its output on stdout, "user sys" seconds in $tmp
pipe()
{
	{ time taskset -c "$cpu" perf bench sched pipe -l "$1" 2>/dev/null; } 2>"$tmp"
}

tmp=$(mktemp)
pipe 1 >/dev/null || exit 1
read -r u0 s0 < "$tmp"
out=$(pipe "$n") || exit 1
read -r u1 s1 < "$tmp"
rm -f "$tmp"
echo "usec_per_pipe_op=$(awk '/usecs\/op/ { print $1; exit }' <<< "$out")"
awk -v n="$n" -v c0="$(echo "$u0 + $s0" | bc)" -v c1="$(echo "$u1 + $s1" | bc)" \
	'BEGIN { printf "cpu_usec_per_pipe_op=%.3f\n", (c1 - c0) * 1e6 / (n - 1) }'
