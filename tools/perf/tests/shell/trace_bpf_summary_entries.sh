#!/bin/bash
# perf trace --bpf-summary counts exactly and says what a full map lost
# SPDX-License-Identifier: GPL-2.0
# The BPF summary of a workload that makes a known number of getppid
# calls counts each of them; with room for one statistic only, it says
# how many syscalls it could not count.  Bad --bpf-summary-entries values
# fail in one line.

# err and tmpdir belong to lib/perf_check.sh (lib/bpf_summary.sh sources it)
# shellcheck disable=SC2034,SC2154

# shellcheck source=lib/bpf_summary.sh
. "$(dirname "$0")"/lib/bpf_summary.sh
bpf_summary_setup trace_bpf_summary_entries
out="${tmpdir}/out"
calls=100000

# a thread's row: "getppid  CALLS  ERRORS ..."; the workload is the only
# thread on the machine that makes exactly $calls of them
perf trace -as --summary-mode=thread --bpf-summary -- \
	perf test -w getppid_loop ${calls} > "${out}" 2>&1
got=$(awk -v n=${calls} '$1 == "getppid" && $2 == n { c++ } END { print c + 0 }' "${out}")
expect_count "threads with exactly ${calls} getppid calls" 1 "${got}"
if grep -q '^ *LOST ' "${out}"; then
	echo "FAIL: a LOST line with room for the default number of entries: $(grep '^ *LOST ' "${out}")"
	err=1
fi

# room for one statistic: the workload alone makes more than one syscall
perf trace -as --bpf-summary --bpf-summary-entries=1 -- \
	perf test -w getppid_loop 10 > "${out}" 2>&1
lost=$(sed -n 's/^ *LOST \([0-9]*\) syscalls: the summary has room for 1 entries.*/\1/p' "${out}")
expect_min_count "syscalls reported lost with --bpf-summary-entries=1" 1 "${lost:-none}"

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

check_exit
