#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Helpers to check the syscall summary of 'perf trace -s', see trace_summary.sh
# The checks set err=1, the exit code of the test that sources this file.
# shellcheck disable=SC2034

# Prints "calls errors" of syscall $3 in the first table whose title line
# (" comm (tid), N events...", " total, N events", " cgroup /x, ...") matches $2
syscall_stat() {
	awk -v title="$2" -v sc="$3" '
		/^ [^ ]/ { in_table = ($0 ~ title) }
		in_table && $1 == sc { print $2, $3; exit }' "$1"
}

# expect FILE TITLE SYSCALL "CALLS ERRORS" WHAT: sets err=1 on mismatch
expect() {
	local got

	got=$(syscall_stat "$1" "$2" "$3")
	if [ "${got}" != "$4" ]; then
		echo "$5: '$3' in table '$2': expected '$4', got '${got}'"
		cat "$1"
		err=1
	fi
}

# There are tables, and tables and groups are ordered by total time (4th
# column), descending
check_order() {
	if ! awk '
		function end_group() {
			if (!in_group)
				return
			if (groups++ && group_total > prev_group)
				bad = 1
			prev_group = group_total
		}
		/^ [^ ].*, [0-9]+ events/ {
			end_group()
			in_group = 1
			group_total = 0
			prev = 1e300
			next
		}
		/^   [a-z_0-9]+ +[0-9]+ +[0-9]+ / {
			if ($4 > prev)
				bad = 1
			prev = $4
			group_total += $4
			rows++
		}
		END { end_group(); exit bad || !rows }' "$1"; then
		echo "$2: no table, or tables not ordered by total time"
		cat "$1"
		err=1
	fi
}

# Some syscall is made once, and each made once has min = avg = max and a
# stddev of 0
check_single_calls() {
	if ! awk '
		/^   [a-z_0-9]+ +1 +[0-9]+ / {
			if ($5 != $6 || $6 != $7 || $8 != "0.00%") bad = 1
			once++
		}
		END { exit bad || !once }' "$1"; then
		echo "$2: no syscall made once, or one without min = avg = max"
		cat "$1"
		err=1
	fi
}
