#!/bin/bash
# perf trace --bpf-summary counts exactly what the target names
# SPDX-License-Identifier: GPL-2.0
# A workload and the processes it forks (20000 in turn), -p with its
# threads, -t, -C and -G each count the known getppid calls of what they
# name and nothing of what they do not; so do the options of the
# user-space summary: -e, --no-inherit, -u, --filter-pids and -D.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-summary; then
	exit 2
fi
if ! command -v bpftool > /dev/null; then
	echo "Skip: no bpftool to read whether perf trace counts"
	exit 2
fi
check_setup trace_bpf_summary_target
out="${tmpdir}/out"
pidfile="${tmpdir}/pid"

# rows FILE N: how many threads made exactly N getppid calls, no errors
rows() {
	awk -v n="$2" '$1 == "getppid" && $2 == n && $3 == 0 { c++ } END { print c + 0 }' "$1"
}

# total FILE: the getppid calls of a --summary-mode=total summary
total() {
	awk '$1 == "getppid" { print $2; exit }' "$1"
}

# enabled PID: the "enabled" of the BPF summary of perf trace (PID), from
# the .bss map among the BPF maps it holds open
enabled() {
	local fd id

	for fd in "/proc/$1/fd/"*; do
		[ "$(readlink "${fd}")" = "anon_inode:bpf-map" ] || continue
		id=$(awk '$1 == "map_id:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		bpftool map show id "${id}" 2>/dev/null | grep -q ' name syscall_\.bss ' || continue
		bpftool -j map dump id "${id}" 2>/dev/null |
			sed -n 's/.*"enabled":\([0-9]*\).*/\1/p'
		return
	done
}

# wait_enabled PID: until perf trace (PID) has turned its BPF summary on
wait_enabled() {
	local i

	for i in $(seq 3000); do
		[ "$(enabled "$1")" != 1 ] || return 0
		if [ ! -e "/proc/$1" ]; then
			echo "FAIL: perf trace (pid $1) ended before it turned its summary on"
			err=1
			return 1
		fi
		sleep 0.02
	done
	echo "FAIL: perf trace (pid $1) did not turn its summary on in 60 s"
	err=1
	return 1
}

# trace_stopped ARGS: perf trace -s --bpf-summary ARGS of the stopped
# $target, continued once the summary counts, until it exits
trace_stopped() {
	local trace_pid

	perf trace -s --bpf-summary --summary-mode=thread -o "${out}" "$@" &
	trace_pid=$!
	wait_enabled ${trace_pid}
	kill -CONT "${target}"
	wait "${target}"
	kill -INT ${trace_pid}
	wait ${trace_pid}
}

# the workload and what it forks, not the other processes
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- sh -c \
	'perf test -w getppid_loop 1000 & perf test -w getppid_loop 2000 1500; wait'
expect_count "workload: children with 1000 getppid calls" 1 "$(rows "${out}" 1000)"
expect_count "workload: threads with 2000" 1 "$(rows "${out}" 2000)"
expect_count "workload: threads with 1500" 1 "$(rows "${out}" 1500)"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 3000 700
expect_count "workload: total getppid calls" 3700 "$(total "${out}")"
# more processes forked one after another than task_filter has room for
# (16384): a process leaves it at its exit
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 3 20000 fork
expect_count "workload: getppid calls of 20000 processes in turn" 60000 "$(total "${out}")"
expect_count "workload: LOST lines of 20000 processes in turn" 0 "$(grep -c LOST "${out}")"

# -p: the process with its threads; -t: that thread alone
start_stopped getppid_loop 400 100
trace_stopped -p "${target}"
expect_count "-p: threads with 400 getppid calls" 1 "$(rows "${out}" 400)"
expect_count "-p: threads with 100" 1 "$(rows "${out}" 100)"
start_stopped getppid_loop 400 100
trace_stopped -t "${target}"
expect_count "-t: threads with 400 getppid calls" 1 "$(rows "${out}" 400)"
expect_count "-t: threads with 100" 0 "$(rows "${out}" 100)"

# -C: what runs on CPU 1, not what runs on CPU 0
if [ "$(nproc)" -ge 2 ]; then
	perf trace -C 1 -s --bpf-summary --summary-mode=thread -o "${out}" -- sh -c \
		'taskset -c 0 perf test -w getppid_loop 500; taskset -c 1 perf test -w getppid_loop 700'
	expect_count "-C 1: threads with 700 getppid calls on CPU 1" 1 "$(rows "${out}" 700)"
	expect_count "-C 1: threads with 500 on CPU 0" 0 "$(rows "${out}" 500)"
else
	skip_check "-C" "one CPU only"
fi

# -G: the tasks of the cgroup, the workload once it moved there
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=perf-test-trace-summary-$$
if [ -n "${cgmnt}" ] && mkdir "${cgmnt}/${cg}"; then
	perf trace -a -G "${cg}" -s --bpf-summary --summary-mode=total -o "${out}" -- \
		sh -c "perf test -w getppid_loop 100; echo \$\$ > ${cgmnt}/${cg}/cgroup.procs;
		       exec perf test -w getppid_loop 400"
	expect_count "-G: getppid calls in the cgroup" 400 "$(total "${out}")"
	rmdir "${cgmnt}/${cg}"
else
	skip_check "-G" "no cgroup2 hierarchy to make a cgroup in"
fi

# -e: the syscalls it names, or all but those
perf trace -s --bpf-summary --summary-mode=total -e getppid -o "${out}" -- \
	perf test -w getppid_loop 300
expect_count "-e getppid: getppid calls" 300 "$(total "${out}")"
expect_count "-e getppid: syscalls in the summary" 1 \
	"$(grep -cE '^   [a-z0-9_]+ +[0-9]+ ' "${out}")"
perf trace -s --bpf-summary --summary-mode=total -e '!getppid' -o "${out}" -- \
	perf test -w getppid_loop 300
expect_count "-e '!getppid': getppid calls" "" "$(total "${out}")"
# not an empty summary: the workload's execve is in it (and its PATH
# lookups, if perf was found through PATH)
expect_min "-e '!getppid': execve calls" 1 \
	"$(awk '$1 == "execve" { print $2; exit }' "${out}")"
# counted in BPF: the calls -e leaves out take no room (an entry per CPU)
perf trace -s --bpf-summary --summary-mode=total -e getppid --bpf-summary-entries="$(nproc)" \
	-o "${out}" -- perf test -w getppid_loop 300
expect_count "-e getppid in an entry per CPU: getppid calls" 300 "$(total "${out}")"
expect_count "-e getppid in an entry per CPU: LOST lines" 0 "$(grep -c LOST "${out}")"

# -a: not perf's own calls, as the user-space summary
perf trace -as --bpf-summary --summary-mode=thread -o "${out}" -- sleep 0.5 &
trace_pid=$!
wait ${trace_pid}
expect_count "-a: threads of perf trace itself" 0 "$(grep -c "(${trace_pid}), " "${out}")"
expect_count "-a: threads of the workload" 1 "$(grep -c "^ sleep (" "${out}")"

# --no-inherit: the workload's thread, not the one it starts
perf trace -s --bpf-summary --summary-mode=thread --no-inherit -o "${out}" -- \
	perf test -w getppid_loop 400 100
expect_count "--no-inherit: threads with 400 getppid calls" 1 "$(rows "${out}" 400)"
expect_count "--no-inherit: threads with 100" 0 "$(rows "${out}" 100)"

# -u: the calls of nobody's process, not those of root's before it
if command -v setpriv > /dev/null; then
	perf trace -s --bpf-summary --summary-mode=total -u nobody -o "${out}" -- sh -c \
		'perf test -w getppid_loop 100; exec setpriv --reuid=65534 --regid=65534 \
		 --clear-groups perf test -w getppid_loop 33'
	expect_count "-u nobody: getppid calls" 33 "$(total "${out}")"
else
	skip_check "-u" "no setpriv (util-linux) to run a workload as nobody"
fi

# --filter-pids: of two processes run at once, the one not filtered out
start_stopped getppid_loop 600
filtered=${target}
start_stopped getppid_loop 700
perf trace -a -s --bpf-summary --summary-mode=thread --filter-pids "${filtered}" \
	-o "${out}" &
trace_pid=$!
if wait_enabled ${trace_pid}; then
	kill -CONT "${filtered}" "${target}"
	wait "${filtered}" "${target}"
fi
kill -INT ${trace_pid}
wait ${trace_pid}
expect_count "--filter-pids: threads with 700 getppid calls" 1 "$(rows "${out}" 700)"
expect_count "--filter-pids: threads with 600" 0 "$(rows "${out}" 600)"

# -D: what the workload does after the delay, not before.  The workload
# makes 100 calls, says so and waits; once the summary is on it makes 50
# more.  A run whose first calls ended after the delay proves nothing and
# is made again.
mkfifo "${tmpdir}/made" "${tmpdir}/go"
for run in 1 2 3; do
	perf trace -s --bpf-summary --summary-mode=total -D 1000 -o "${out}" -- sh -c \
		"perf test -w getppid_loop 100; echo > ${tmpdir}/made; read -r _ < ${tmpdir}/go;
		 perf test -w getppid_loop 50" &
	trace_pid=$!
	# read-write: the open does not wait for a workload that never came
	if ! read -r -t 60 _ <> "${tmpdir}/made"; then
		echo "FAIL: -D: the workload did not make its first calls in 60 s"
		err=1
		kill ${trace_pid}
		wait ${trace_pid}
		early=failed
		break
	fi
	early=$(enabled ${trace_pid})
	wait_enabled ${trace_pid}
	echo > "${tmpdir}/go"
	wait ${trace_pid}
	[ "${early}" = 1 ] || break
done
if [ "${early}" = failed ]; then
	:
elif [ "${early}" = 1 ]; then
	skip_check "-D" "the workload's first calls ended after the delay in 3 runs"
else
	expect_count "-D 1000: getppid calls" 50 "$(total "${out}")"
fi

# what the BPF summary does not count is refused, in one line
for args in --sched --pf=maj "-e sched:sched_switch"; do
	# shellcheck disable=SC2086
	if perf trace -s --bpf-summary ${args} -o "${out}" -- true 2> "${tmpdir}/err"; then
		echo "FAIL: --bpf-summary ${args}: perf trace did not fail"
		err=1
	else
		expect_count "--bpf-summary ${args}: one line naming --bpf-summary" "1 1" \
			"$(wc -l < "${tmpdir}/err") $(grep -c -e --bpf-summary "${tmpdir}/err")"
	fi
done

check_exit
