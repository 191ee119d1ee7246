#!/bin/bash
# perf trace -s collects the summary in BPF by default, else in user space
# SPDX-License-Identifier: GPL-2.0
# The summary of -s is the BPF one where perf may load BPF, the user-space
# one with --no-bpf-summary, trace.bpf_summary=no or an option the BPF
# summary does not count, without a word unless -v; both count exactly
# the 1000 getppid calls of a workload.

# err and tmpdir belong to lib/perf_check.sh (lib/bpf_summary.sh sources it)
# shellcheck disable=SC2034,SC2154

# shellcheck source=lib/bpf_summary.sh
. "$(dirname "$0")"/lib/bpf_summary.sh
bpf_summary_setup trace_summary_default
out="${tmpdir}/out"
errs="${tmpdir}/errs"

# summary WHERE WHAT ARGS...: perf trace -s -v ARGS of 1000 getppid calls
# says it collects the summary WHERE (BPF or user space) and counts them
summary() {
	local where=$1 what=$2

	shift 2
	if ! perf trace -s -v --summary-mode=total "$@" -o "${out}" -- \
		perf test -w getppid_loop 1000 2> "${errs}"; then
		echo "FAIL: ${what}: perf trace failed"
		cat "${errs}"
		err=1
		return
	fi
	expect_count "${what}: says it collects in ${where}" 1 \
		"$(grep -c "^perf trace: the summary is collected in ${where}" "${errs}")"
	expect_count "${what}: getppid calls" 1000 \
		"$(awk '$1 == "getppid" { print $2; exit }' "${out}")"
}

summary BPF "default"
summary "user space" "--no-bpf-summary" --no-bpf-summary
summary "user space" "--pf=maj" -e getppid --pf=maj
printf '[trace]\n\tbpf_summary = no\n' > "${tmpdir}/config"
PERF_CONFIG="${tmpdir}/config" summary "user space" "trace.bpf_summary=no"
PERF_CONFIG="${tmpdir}/config" summary BPF "trace.bpf_summary=no, --bpf-summary" --bpf-summary

# without -v: no word of where, no libbpf line
perf trace -s --summary-mode=total -o "${out}" -- perf test -w getppid_loop 10 2> "${errs}"
expect_count "default without -v: lines on stderr" 0 "$(wc -l < "${errs}")"
perf trace -s --no-bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 10 2> "${errs}"
expect_count "user space without -v: lines on stderr" 0 "$(wc -l < "${errs}")"

check_exit
