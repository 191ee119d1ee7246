#!/bin/bash
# perf trace --bpf-summary prints what the user-space summary prints
# SPDX-License-Identifier: GPL-2.0
# Workloads of known calls: the errnos of --errno-summary, counted in BPF
# as perf counts them in user space, the names of the threads in thread
# mode, as they were last, and the whole table, as in user space.

# err and tmpdir belong to lib/perf_check.sh (lib/bpf_summary.sh sources it)
# shellcheck disable=SC2034,SC2154

# shellcheck source=lib/bpf_summary.sh
. "$(dirname "$0")"/lib/bpf_summary.sh
bpf_summary_setup trace_bpf_summary_output
out="${tmpdir}/out"

# errnos FILE CALLS ERRNO: the count of ERRNO printed under the row of a
# syscall with CALLS failed flock calls, one line per such row
errnos() {
	awk -v calls="$2" -v e="$3:" '
		/^   [a-z]/ { row = ($1 == "flock" && $3 == calls) }
		row && $1 == e { print $2 }' "$1"
}

# 300 and 700 flock calls failing with EBADF, in two processes, each on
# a CPU of its own if there are two: total mode adds up the CPUs
fails='perf test -w syscall_fail 300; perf test -w syscall_fail 700'
if [ "$(nproc)" -ge 2 ]; then
	fails='taskset -c 0 perf test -w syscall_fail 300;'
	fails="${fails} taskset -c 1 perf test -w syscall_fail 700"
fi

perf trace -s --bpf-summary --errno-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "total: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"
perf trace -s --bpf-summary --errno-summary --summary-mode=thread -o "${out}" -- sh -c "${fails}"
expect_count "thread: EBADF of the process with 300" 300 "$(errnos "${out}" 300 EBADF)"
expect_count "thread: EBADF of the process with 700" 700 "$(errnos "${out}" 700 EBADF)"
perf trace -a -s --bpf-summary --errno-summary --summary-mode=cgroup -o "${out}" -- \
	sh -c "${fails}"
expect_count "cgroup: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "without --errno-summary: errno lines" 0 "$(grep -c 'EBADF' "${out}")"
perf trace -s --no-bpf-summary --errno-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "user space: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"

# name FILE CALLS: the name of the thread that made CALLS getppid calls
name() {
	awk -v calls="$2" '
		/^ [^ ]/ { name = $1 }
		$1 == "getppid" && $2 == calls { print name; exit }' "$1"
}

# The second thread of getppid_loop names itself getppid-2; the first has
# perf's name, which the user-space summary gives (perf may be a wrapper
# that execs perf_VERSION)
perf trace -s --no-bpf-summary --summary-mode=thread -o "${out}" -- \
	perf test -w getppid_loop 100 50
main=$(name "${out}" 100)
if [ -z "${main}" ]; then
	echo "FAIL: the user-space summary has no thread with 100 getppid calls"
	cat "${out}"
	err=1
fi
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- perf test -w getppid_loop 100 50
expect_count "thread names: the thread with 100 getppid calls" "${main}" "$(name "${out}" 100)"
expect_count "thread names: the thread with 50" getppid-2 "$(name "${out}" 50)"
# env execs perf: the calls before and after the exec are of one thread,
# named as perf is
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- \
	env perf test -w getppid_loop 70
expect_count "thread names: the name after exec" "${main}" "$(name "${out}" 70)"
expect_count "thread names: threads named env" 0 "$(grep -c '^ env (' "${out}")"

# norm FILE: each table's header, pid left out, and its rows sorted:
# name, calls, errors and errnos, times left out
norm() {
	awk '/^ [^ ].* \([0-9]+\), [0-9]+ events/ { t++; sub(/ \([0-9]+\),/, ","); print t, 0, $0; next }
	     /^ total, / { t++; print t, 0, $0; next }
	     /^   [a-z]/ && NF == 8 { if (row) print row; row = t " 1 " $1 " " $2 " " $3; next }
	     /^\t+[A-Z0-9]+: [0-9]+$/ { row = row " " $1 $2; next }
	     /^$/ { if (row) print row; row = "" }
	     END { if (row) print row }' "$1" | sort -k1,1n -k2,2n -k3 | cut -d' ' -f3-
}

# The same table counted in BPF and in user space, times aside: the same
# threads in the same order, each with the same syscalls, calls, errors
# and errnos, and "N events" the syscalls counted.  Processes forked one
# after another; the errnos are those of perf's start (no shell, whose
# signals make runs differ).
for mode in thread total; do
	for m in bpf no-bpf; do
		perf trace -s --${m}-summary --errno-summary --summary-mode=${mode} \
			-o "${out}.${m}" -- perf test -w getppid_loop 3 20 fork
		norm "${out}.${m}" > "${out}.${m}.norm"
	done
	[ ${mode} = total ] || expect_count "${mode}: tables of processes with 3 getppid calls" \
		20 "$(grep -c '^getppid 3 0$' "${out}.bpf.norm")"
	if cmp -s "${out}.bpf.norm" "${out}.no-bpf.norm" && [ -s "${out}.bpf.norm" ]; then
		echo "ok: ${mode}: the same table in BPF and user space"
	else
		echo "FAIL: ${mode}: BPF (<) and user space (>) differ:"
		diff "${out}.bpf.norm" "${out}.no-bpf.norm"
		err=1
	fi
done

check_exit
