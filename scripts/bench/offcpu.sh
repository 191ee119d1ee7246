# SPDX-License-Identifier: GPL-2.0
# Context switches under off-cpu profiling: perf bench sched pipe (two
# tasks ping-pong through pipes, every switch is a sleep) pinned to one CPU,
# timed by offcpu/pipe_inner.sh in CPU time (the primary figure): untraced;
# under the floors of scripts/bench/floor/ (an empty tp_btf/sched_switch
# program, and one that only walks the user stack of the task going to
# sleep); under perf record -e dummy without --off-cpu; under the base's
# perf record --off-cpu (the base built without the series into
# build/unpatched, or BENCH_BASE_PERF=path), with its default threshold and
# with every interval dumped (0); under the series' --off-cpu with a huge
# threshold (every interval summed in BPF), the default (500 ms) and 0; and
# under a bpftrace script keeping the same data (user stack and off-cpu
# time per switch).  OFFCPU_MSG_LOOPS=N adds perf bench sched messaging -l
# N as a second figure.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="off-cpu: CPU usec per sched pipe round trip on one CPU (2 switches), perf.data KB"
BENCH_ROUNDS=${BENCH_ROUNDS:-11}
BENCH_FLOORS="tp_btf sched_switch empty (floor)
user stack walk only (floor)"
export OFFCPU_PIPE_LOOPS=${OFFCPU_PIPE_LOOPS:-100000}
export OFFCPU_MSG_LOOPS=${OFFCPU_MSG_LOOPS:-0}
OFFCPU_CPU=$(($(nproc) > 1 ? 1 : 0))
export OFFCPU_CPU
export OFFCPU_SRC=$ROOT/scripts/bench/offcpu
export BENCH_BASE_PERF=${BENCH_BASE_PERF:-$BUILD/unpatched/perf/perf}

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

bench_setup()
{
	bench_build_floors
	if [ ! -x "$BENCH_BASE_PERF" ]; then
		echo "building the base's perf (without the series) into $BUILD/unpatched" >&2
		# build.sh's final check wants the series' features: the binary is what counts
		SERIES=none PERF_SERIES_BUILD=$BUILD/unpatched "$ROOT/scripts/build.sh" >&2 || true
		[ -x "$BENCH_BASE_PERF" ] || die "cannot build the base's perf"
	fi
}

# Usage: offcpu_run none|bpftrace|floor-NAME|dummy|base|THRESH_MSEC
# Prints usec per pipe round trip in CPU time (the primary figure: on a
# shared machine it leaves out waiting for the CPU) and in wall-clock
# time, measured inside the tool by offcpu/pipe_inner.sh, the messaging
# time, and the size of what the tool wrote (perf.data, or bpftrace's
# output).
offcpu_run()
{
	local how=$1 dir pipe msg size=0 w ws=pipe
	local pipe_cmd="/bin/bash $OFFCPU_SRC/pipe_inner.sh $OFFCPU_CPU $OFFCPU_PIPE_LOOPS"
	local msg_cmd="perf bench sched messaging -g 2 -l $OFFCPU_MSG_LOOPS"

	[ "$OFFCPU_MSG_LOOPS" -gt 0 ] && ws="pipe msg"
	dir=$(mktemp -d)
	for w in $ws; do
		local cmd=${w}_cmd

		case $how in
		none)
			${!cmd} > "$dir/$w.out" 2>&1 ;;
		floor-*)
			"$BENCH_FLOOR_DIR/floor" "$BENCH_FLOOR_DIR/${how#floor-}.bpf.o" \
				${!cmd} > "$dir/$w.out" 2>&1 ;;
		bpftrace)
			# -c wants a path that matches one binary only
			bpftrace -e "$OFFCPU_BT" -c "$(command -v ${!cmd%% *}) ${!cmd#* }" \
				> "$dir/$w.out" 2>&1 ;;
		dummy)
			perf record -q -e dummy -o "$dir/$w.data" -- ${!cmd} \
				> "$dir/$w.out" 2>&1
			size=$((size + $(stat -c %s "$dir/$w.data"))) ;;
		base|base-*)
			# base-THRESH_MSEC: the base's --off-cpu-thresh (7.2)
			local thresh=()
			[ "$how" = base ] || thresh=(--off-cpu-thresh="${how#base-}")
			"$BENCH_BASE_PERF" record -q --off-cpu "${thresh[@]}" -e dummy \
				-o "$dir/$w.data" -- ${!cmd} > "$dir/$w.out" 2>&1
			size=$((size + $(stat -c %s "$dir/$w.data"))) ;;
		*)
			perf record -q --off-cpu --off-cpu-thresh="$how" -e dummy \
				-o "$dir/$w.data" -- ${!cmd} > "$dir/$w.out" 2>&1
			size=$((size + $(stat -c %s "$dir/$w.data"))) ;;
		esac
	done
	[ "$how" = bpftrace ] && size=$(cat "$dir"/*.out | wc -c)
	pipe=$(grep -E '^(cpu_)?usec_per_pipe_op=[0-9.]+$' "$dir/pipe.out" | sort)
	[ "$(wc -l <<< "$pipe")" = 2 ] || { cat "$dir/pipe.out" >&2; rm -rf "$dir"; return 1; }
	echo "$pipe"
	if [ "$OFFCPU_MSG_LOOPS" -gt 0 ]; then
		msg=$(awk '/Total time:/ { print $3 * 1000; exit }' "$dir/msg.out")
		echo "messaging_ms=$msg"
	fi
	case $how in
	none|floor-*) ;;
	*) echo "output_kb=$((size / 1024))" ;;
	esac
	rm -rf "$dir"
}
export -f offcpu_run

bench_case untraced "offcpu_run none"
bench_case "tp_btf sched_switch empty (floor)" "offcpu_run floor-sched_switch_empty"
bench_case "user stack walk only (floor)" "offcpu_run floor-sched_switch_ustack"
bench_case "perf record -e dummy, no --off-cpu" "offcpu_run dummy"
bench_case "base --off-cpu" "offcpu_run base"
bench_case "--off-cpu, former (thresh huge)" "offcpu_run 1000000000"
bench_case "--off-cpu (default 500 ms)" "offcpu_run 500"
bench_case "--off-cpu-thresh=0" "offcpu_run 0"
bench_case "base --off-cpu-thresh=0" "offcpu_run base-0"
bench_case "bpftrace ustack per switch" "offcpu_run bpftrace"
