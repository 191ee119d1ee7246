#!/bin/bash
# perf trace --bpf-summary prints what the user-space summary prints
# SPDX-License-Identifier: GPL-2.0
# Workloads of known calls: the errnos of --errno-summary, counted in BPF
# as perf counts them in user space, and the names of the threads in
# thread mode, as they were last.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154

if [ "$(id -u)" != 0 ]; then
	echo "Skip: perf trace --bpf-summary needs root"
	exit 2
fi
if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
	echo "Skip: perf is built without BPF skeletons"
	exit 2
fi

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_bpf_summary_output
out="${tmpdir}/out"

# errnos FILE CALLS ERRNO: the count of ERRNO printed under the row of a
# syscall with CALLS failed flock calls, one line per such row
errnos() {
	awk -v calls="$2" -v e="$3:" '
		/^   [a-z]/ { row = ($1 == "flock" && $3 == calls) }
		row && $1 == e { print $2 }' "$1"
}

# 300 and 700 flock calls failing with EBADF, in two processes
fails='perf test -w syscall_fail 300; perf test -w syscall_fail 700'

perf trace -s --bpf-summary --errno-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "total: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"
perf trace -s --bpf-summary --errno-summary --summary-mode=thread -o "${out}" -- sh -c "${fails}"
expect_count "thread: EBADF of the process with 300" 300 "$(errnos "${out}" 300 EBADF)"
expect_count "thread: EBADF of the process with 700" 700 "$(errnos "${out}" 700 EBADF)"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "without --errno-summary: errno lines" 0 "$(grep -c 'EBADF' "${out}")"
perf trace -s --no-bpf-summary --errno-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "user space: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"

# thread COMM CALLS FILE: how many threads named COMM made CALLS getppid
# calls
thread() {
	awk -v comm="$1" -v calls="$2" '
		/^ [^ ]/ { name = $1 }
		name == comm && $1 == "getppid" && $2 == calls { c++ }
		END { print c + 0 }' "$3"
}

# the main thread is "perf", the second names itself "getppid-2"
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- perf test -w getppid_loop 100 50
expect_count "thread names: perf with 100 getppid calls" 1 "$(thread perf 100 "${out}")"
expect_count "thread names: getppid-2 with 50" 1 "$(thread getppid-2 50 "${out}")"
# sh's calls before the exec (getppid for $PPID) and perf's 70 after are
# one thread, named perf
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- \
	sh -c 'exec perf test -w getppid_loop 70'
expect_count "thread names: the name after exec" 1 "$(thread perf 71 "${out}")"
expect_count "thread names: threads named sh" 0 "$(grep -c '^ sh (' "${out}")"

check_exit
