# SPDX-License-Identifier: GPL-2.0
# perf bench sched pipe (a context switch ping-pong) untraced, then under
# 1, 4, 16 and 64 concurrent "perf stat -a -e context-switches" sessions,
# plain and with --bpf-counters, and under one session counting the
# ping-pong's own tasks (perf stat -- perf bench ...): the case where the
# --bpf-counters leader does its per-task work on every switch, which CPU
# sessions do not ask of it; and under 1, 4, 16 and 64 --bpf-counters
# sessions counting other tasks (-p of a sleeping process), the slot loop
# the leader runs on every switch.  Besides the cost per round trip it reports
# how many perf_events the sessions hold: the fds of plain sessions, and for
# --bpf-counters the per-CPU events of the shared leader, which live in the
# leader's BPF event array rather than in any session's fd table.
#
# The ping-pong runs on one CPU (taskset -c 1, CPU 0 if there is only one):
# each round trip is then exactly two context switches on that CPU, with no
# cross-CPU wakeups, whose cost varies a lot more from run to run here than
# what the sessions add.
#
# The floor: an empty raw_tp/sched_switch program (the attach type of the
# --bpf-counters leader's program), attached for the ping-pong only
# (scripts/bench/floor/sched_switch_empty_raw.bpf.c): the least any
# in-kernel per-switch counter costs.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="perf bench sched pipe on one CPU: usecs per round trip (2 context switches), N perf stat -a -e context-switches sessions"
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_FLOORS="raw_tp sched_switch empty (floor)"
export BENCH_PIPE_LOOPS=${BENCH_PIPE_LOOPS:-100000}
BENCH_PIPE_CPU=$(($(nproc) > 1 ? 1 : 0))
export BENCH_PIPE_CPU
BENCH_CPUS=$BENCH_PIPE_CPU

bench_setup()
{
	bench_build_floors
}

# Usage: bench_pipe [COMMAND...]: the ping-pong's usecs per round trip, run
# on its CPU under COMMAND if one is given
bench_pipe()
{
	"$@" taskset -c "$BENCH_PIPE_CPU" perf bench sched pipe -l "$BENCH_PIPE_LOOPS" 2>/dev/null |
		awk '/usecs\/op/ { print $1 }'
}
export -f bench_pipe

# Usage: bench_stat_sessions N [perf stat options]
# BENCH_PIPE_WRAP: a command the ping-pong runs under (the floor's loader)
bench_stat_sessions()
{
	local n=$1 i pids= fds=0 leaders usecs p

	shift
	for ((i = 0; i < n; i++)); do
		perf stat -a -e context-switches "$@" -o /dev/null &
		pids="$pids $!"
	done
	# let every session load and enable its counter
	[ "$n" -gt 0 ] && sleep $((2 + n / 4))
	for p in $pids; do
		fds=$((fds + $(ls -l /proc/$p/fd 2>/dev/null | grep -c perf_event)))
	done
	leaders=$(bpftool prog show name bperf_on_switch 2>/dev/null | grep -c '^[0-9]')
	fds=$((fds + leaders * $(nproc)))
	usecs=$(bench_pipe ${BENCH_PIPE_WRAP:-})
	for p in $pids; do
		kill -INT $p
	done
	wait $pids
	[ -n "$usecs" ] || return 1
	echo "usecs_per_op=$usecs"
	echo "perf_events=$fds"
}
export -f bench_stat_sessions

# Usage: bench_stat_task [perf stat options]: the ping-pong counted as the
# workload of one perf stat session (its tasks, inherited)
bench_stat_task()
{
	local usecs

	usecs=$(bench_pipe perf stat -e context-switches "$@" -o /dev/null --)
	[ -n "$usecs" ] || return 1
	echo "usecs_per_op=$usecs"
}
export -f bench_stat_task

# Usage: bench_stat_other_tasks N [perf stat options]: N sessions each
# counting a sleeping process (-p) while the ping-pong runs uncounted: with
# --bpf-counters every switch of the ping-pong still runs the leader, which
# scans the N task slots and finds its tasks in none (the slot loop's
# share).  Plain per-task sessions of other tasks are not run: their
# events are switched with their own tasks only.
bench_stat_other_tasks()
{
	local n=$1 i pids= sleepers= usecs p

	shift
	for ((i = 0; i < n; i++)); do
		sleep 1000 &
		sleepers="$sleepers $!"
		perf stat -e context-switches -p $! "$@" -o /dev/null &
		pids="$pids $!"
	done
	[ "$n" -gt 0 ] && sleep $((2 + n / 4))
	usecs=$(bench_pipe ${BENCH_PIPE_WRAP:-})
	for p in $pids; do
		kill -INT $p
	done
	wait $pids
	kill $sleepers 2>/dev/null
	wait $sleepers 2>/dev/null
	[ -n "$usecs" ] || return 1
	echo "usecs_per_op=$usecs"
}
export -f bench_stat_other_tasks

bench_case untraced "bench_stat_sessions 0"
bench_case "raw_tp sched_switch empty (floor)" \
	"BENCH_PIPE_WRAP=\"\$BENCH_FLOOR_DIR/floor \$BENCH_FLOOR_DIR/sched_switch_empty_raw.bpf.o\" bench_stat_sessions 0"
bench_case "1 plain, task" "bench_stat_task"
bench_case "1 bpf, task" "bench_stat_task --bpf-counters"
for n in 1 4 16 64; do
	bench_case "$n plain" "bench_stat_sessions $n"
	bench_case "$n bpf" "bench_stat_sessions $n --bpf-counters"
done
for n in 1 4 16 64; do
	bench_case "$n bpf, other tasks" "bench_stat_other_tasks $n --bpf-counters"
done
