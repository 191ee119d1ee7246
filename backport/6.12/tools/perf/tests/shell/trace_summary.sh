#!/bin/bash
# perf trace summary modes (user space)
# SPDX-License-Identifier: GPL-2.0
# The workloads make a known number of calls: getppid_loop N N2 makes N
# getppid() in its main thread and N2 in thread "getppid-2"; syscall_fail N
# makes N flock() calls failing with EBADF.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_summary
out="${tmpdir}/out"

shelldir=$(dirname "$0")
# shellcheck source=lib/trace_summary.sh
. "${shelldir}"/lib/trace_summary.sh

if ! perf trace -s --no-bpf-summary -o /dev/null true 2>/dev/null; then
	echo "Skip: perf trace does not work here (no tracefs or not allowed)"
	exit 2
fi

# The user-space summary counts exactly: one run each
echo "Thread mode"
perf trace -s --no-bpf-summary -o "${out}" -- perf test -w getppid_loop 300 200
expect "${out}" '^ perf \(' getppid "300 0" "thread mode"
expect "${out}" '^ getppid-2 \(' getppid "200 0" "thread mode"
check_order "${out}" "thread mode"
check_single_calls "${out}" "thread mode"

echo "Total mode"
perf trace -s --no-bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 300 200
expect "${out}" '^ total, [0-9]+ events$' getppid "500 0" "total mode"
check_order "${out}" "total mode"

echo "Errors"
perf trace -s --no-bpf-summary --summary-mode=total -o "${out}" -- perf test -w syscall_fail 50
expect "${out}" '^ total' flock "50 50" "errors"

echo "Bad mode"
if perf trace -s --no-bpf-summary --summary-mode=bogus -o /dev/null true 2>/dev/null; then
	echo "--summary-mode=bogus was accepted"
	err=1
fi
if perf trace -s --no-bpf-summary --summary-mode=cgroup -o /dev/null true 2>/dev/null; then
	echo "--summary-mode=cgroup was accepted without --bpf-summary"
	err=1
fi
exit ${err}
