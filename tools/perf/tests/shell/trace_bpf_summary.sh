#!/bin/bash
# perf trace --bpf-summary counts the known calls of workloads
# SPDX-License-Identifier: GPL-2.0
# Each case runs workloads of tests/workloads, whose calls are known, and
# checks the rows of the BPF summary against them.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-summary; then
	exit 2
fi
check_setup trace_bpf_summary
out="${tmpdir}/out"

# the workload is the only thread on the machine that makes exactly
# 100000 getppid calls, and a full map says how many calls it missed
perf trace -as --summary-mode=thread --bpf-summary -- \
	perf test -w getppid_loop 100000 > "${out}" 2>&1
expect_count "threads with exactly 100000 getppid calls" 1 \
	"$(awk '$1 == "getppid" && $2 == 100000 { c++ } END { print c + 0 }' "${out}")"
expect_count "LOST lines with the default entries" 0 "$(grep -c '^ *LOST ' "${out}")"
perf trace -as --bpf-summary --bpf-summary-entries=1 -- \
	perf test -w getppid_loop 10 > "${out}" 2>&1
lost=$(sed -n 's/^ *LOST \([0-9]*\) syscalls: the summary has room for 1 entries.*/\1/p' "${out}")
expect_min_count "syscalls lost with --bpf-summary-entries=1" 1 "${lost:-none}"

# check_fails WANT ARGS...: perf ARGS exits 1, printing the one line WANT
check_fails() {
	local want=$1 got rc

	shift
	got=$(perf "$@" 2>&1 < /dev/null)
	rc=$?
	if [ ${rc} != 1 ] || [ "${got}" != "${want}" ]; then
		echo "FAIL: perf $*: exit ${rc}, printed '${got}', expected '${want}'"
		err=1
	else
		echo "ok: perf $*: ${want}"
	fi
}
check_fails "--bpf-summary-entries: 2000000 is more than the 1048576 it takes" \
	trace -as --bpf-summary --bpf-summary-entries=2000000 -- true
# not taken modulo 2^32
check_fails "--bpf-summary-entries: 4294967297 is more than the 1048576 it takes" \
	trace -as --bpf-summary --bpf-summary-entries=4294967297 -- true
check_fails "--bpf-summary-entries: the summary is not collected in BPF (-v says why)" \
	trace -as --no-bpf-summary --bpf-summary-entries=10 -- true

# errnos FILE CALLS ERRNO: the count of ERRNO under each row of CALLS
# failed flock calls
errnos() {
	awk -v calls="$2" -v e="$3:" '
		/^   [a-z]/ { row = ($1 == "flock" && $3 == calls) }
		row && $1 == e { print $2 }' "$1"
}

# 300 and 700 flock calls failing with EBADF, in two processes, on two
# CPUs if there are: total mode adds up the CPUs
fails='perf test -w syscall_fail 300; perf test -w syscall_fail 700'
if [ "$(nproc)" -ge 2 ]; then
	fails='taskset -c 0 perf test -w syscall_fail 300;'
	fails="${fails} taskset -c 1 perf test -w syscall_fail 700"
fi
for mode in total cgroup; do
	a=; [ ${mode} = cgroup ] && a=-a
	perf trace ${a} -s --bpf-summary --errno-summary --summary-mode=${mode} -o "${out}" -- \
		sh -c "${fails}"
	expect_count "${mode}: EBADF of 1000 failed flock calls" 1000 "$(errnos "${out}" 1000 EBADF)"
done
perf trace -s --bpf-summary --errno-summary --summary-mode=thread -o "${out}" -- sh -c "${fails}"
expect_count "thread: EBADF of the process with 300" 300 "$(errnos "${out}" 300 EBADF)"
expect_count "thread: EBADF of the process with 700" 700 "$(errnos "${out}" 700 EBADF)"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- sh -c "${fails}"
expect_count "without --errno-summary: flock calls and errors" "1000 1000" \
	"$(awk '$1 == "flock" { print $2, $3; exit }' "${out}")"
