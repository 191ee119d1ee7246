#!/bin/bash
# perf record --bpf-aggr targets, full map and refused options
# SPDX-License-Identifier: GPL-2.0
#
# --bpf-aggr must count what -a, -C, -p, -t and a workload with children
# name; when its map is full the samples it cannot count go to the ring
# buffer, so the total period still matches the CPU time of the workload;
# options whose per-sample data cannot be aggregated are refused with one
# line (invalid --bpf-aggr-entries values: record_bpf_aggr.sh).

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup bpf_aggr_targets
wpid=

# what check_cleanup does not undo
check_more_cleanup() {
	if [ -n "$wpid" ]; then
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
	fi
}

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
# shellcheck source=lib/waiting.sh
. "$(dirname "$0")"/lib/waiting.sh
if bpf_skel_missing --bpf-aggr; then
	exit 2
fi

# share of the period in split_heavy + split_light among the samples of
# process $2 (of all processes without $2), and their period in ms
split_share() {
	perf script -i "${tmpdir}/$1.data" -F pid,period,ip,sym -G 2>/dev/null |
		awk -v pid="$2" '
		pid == "" || $1 == pid {
			all += $2
			if ($4 == "split_heavy" || $4 == "split_light")
				in_split += $2
		}
		END { printf "%.0f %.0f\n", all ? 100 * in_split / all : 0, all / 1e6 }'
}

# check_target NAME MIN_SHARE MIN_MS [PID]: recording NAME counted samples
# in BPF, of at least MIN_MS ms of CPU time (of PID), and
# split_heavy/split_light have at least MIN_SHARE % of them
check_target() {
	local name=$1 min=$2 min_ms=$3 pid=$4 share ms

	# what the workload of the session said: a window that did not end well
	if grep FAIL "${tmpdir}/${name}.out"; then
		err=1
	fi
	if ! grep -q "bpf-aggr counted [1-9][0-9]* samples" "${tmpdir}/${name}.err"; then
		echo "FAIL: ${name}: no samples counted in BPF"
		cat "${tmpdir}/${name}.err"
		err=1
		return
	fi
	read -r share ms <<< "$(split_share "$name" "$pid")"
	echo "${name}: split_heavy + split_light ${share}% of ${ms} ms"
	if [ "${ms:-0}" -lt "$min_ms" ]; then
		echo "FAIL: ${name}: expected samples of at least ${min_ms} ms"
		err=1
	fi
	if [ "${share:-0}" -lt "$min" ]; then
		echo "FAIL: ${name}: expected at least ${min}% in split_heavy + split_light"
		err=1
	fi
}

record() {
	local name=$1
	shift
	perf record --bpf-aggr -g -F 999 -o "${tmpdir}/${name}.data" "$@" \
		> "${tmpdir}/${name}.out" 2> "${tmpdir}/${name}.err"
}

# a workload with children: each child runs cpu_split
record children -- sh -c 'perf test -w cpu_split 1 1 cpu & perf test -w cpu_split 1 1 cpu; wait'
# two children of 1 s of CPU time each
check_target children 50 1500
nr_pids=$(perf report -i "${tmpdir}/children.data" --stdio --no-children -g none \
	--sort pid,sym 2>/dev/null | awk '$NF == "split_heavy" { n++ } END { print n + 0 }')
if [ "$nr_pids" -ne 2 ]; then
	echo "FAIL: children: split_heavy in ${nr_pids} processes, expected 2"
	err=1
fi

# existing process and thread, system wide, one CPU. The workload runs on
# one CPU, the first this test may use, so that -C finds it there however
# busy the other CPUs are.
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
taskset -c "$cpu" perf test -w cpu_split 60 2 cpu &
wpid=$!
if ! wait_for_threads "$wpid" 2; then
	echo "FAIL: cpu_split did not start its second thread"
	exit 1
fi
tid=$(ls /proc/$wpid/task | sort -n | tail -1)
# each session lasts until the workload has run 200 ms more: not a wall
# time, in which a loaded machine may not run it at all
window=". '$(dirname "$0")/lib/perf_check.sh'; wait_cpu_time $wpid 200"

