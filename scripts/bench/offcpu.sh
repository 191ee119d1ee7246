# SPDX-License-Identifier: GPL-2.0
# Context switches under off-cpu profiling: perf bench sched pipe (two
# tasks ping-pong through pipes, every switch is a sleep) and sched
# messaging (groups of senders/receivers on sockets), untraced, under
# perf record --off-cpu with the former behaviour (a huge threshold: every
# interval summed in BPF, written at the end), with the default threshold
# (500 ms), with every interval dumped (threshold 0), and under a bpftrace
# script keeping the same data (user stack and off-cpu time per switch).
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="off-cpu: usec per sched pipe round trip (and messaging ms, perf.data KB)"
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
export OFFCPU_PIPE_LOOPS=${OFFCPU_PIPE_LOOPS:-100000}
export OFFCPU_MSG_LOOPS=${OFFCPU_MSG_LOOPS:-10}

# Off-cpu time per user stack and task, as perf record --off-cpu keeps it.
export OFFCPU_BT='tracepoint:sched:sched_switch /args->prev_state == 1 || args->prev_state == 2/ {
	@start[args->prev_pid] = nsecs;
	@stack[args->prev_pid] = ustack;
}
tracepoint:sched:sched_switch /@start[args->next_pid]/ {
	@off[@stack[args->next_pid], args->next_pid] = sum(nsecs - @start[args->next_pid]);
	delete(@start[args->next_pid]);
	delete(@stack[args->next_pid]);
}'

# Usage: offcpu_run none|bpftrace|THRESH_MSEC
# Prints usec per pipe round trip, messaging time, and the size of what the
# tool wrote (perf.data, or bpftrace's output).
offcpu_run()
{
	local how=$1 dir out pipe msg size=0 w
	local pipe_cmd="perf bench sched pipe -l $OFFCPU_PIPE_LOOPS"
	local msg_cmd="perf bench sched messaging -g 2 -l $OFFCPU_MSG_LOOPS"

	dir=$(mktemp -d)
	for w in pipe msg; do
		local cmd=${w}_cmd

		case $how in
		none)
			${!cmd} > "$dir/$w.out" 2>&1 ;;
		bpftrace)
			# -c wants a path that matches one binary only
			bpftrace -e "$OFFCPU_BT" -c "$(command -v perf) ${!cmd#perf }" \
				> "$dir/$w.out" 2>&1 ;;
		*)
			perf record -q --off-cpu --off-cpu-thresh="$how" -e dummy \
				-o "$dir/$w.data" -- ${!cmd} > "$dir/$w.out" 2>&1
			size=$((size + $(stat -c %s "$dir/$w.data"))) ;;
		esac
	done
	[ "$how" = bpftrace ] && size=$(cat "$dir"/*.out | wc -c)
	pipe=$(awk '/usecs\/op/ { print $1; exit }' "$dir/pipe.out")
	msg=$(awk '/Total time:/ { print $3 * 1000; exit }' "$dir/msg.out")
	rm -rf "$dir"
	echo "usec_per_pipe_op=$pipe"
	echo "messaging_ms=$msg"
	echo "output_kb=$((size / 1024))"
}
export -f offcpu_run

bench_case untraced "offcpu_run none"
bench_case "--off-cpu, former (thresh huge)" "offcpu_run 1000000000"
bench_case "--off-cpu (default 500 ms)" "offcpu_run 500"
bench_case "--off-cpu-thresh=0" "offcpu_run 0"
bench_case "bpftrace ustack per switch" "offcpu_run bpftrace"
