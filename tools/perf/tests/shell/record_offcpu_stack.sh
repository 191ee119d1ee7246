#!/bin/bash
# perf record --off-cpu keeps the user stack of samples and of sums
# SPDX-License-Identifier: GPL-2.0
# The off-cpu BPF program walks a task's user stack once, when it leaves the
# CPU: an interval at or above --off-cpu-thresh is written as a sample with
# that stack, a shorter one is summed under it.  Five sleeps of 30 ms above
# a threshold of 20 ms are samples with the sleeper's shallow stack; fifty
# sleeps of 1 ms made 40 frames deeper are summed, with the 32 entries kept
# of the deeper stack.  Both start at the same return address in libc.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --off-cpu; then
	exit 2
fi
check_setup record_offcpu_stack
perfdata="${tmpdir}/perf.data"

if ! perf record -q -g -e dummy --off-cpu --off-cpu-thresh 20 -o "${perfdata}" \
	-- perf test -w sleeper 30 5 1 50 40 > "${tmpdir}/record.out" 2>&1; then
	echo "FAIL: perf record: $(head -1 "${tmpdir}/record.out")"
	exit 1
fi

# one line a record: its period, the entries of its user stack, the first,
# and 1 if sleeper_nap is in it (perf script resolves the symbols of the
# samples, written while the workload runs, not those of the sums, written
# after it exits)
perf script -i "${perfdata}" -F period,ip,sym 2>/dev/null |
	awk 'function out() { if (p != "") print p, n, first, nap + 0 }
	     /^ *[0-9]+ *$/ { out(); p = $1; n = 0; first = ""; nap = 0; next }
	     NF >= 1 { n++; if (first == "") first = $1 }
	     $2 == "sleeper_nap" { nap = 1 }
	     END { out() }' > "${tmpdir}/records"

# the samples of the 30 ms sleeps, in sleeper_nap with a shallow stack;
# the records of the 1 ms sleeps, with 32 stack entries (at most 50: some
# may be samples on a loaded machine); the return addresses all of them
# start at
read -r long deep deep_ns firsts < <(
	awk '$2 == 32 { deep++; deep_ns += $1; first[$3] = 1 }
	     $2 != 32 && $1 >= 30000000 && $4 { long++; first[$3] = 1 }
	     END { for (f in first) nfirst++
		   print long + 0, deep + 0, deep_ns + 0, nfirst + 0 }' "${tmpdir}/records")

expect_count "samples of the 30 ms sleeps" 5 "${long}"
expect_min_count "records of the 1 ms sleeps, 32 stack entries" 1 "${deep}"
if [ "${deep}" -gt 50 ]; then
	echo "FAIL: the 50 short sleeps are in ${deep} records"
	err=1
fi
expect_min "time of the 1 ms sleeps (ns)" 50000000 "${deep_ns}"
expect_count "return addresses the stacks start at" 1 "${firsts}"

check_exit