expect_count "without --errno-summary: errno lines" 0 "$(grep -c 'EBADF' "${out}")"

# name FILE CALLS: the name of the thread that made CALLS getppid calls
name() {
	awk -v calls="$2" '/^ [^ ]/ { name = $1 }
		$1 == "getppid" && $2 == calls { print name; exit }' "$1"
}

# The second thread of getppid_loop names itself getppid-2, the first has
# the name the user-space summary gives it (perf may be a wrapper that
# execs perf_VERSION); env execs perf, which names the thread after
perf trace -s --no-bpf-summary --summary-mode=thread -o "${out}" -- \
	perf test -w getppid_loop 100 50
main=$(name "${out}" 100)
if [ -z "${main}" ]; then
	echo "FAIL: the user-space summary has no thread with 100 getppid calls"
	err=1
fi
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- perf test -w getppid_loop 100 50
expect_count "thread names: the thread with 100 getppid calls" "${main}" "$(name "${out}" 100)"
expect_count "thread names: the thread with 50" getppid-2 "$(name "${out}" 50)"
perf trace -s --bpf-summary --summary-mode=thread -o "${out}" -- \
	env perf test -w getppid_loop 70
expect_count "thread names: the name after exec" "${main}" "$(name "${out}" 70)"
expect_count "thread names: threads named env" 0 "$(grep -c '^ env (' "${out}")"

# A 32-bit x86 program's 7 write() calls failing with EBADF and 5 getppid()
# calls are i386's numbers 4 and 64, stat and semget on x86_64: both
# summaries name them from i386's table
cat > "${tmpdir}/compat.c" <<'PROG'
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	for (int i = 0; i < 7; i++)
		syscall(SYS_write, -1, "x", 1);
	for (int i = 0; i < 5; i++)
		syscall(SYS_getppid);
	return 0;
}
PROG
# row FILE NAME: the calls and errors of syscall NAME, or nothing
row() {
	awk -v name="$2" '$1 == name { print $2, $3; exit }' "$1"
}
if [ "$(uname -m)" != x86_64 ]; then
	echo "32-bit syscalls not checked: they are told apart on x86_64 only"
elif ! gcc -m32 -o "${tmpdir}/compat" "${tmpdir}/compat.c" 2>/dev/null; then
	echo "32-bit syscalls not checked: gcc -m32 builds nothing (no gcc-multilib)"
elif ! "${tmpdir}/compat" 2>/dev/null; then
	echo "32-bit syscalls not checked: this kernel runs no 32-bit programs"
else
	for what in "--bpf-summary --summary-mode=total" "--bpf-summary --summary-mode=thread" \
		    "--no-bpf-summary --summary-mode=total" "--no-bpf-summary --summary-mode=thread"; do
		perf trace -s ${what} --errno-summary -o "${out}" -- "${tmpdir}/compat"
		expect_count "${what}: write" "7 7" "$(row "${out}" write)"
		expect_count "${what}: write: EBADF" 7 "$(awk '/^   [a-z]/ { row = $1 }
			row == "write" && $1 == "EBADF:" { print $2 }' "${out}")"
		expect_count "${what}: getppid" "5 0" "$(row "${out}" getppid)"
		expect_count "${what}: semget" "" "$(row "${out}" semget)"
	done
fi

# norm FILE: each table's header, pid left out, and its rows sorted:
# name, calls, errors and errnos, times left out
norm() {
	awk '/^ [^ ].* \([0-9]+\), [0-9]+ events/ { t++; sub(/ \([0-9]+\),/, ","); print t, 0, $0; next }
	     /^ total, / { t++; print t, 0, $0; next }
	     /^   [a-z]/ && NF == 8 && $2 ~ /^[0-9]+$/ { if (row) print row; row = t " 1 " $1 " " $2 " " $3; next }
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
