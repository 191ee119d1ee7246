#!/bin/bash
# perf trace -s counts every call of a known workload (exclusive)
# SPDX-License-Identifier: GPL-2.0

# The user-space summary of 'perf trace -s' counts the sys_exit samples
# perf reads from the ring buffers.  The buffers here (-m 8M per CPU) hold every
# sample of the workload even if perf never read them while it runs, so
# none can be lost to an overflow: each count must be exact.  A sample
# stepped over while reading shows up as a missing call.  Five runs, each
# of which must be exact, make a race in the reading likely to show.
# Then 200 processes in a row, each of which perf must see from its
# first call, and 1000 that live a few microseconds each, whose exit may
# be read before their fork.
#
# Then the same while another perf trace session traces only openat: its
# BPF programs on raw_syscalls:* must not take getppid away from this one.
# Last, a summary that lost samples must say how many.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154

if [ "$(id -u)" != 0 ]; then
	echo "Skip: perf trace needs root"
	exit 2
fi
if ! perf list tracepoint 2>/dev/null | grep -q 'raw_syscalls:sys_enter'; then
	echo "Skip: no raw_syscalls:* tracepoints (tracefs not mounted)"
	exit 2
fi

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_summary_exact
out="${tmpdir}/out"
dir="${tmpdir}"
other=

# what check_cleanup does not undo
check_more_cleanup() {
	[ -n "$other" ] && kill "$other" 2>/dev/null
}

# calls COMM: the getppid calls in the summary table of the thread COMM
calls()
{
	awk -v comm="$1" '
		/^ [^ ]/ { in_table = ($1 == comm) }
		in_table && $1 == "getppid" { print $2; exit }' "$out"
}

# check WHAT: both threads' calls are in the summary, exactly
check()
{
	local main second

	main=$(calls perf)
	second=$(calls getppid-2)
	if [ "$main" != 20000 ] || [ "$second" != 10000 ]; then
		echo "FAIL: $1: expected 20000 and 10000 getppid calls, got '$main' and '$second'"
		cat "$out"
		err=1
	else
		echo "ok: $1: 20000 and 10000 getppid calls"
	fi
}

for run in 1 2 3 4 5; do
	# 20000 + 10000 calls: about 4 MB of samples
	if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- \
		perf test -w getppid_loop 20000 10000; then
		echo "FAIL: run $run: perf trace -s failed"
		cat "$out"
		exit 1
	fi
	check "run $run"
done

# 200 processes one after the other, 3 getppid calls each: the first
# samples of each may come before its fork event
seq 200 > "${tmpdir}/200"
if ! perf trace -s --no-bpf-summary -m 8M --summary-mode=total -o "$out" -- \
	xargs -a "${tmpdir}/200" -I{} perf test -w getppid_loop 3; then
	echo "FAIL: perf trace -s of 200 processes failed"
	cat "$out"
	err=1
else
	got=$(awk '$1 == "getppid" { print $2; exit }' "$out")
	if [ "$got" != 600 ]; then
		echo "FAIL: 200 processes: expected 600 getppid calls, got '$got'"
		cat "$out"
		err=1
	else
		echo "ok: 200 processes: 600 getppid calls"
	fi
fi

# 1000 processes forked one after the other, 3 getppid calls each, each
# in a table of its own: a process that runs on another CPU than its
# parent may have its calls and its exit read before its fork event
if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- \
	perf test -w getppid_loop 3 1000 fork; then
	echo "FAIL: perf trace -s of 1000 forks failed"
	cat "$out"
	err=1
else
	got=$(awk '$1 == "getppid" { calls += $2; tables++ }
		   END { print calls + 0, tables + 0 }' "$out")
	if [ "$got" != "3000 1000" ]; then
		echo "FAIL: 1000 forks: expected 3000 getppid calls in 1000 tables, got $got"
		err=1
	else
		echo "ok: 1000 forks: 3000 getppid calls in 1000 tables"
	fi
fi

# The other session runs its workload once its BPF programs are attached
# and its events enabled; the workload says so through a fifo and waits
# on another one to end.
mkfifo "$dir/ready" "$dir/end"
perf trace -e openat -a -o /dev/null -- \
	sh -c "echo ready > $dir/ready; read -r line < $dir/end" &
other=$!
# read-write: the open does not wait for a writer that may never come
if ! read -r -t 60 _ <> "$dir/ready"; then
	echo "FAIL: 'perf trace -e openat -a' did not start its workload in 60 s"
	exit 1
fi
if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- \
	perf test -w getppid_loop 20000 10000; then
	echo "FAIL: perf trace -s failed next to another session"
	cat "$out"
	err=1
else
	check "next to 'perf trace -e openat -a'"
fi
echo end > "$dir/end"
wait "$other"
other=

# Where samples are lost the summary says so at its end: perf trace is
# stopped by its workload and has one page of buffer for 40000 samples.
# shellcheck disable=SC2016
if ! perf trace -s --no-bpf-summary -m 1 -o "$out" -- sh -c \
	'kill -STOP $PPID; perf test -w getppid_loop 20000; kill -CONT $PPID'; then
	echo "FAIL: perf trace -s -m 1 failed"
	cat "$out"
	err=1
else
	# no getppid row, or no table for the workload's thread: all were lost
	main=$(calls perf)
	main=${main:-0}
	lost=$(awk '/^ LOST [0-9]+ events: / { print $2 }' "$out")
	# a LOST line, fewer calls counted than made, and at least one lost
	# event for each call missing
	if [ -z "$lost" ] || [ "$main" -ge 20000 ] || [ $((main + lost)) -lt 20000 ]; then
		echo "FAIL: 20000 calls, one page of buffer: expected fewer calls and a LOST line"
		echo "for the rest, got '$main' calls and '$lost' lost"
		cat "$out"
		err=1
	else
		echo "ok: one page of buffer: $main calls and $lost events lost, said at the end"
	fi
fi

exit $err
