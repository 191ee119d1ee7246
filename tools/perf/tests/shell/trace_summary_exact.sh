#!/bin/bash
# perf trace -s counts every call of a known workload (exclusive)
# SPDX-License-Identifier: GPL-2.0

# The user-space summary of 'perf trace -s' counts the sys_exit samples
# perf reads from the ring buffers.  The buffers here (-m 8M per CPU) hold
# every sample of the workload even if perf never read them while it runs,
# so none can be lost to an overflow: each count must be exact.  'perf
# bench syscall basic --loop N' makes N getppid calls.  Two of them at
# once, 20000 and 10000 calls: a sample stepped over while reading shows
# up as a missing call.  Five runs, each of which must be exact, make a
# race in the reading likely to show.  Then 200 processes in a row, each
# of which perf must see from its first call, and 1000 that fork and exec
# /bin/true, whose first samples, or exit, may be read before their fork.
#
# Then the same while another perf trace session traces only openat: its
# BPF programs on raw_syscalls:* must not take getppid away from this one.
# Last, a summary that lost samples must say how many.

if [ "$(id -u)" != 0 ]; then
	echo "Skip: perf trace needs root"
	exit 2
fi
if ! perf list tracepoint 2>/dev/null | grep -q 'raw_syscalls:sys_enter'; then
	echo "Skip: no raw_syscalls:* tracepoints (tracefs not mounted)"
	exit 2
fi

err=0
other=
tmpdir=$(mktemp -d /tmp/__perf_test.trace_summary_exact.XXXXX)
out="${tmpdir}/out"

cleanup() {
	[ -n "$other" ] && kill "$other" 2>/dev/null
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}
trap 'cleanup; exit 1' TERM INT
trap cleanup EXIT

# getppid calls of the two 'perf bench syscall basic' processes, in their
# tables of the summary (their threads are named syscall-basic), sorted
calls()
{
	awk '/^ [^ ]/ { in_table = ($1 == "syscall-basic") }
	     in_table && $1 == "getppid" { print $2 }' "$out" | sort -n | xargs
}

two="perf bench syscall basic --loop 20000 > /dev/null &
     perf bench syscall basic --loop 10000 > /dev/null; wait"

# check WHAT: both processes' calls are in the summary, exactly
check()
{
	local got

	got=$(calls)
	if [ "$got" != "10000 20000" ]; then
		echo "FAIL: $1: expected 10000 and 20000 getppid calls, got '$got'"
		cat "$out"
		err=1
	else
		echo "ok: $1: 10000 and 20000 getppid calls"
	fi
}

for run in 1 2 3 4 5; do
	# 20000 + 10000 calls: about 4 MB of samples
	if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- sh -c "$two"; then
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
	xargs -a "${tmpdir}/200" -I{} perf bench syscall basic --loop 3 > /dev/null; then
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

# 1000 processes forked one after the other, each exec'ing /bin/true, and
# the bench itself: 1001 execve calls, each in a table of its own.  A
# process that runs on another CPU than its parent may have its calls, and
# even its exit, read before its fork event.
if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- \
	perf bench syscall execve --loop 1000 > /dev/null; then
	echo "FAIL: perf trace -s of 1000 forks failed"
	cat "$out"
	err=1
else
	got=$(awk '$1 == "execve" { calls += $2; tables++ }
		   END { print calls + 0, tables + 0 }' "$out")
	if [ "$got" != "1001 1001" ]; then
		echo "FAIL: 1000 forks: expected 1001 execve calls in 1001 tables, got $got"
		err=1
	else
		echo "ok: 1000 forks: 1001 execve calls in 1001 tables"
	fi
fi

# The other session runs its workload once its BPF programs are attached
# and its events enabled; the workload says so through a fifo and waits
# on another one to end.
mkfifo "$tmpdir/ready" "$tmpdir/end"
perf trace -e openat -a -o /dev/null -- \
	sh -c "echo ready > $tmpdir/ready; read -r line < $tmpdir/end" &
other=$!
# read-write: the open does not wait for a writer that may never come
if ! read -r -t 60 _ <> "$tmpdir/ready"; then
	echo "FAIL: 'perf trace -e openat -a' did not start its workload in 60 s"
	exit 1
fi
if ! perf trace -s --no-bpf-summary -m 8M -o "$out" -- sh -c "$two"; then
	echo "FAIL: perf trace -s failed next to another session"
	cat "$out"
	err=1
else
	check "next to 'perf trace -e openat -a'"
fi
# read-write: no wait for a reader, should the workload be gone
echo end 1<> "$tmpdir/end"
wait "$other"
other=

# Where samples are lost the summary says so at its end: perf trace is
# stopped by its workload and has one page of buffer for 40000 samples.
# shellcheck disable=SC2016
if ! perf trace -s --no-bpf-summary -m 1 -o "$out" -- sh -c \
	'kill -STOP $PPID; perf bench syscall basic --loop 20000 > /dev/null; kill -CONT $PPID'; then
	echo "FAIL: perf trace -s -m 1 failed"
	cat "$out"
	err=1
else
	# no getppid row, or no table for the workload's thread: all were lost
	main=$(calls)
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