record pid -p "$wpid" -- bash -c "$window"
# 200 ms of the workload's CPU time in each window, the recording around it
check_target pid 80 150 "$wpid"
record tid -t "$tid" -- bash -c "$window"
# one of the two threads on one CPU: about half of it
check_target tid 80 50
tids=$(perf script -i "${tmpdir}/tid.data" -F tid 2>/dev/null |
       awk 'NF == 1 { print $1 }' | sort -u)
if [ "$tids" != "$tid" ]; then
	echo "FAIL: tid: samples of threads '$(echo $tids)', expected only ${tid}"
	err=1
fi
record all -a -- bash -c "$window"
check_target all 10 150 "$wpid"
record cpu -C "$cpu" -- bash -c "$window"
check_target cpu 10 150 "$wpid"
cpus=$(perf script -i "${tmpdir}/cpu.data" -F cpu 2>/dev/null |
       awk 'NF == 1 { print $1 }' | sort -u)
if [ "$cpus" != "$(printf '[%03d]' "$cpu")" ]; then
	echo "FAIL: cpu: samples of CPUs '$(echo $cpus)', expected only CPU ${cpu}"
	err=1
fi
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
wpid=

# A map of 2 entries: most samples are not counted in BPF but written to
# the ring buffer; nothing is lost: the total period is the CPU time.
perf record --bpf-aggr --bpf-aggr-entries 2 -e cpu-clock -F 999 -o "${tmpdir}/full.data" -- \
	perf stat -x, -e task-clock -o "${tmpdir}/full.stat" -- \
	perf test -w cpu_split 1 1 cpu 2> "${tmpdir}/full.err"
if ! grep -q "samples not aggregated" "${tmpdir}/full.err"; then
	echo "FAIL: full map: no warning about samples not aggregated"
	cat "${tmpdir}/full.err"
	err=1
fi
period=$(perf script -i "${tmpdir}/full.data" -F pid,period 2>/dev/null |
	 awk 'NF == 2 { sum[$1] += $2 }
	      END { for (pid in sum) if (sum[pid] > max) max = sum[pid]
		    printf "%.0f\n", max }')
task=$(awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1000000 }' "${tmpdir}/full.stat")
echo "full map: period ${period} ns, task-clock ${task} ns"
# 'cpu_split 1 1 cpu' runs one thread until it has had 1 s of CPU time
if ! awk -v t="$task" 'BEGIN { exit !(t >= 1000000000) }'; then
	echo "FAIL: full map: task-clock '${task}' ns, expected at least 1000000000"
	err=1
elif ! awk -v p="$period" -v t="$task" \
	'BEGIN { d = p / t - 1; exit !(d < 0.02 && d > -0.02) }'; then
	echo "FAIL: full map: total period differs from task-clock by 2% or more"
	err=1
fi

# refused options: a failure with one line that names the option
refuse() {
	local what=$1 out
	shift

	out=$(perf record --bpf-aggr "$@" -o "${tmpdir}/refused.data" -- true 2>&1)
	if [ $? -eq 0 ] || ! echo "$out" | grep -q -- "$what"; then
		echo "FAIL: perf record --bpf-aggr $* was not refused with a line about ${what}:"
		echo "$out"
		err=1
	fi
	rm -f "${tmpdir}/refused.data"
}

refuse "-d/--data" -d
refuse "-T/--timestamp" -T
refuse "-b/-j" -b
refuse "dwarf" --call-graph dwarf
refuse "dwarf or lbr" --call-graph lbr
refuse "fp,defer" --call-graph fp,defer
refuse "needs sampling events" -e 'cpu-clock/period=0/'
refuse "one sampling event" -e cpu-clock,task-clock
refuse "monotonic" -k realtime
refuse "BPF sample filters" -e cpu-clock --filter 'ip > 0'
refuse "-u/--uid" -e cpu-clock -u root
if [ -d /sys/kernel/tracing/events/sched ] ||
   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	refuse "tracepoint" -e sched:sched_switch
fi
exit $err
