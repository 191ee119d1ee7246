#!/bin/bash
# perf trace --bpf-summary counts only its target
# SPDX-License-Identifier: GPL-2.0
# -p, -t, -a, -C and --cgroup each count the known calls of what they name:
# getppid_loop N N2 makes N getppid() in its main thread and N2 in thread
# "getppid-2"; syscall_fail N makes N flock() calls failing with EBADF.
# err and target belong to lib/perf_check.sh, sourced below
# shellcheck disable=SC2034,SC2154

cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg="perf-trace-target-$$"

# what check_cleanup does not undo
check_more_cleanup() {
	[ -n "${cgmnt}" ] && rmdir "${cgmnt}/${cg}" 2>/dev/null
}

shelldir=$(dirname "$0")
# check_setup, start_stopped, wait_bpf_links, skip_check
# shellcheck source=lib/perf_check.sh
. "${shelldir}"/lib/perf_check.sh
check_setup trace_bpf_summary_target
out="${tmpdir}/out"
pidfile="${tmpdir}/pid"
# shellcheck source=lib/trace_summary.sh
. "${shelldir}"/lib/trace_summary.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-summary; then
	exit 2
fi

# Runs 'perf trace -s --bpf-summary ARGS -p|-t target', then continues target
trace_stopped() {
	local trace_pid

	perf trace -s --bpf-summary -o "${out}" "$@" &
	trace_pid=$!
	wait_bpf_links ${trace_pid} 2
	kill -CONT "${target}"
	wait ${trace_pid}
}

echo "-p: the process and its threads"
start_stopped getppid_loop 400 100
trace_stopped -p "${target}"
expect "${out}" "^ perf \\(${target}\\)" getppid "400 0" "-p"
expect "${out}" '^ getppid-2 \(' getppid "100 0" "-p"

echo "-t: only the thread"
start_stopped getppid_loop 400 100
trace_stopped -t "${target}"
expect "${out}" "^ perf \\(${target}\\)" getppid "400 0" "-t"
if grep -q '^ getppid-2 (' "${out}"; then
	echo "-t: another thread was counted"
	cat "${out}"
	err=1
fi

echo "-p: failing calls"
start_stopped syscall_fail 60
trace_stopped --summary-mode=total -p "${target}"
expect "${out}" '^ total' flock "60 60" "-p errors"

echo "-a"
perf trace -a -s --bpf-summary -o "${out}" -- \
	sh -c "echo \$\$ > ${pidfile}; exec perf test -w syscall_fail 80"
expect "${out}" "^ perf \\($(cat "${pidfile}")\\)" flock "80 80" "-a"

echo "-a --filter-pids: not those processes, and never perf itself"
start_stopped getppid_loop 300
excluded=${target}
start_stopped getppid_loop 200
# the workload lets both run once perf counts, and waits for them
(echo "${BASHPID}" > "${pidfile}"
 exec perf trace -a -s --bpf-summary --filter-pids "${excluded}" -o "${out}" -- \
	sh -c "kill -CONT ${excluded} ${target}; tail --pid=${excluded} -f /dev/null;
	       tail --pid=${target} -f /dev/null")
if ! wait "${excluded}"; then
	echo "--filter-pids: the excluded workload did not run"
	err=1
fi
wait "${target}"
expect "${out}" "^ perf \\(${target}\\)" getppid "200 0" "--filter-pids"
expect "${out}" "^ perf \\(${excluded}\\)" getppid "" "--filter-pids, excluded"
if grep -q "^ perf ($(cat "${pidfile}"))" "${out}"; then
	echo "-a: perf trace counted its own syscalls"
	cat "${out}"
	err=1
fi

echo "-C: only what runs on that CPU"
if [ "$(nproc)" -ge 2 ]; then
	# taskset execs the workload: its pid is the workload's
	perf trace -C 1 -s --bpf-summary -o "${out}" -- sh -c "
		taskset -c 0 perf test -w getppid_loop 500 & echo \$! > ${pidfile}.0; wait
		taskset -c 1 perf test -w getppid_loop 700 & echo \$! > ${pidfile}; wait"
	expect "${out}" "^ perf \\($(cat "${pidfile}")\\)" getppid "700 0" "-C 1"
	expect "${out}" "^ perf \\($(cat "${pidfile}.0")\\)" getppid "" "-C 1, on CPU 0"
	rm -f "${pidfile}.0"
else
	skip_check "-C" "only one CPU"
fi

echo "--cgroup: only tasks in the cgroup"
if [ -n "${cgmnt}" ] && mkdir "${cgmnt}/${cg}"; then
	perf trace -a -G "${cg}" -s --bpf-summary --summary-mode=total -o "${out}" -- \
		sh -c "perf test -w getppid_loop 100; echo \$\$ > ${cgmnt}/${cg}/cgroup.procs;
		       exec perf test -w getppid_loop 400"
	expect "${out}" '^ total' getppid "400 0" "--cgroup"
else
	echo "--cgroup: cannot create a cgroup2 cgroup"
	err=1
fi
check_exit
