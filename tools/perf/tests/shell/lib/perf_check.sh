#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the shell tests that compare perf's counts with what a
# workload of tests/workloads did:
#
#   check_setup NAME	a scratch directory in $tmpdir, removed on exit
#			with the pids listed in $check_pids killed; a test
#			with more to undo defines check_more_cleanup()
#   stat_count FILE EVENT	the count of EVENT in 'perf stat -x,' output
#   expect_count WHAT WANT GOT	GOT is exactly WANT
#   expect_min WHAT FLOOR GOT	GOT is a number (decimals too) of at least
#			FLOOR; expect_min_count: a whole number: a count
#			compared with another is first checked this way, so
#			that no comparison can pass with both sides 0
#   skip_check WHAT WHY	a sub-check that cannot run here: a Skip line
#   start_stopped ARGS	'perf test -w ARGS', stopped before it runs: $target
#   wait_log_line PID FILE TEXT	until FILE, written by perf (PID), has a
#			line starting with TEXT
#   wait_cpu_time PID MS	until process PID has run MS ms more on CPUs:
#			a window that holds as much of a CPU-bound
#			workload however loaded the machine is
#   symbol_shares DATA SYM...	each SYM's share of the period, in percent,
#			in perf.data file DATA, one a line (an empty line
#			if SYM has none): one perf report for all
#			(read with { read -r a; read -r b; } < <(...))
#   split_part HEAVY LIGHT	HEAVY in percent of HEAVY + LIGHT, two shares
#			of a profile (nothing if they are not numbers)
#   expect_split WHAT HEAVY LIGHT	the shares of split_heavy and
#			split_light in a profile of cpu_split are about 3:1
#   check_exit		exit 1 if a check failed, 2 if one was skipped
#
# The checks print one "ok:" or "FAIL:" line each and set err=1.
# shellcheck disable=SC2034

err=0
skipped=0
check_pids=
tmpdir=

check_cleanup() {
	local pid

	for pid in ${check_pids}; do
		kill "${pid}" 2>/dev/null
		kill -CONT "${pid}" 2>/dev/null
	done
	if declare -F check_more_cleanup > /dev/null; then
		check_more_cleanup
	fi
	[ -n "${tmpdir}" ] && rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

check_setup() {
	tmpdir=$(mktemp -d "/tmp/__perf_test.$1.XXXXX")
	trap 'check_cleanup; exit 1' TERM INT
	trap check_cleanup EXIT
}

stat_count() {
	awk -F, -v e="$2" '$3 == e { print $1; exit }' "$1"
}

expect_count() {
	if [ "$3" != "$2" ]; then
		echo "FAIL: $1: expected $2, got '$3'"
		err=1
	else
		echo "ok: $1 = $3"
	fi
}

expect_min() {
	if ! awk -v v="$3" -v f="$2" \
	     'BEGIN { n = "^[0-9]+(\\.[0-9]+)?$"; exit !(v ~ n && f ~ n) }'; then
		echo "FAIL: $1: expected a number of at least $2, got '$3'"
		err=1
		return 1
	fi
	if awk -v v="$3" -v f="$2" 'BEGIN { exit !(v + 0 < f + 0) }'; then
		echo "FAIL: $1: expected at least $2, got $3"
		err=1
		return 1
	fi
	echo "ok: $1 = $3 (>= $2)"
	return 0
}

# expect_min for a count: VALUE must be a whole number as well
expect_min_count() {
	case "$3" in
	'' | *[!0-9]*)
		echo "FAIL: $1: expected a count of at least $2, got '$3'"
		err=1
		return 1 ;;
	esac
	expect_min "$@"
}

skip_check() {
	echo "Skip: $1: $2"
	skipped=$((skipped + 1))
}

start_stopped() {
	(kill -STOP "${BASHPID}"; exec perf test -w "$@") &
	target=$!
	check_pids="${check_pids} ${target}"
	while [ "$(awk '{ print $3 }' "/proc/${target}/stat" 2>/dev/null)" != "T" ]; do
		if [ ! -e "/proc/${target}" ]; then
			echo "FAIL: workload $* exited before it was stopped"
			err=1
			return 1
		fi
		sleep 0.01
	done
}

wait_log_line() {
	local i

	for i in $(seq 6000); do
		if grep -q "^$3" "$2" 2>/dev/null; then
			return 0
		fi
		if [ ! -e "/proc/$1" ]; then
			echo "FAIL: perf (pid $1) ended before it printed '$3'"
			err=1
			return 1
		fi
		sleep 0.01
	done
	echo "FAIL: perf (pid $1) did not print '$3' in 60 s"
	err=1
	return 1
}

# utime + stime of process PID in clock ticks (the comm may hold spaces)
cpu_ticks() {
	local stat f

	read -r stat 2>/dev/null < "/proc/$1/stat" || return 1
	read -r -a f <<< "${stat##*) }"
	echo $((f[11] + f[12]))
}

# utime and stime are each rounded down to a tick: two ticks more than
# MS make sure of MS.
wait_cpu_time() {
	local now want end=$((SECONDS + 120))

	now=$(cpu_ticks "$1") || { echo "FAIL: no process $1"; err=1; return 1; }
	want=$((now + ($2 * $(getconf CLK_TCK) + 999) / 1000 + 2))
	while [ $SECONDS -lt $end ]; do
		if ! now=$(cpu_ticks "$1"); then
			echo "FAIL: process $1 ended before it ran $2 ms more"
			err=1
			return 1
		fi
		if [ "$now" -ge "$want" ]; then
			return 0
		fi
		sleep 0.01
	done
	echo "FAIL: process $1 did not run $2 ms in 120 s"
	err=1
	return 1
}

symbol_shares() {
	local data=$1

	shift
	perf report -i "$data" --stdio --no-children -g none --sort sym 2>/dev/null |
		awk -v syms="$*" '
		BEGIN { n = split(syms, sym, " ") }
		{
			for (i = 1; i <= n; i++) {
				if ($NF != sym[i] || (i in share))
					continue
				share[i] = $1
				sub("%", "", share[i])
			}
		}
		END { for (i = 1; i <= n; i++) print share[i] }'
}

# cpu_split's split_heavy() does three times the work of split_light(), so
# it is about 75% of the two together, but not exactly, and not the same
# in every process: 100 profiles of 2 s of its CPU time at 999 Hz (about
# 2000 samples each) put it at 73.9 +- 1.7, from 69.0 to 77.9.  Within 10
# points of 75 tells that the profile is cpu_split's, split_heavy the
# larger by about three times; the counts are checked against task-clock.
split_part() {
	awk -v h="$1" -v l="$2" 'BEGIN {
		if (h ~ /^[0-9.]+$/ && l ~ /^[0-9.]+$/ && h + l > 0)
			printf "%.2f\n", 100 * h / (h + l) }'
}

expect_split() {
	local part

	part=$(split_part "$2" "$3")
	if [ -z "$part" ] || ! awk -v p="$part" 'BEGIN { exit !(p > 65 && p < 85) }'; then
		echo "FAIL: $1: split_heavy ${2:-?}%, split_light ${3:-?}%:" \
		     "split_heavy is ${part:-?}% of the two, expected 75 +- 10"
		err=1
		return 1
	fi
	echo "ok: $1: split_heavy is ${part}% of split_heavy + split_light"
}

check_exit() {
	if [ "${err}" != 0 ]; then
		exit 1
	fi
	if [ "${skipped}" != 0 ]; then
		exit 2
	fi
	exit 0
}
