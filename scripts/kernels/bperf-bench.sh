#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A guest /init (busybox sh) for scripts/bench/stat-bpf-counters.sh: perf
# stat --bpf-counters of this series (perf) against the fexit follower of
# the base (perf-base), where fexit loads.  Prints "bench: KEY k=v ..."
# lines for the host to turn into a table, "smoke: PASS|FAIL" lines for
# the interoperation checks and their total, then powers off.
#
#   sessions D N	N sessions of D counting -p of one target (a pipe
#			ping-pong of 20000 round trips) and one plain perf
#			stat beside them: BPF run time per context switch of
#			the machine, programs and maps loaded, map memory,
#			the counts of session 1 and of plain perf stat
#   gap D		task-clock over 2000 sleeps of 1 ms, plainly and
#			with D's BPF in one session: the excess per switch
#   interop		the base's sessions and this series' on one leader

for m in proc:/proc sysfs:/sys devtmpfs:/dev bpf:/sys/fs/bpf tracefs:/sys/kernel/tracing \
	 debugfs:/sys/kernel/debug cgroup2:/sys/fs/cgroup; do
	mount -t "${m%%:*}" "${m%%:*}" "${m#*:}"
done
exec > /dev/console 2>&1
export PATH=/usr/bin:/usr/sbin:/bin HOME=/root
cd /tmp || poweroff -f
pass=0 fail=0
echo "smoke: Linux $(uname -r), $(perf version), base: $(perf-base version)"

check()
{
	if [ "$2" = 1 ]; then
		pass=$((pass + 1))
		echo "smoke: PASS $1: $3"
	else
		fail=$((fail + 1))
		echo "smoke: FAIL $1: $3"
	fi
}

# stopped CMD...: CMD started stopped, its pid in $target
stopped()
{
	sh -c 'kill -STOP $$; exec "$@"' sh "$@" &
	target=$!
	while [ "$(awk '{ print $3 }' /proc/$target/stat)" != T ]; do sleep 0.1; done
}

# links PID: bpf links PID holds
links()
{
	ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'bpf[-_]link'
}

# bpf_ns: run time of the programs of both designs, in ns
bpf_ns()
{
	bpftool prog show | awk '/name (on_switch|fexit_XXX|on_newtask|on_exittask|bperf_on_)/ {
		for (i = 1; i < NF; i++) if ($i == "run_time_ns") s += $(i + 1) } END { print s + 0 }'
}

ctxt()
{
	awk '$1 == "ctxt" { print $2 }' /proc/stat
}

count()		# FILE EVENT
{
	awk -F, -v e="$2" '$3 == e { print $1; exit }' "$1"
}

sessions()	# D N
{
	d=$1 n=$2 pids=""
	rm -f /sys/fs/bpf/bench_attr_map
	stopped perf bench sched pipe -l 20000
	t0=$(date +%s)
	i=1
	while [ $i -le $n ]; do
		$d stat --bpf-counters --bpf-attr-map /sys/fs/bpf/bench_attr_map -x, -o s$i \
			-e context-switches,task-clock -p $target > /dev/null 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	perf stat -x, -o plain -e context-switches,task-clock -p $target > /dev/null 2>&1 &
	plain=$!
	for p in $pids; do
		while [ "$(links $p)" = 0 ] && [ -e /proc/$p ]; do sleep 0.2; done
	done
	start=$(($(date +%s) - t0))
	sleep 1
	progs=$(bpftool prog show | grep -c '^[0-9]*: ')
	maps=$(bpftool map show | grep -c '^[0-9]*: ')
	mem=$(bpftool map show | awk '{ for (i = 1; i < NF; i++) if ($i == "memlock") s += $(i + 1) }
		END { print s + 0 }')
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	b0=$(bpf_ns) c0=$(ctxt)
	kill -CONT $target
	wait $target
	b1=$(bpf_ns) c1=$(ctxt)
	echo 0 > /proc/sys/kernel/bpf_stats_enabled
	for p in $pids $plain; do kill -INT $p; done
	wait
	echo "bench: sessions design=$d n=$n ns_per_switch=$(((b1 - b0) / (c1 - c0))) switches=$((c1 - c0)) progs=$progs maps=$maps memlock=$mem start_s=$start cs=$(count s1 context-switches) plain_cs=$(count plain context-switches) tc=$(count s1 task-clock) plain_tc=$(count plain task-clock)"
}

gap()		# D
{
	for r in 1 2 3; do
		$1 stat --bpf-attr-map /sys/fs/bpf/bench_attr_map -x, -o g \
			-e task-clock,task-clock/name=btc/b,context-switches,context-switches/name=bcs/b \
			-- perf test -w sleeper 1 2000 > /dev/null 2>&1
		echo "bench: gap design=$1 run=$r tc=$(count g task-clock) btc=$(count g btc) cs=$(count g context-switches) bcs=$(count g bcs)"
	done
}

# interop FIRST SECOND: FIRST holds a leader of context-switches at the
# default pin (-a); SECOND counts -a and a workload of about 4000
# switches beside it, within 1%, and the event has one leader
interop()
{
	rm -f /sys/fs/bpf/perf_attr_map
	# no workload: SIGINT ends it
	$1 stat --bpf-counters -e context-switches -a -o /dev/null > /dev/null 2>&1 &
	holder=$!
	while [ "$(links $holder)" = 0 ] && [ -e /proc/$holder ]; do sleep 0.2; done
	for tgt in "-a" ""; do
		$2 stat -x, -o i --bpf-counters -e context-switches $tgt -- perf test -w context_switch_loop 2000 > o 2>&1
		rc=$?
		c=$(count i context-switches)
		leaders=$(bpftool prog show | grep -c 'name on_switch')
		# the base's follower credits a switch to the task coming in: a
		# few of the workload's 4000 go to other tasks
		ok=$([ $rc = 0 ] && [ "${c:-0}" -ge 3960 ] && [ $leaders = 1 ] && echo 1)
		check "interop $1 then $2 ${tgt:-workload}" "$ok" "exit $rc, ${c:-no} context switches (at least 3960), $leaders leader(s): $(head -c 300 o)"
	done
	kill -INT $holder
	wait $holder
}

if [ "${BENCH:-all}" != interop ]; then
	for d in perf-base perf; do
		gap $d
		for n in 1 8 64; do
			sessions $d $n
		done
	done
fi
interop perf-base perf
interop perf perf-base
echo "smoke: $pass passed, $fail failed, 0 skipped"
poweroff -f
