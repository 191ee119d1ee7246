#!/bin/bash
# perf record --off-cpu says how many off-cpu intervals it did not record
# SPDX-License-Identifier: GPL-2.0
# Every sleep of a workload sleeping a known number of times is a sample,
# or is counted in the line perf record prints at the end when intervals
# were not recorded.  With the map summing the short intervals filled
# before the workload runs, each of its sleeps is counted as finding the
# map full: its 20 short ones and any other the sched_switch tracepoint sees
# (perf's exec, a page fault waiting on a busy disk).

# err, skipped, tmpdir and target belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --off-cpu; then
	exit 2
fi
check_setup record_offcpu_missed
perfdata="${tmpdir}/perf.data"
out="${tmpdir}/record.out"

# missed: "TOTAL FULL STORAGE UNSEEN", the intervals perf record said it did
# not record, by cause, zeros if it said nothing; fails if the line does
# not add up
missed() {
	awk 'BEGIN { re = "^off-cpu: [0-9]+ intervals not recorded: [0-9]+ found the " \
			  "off_cpu map full, [0-9]+ had no task storage, [0-9]+ came " \
			  "back on a CPU unseen$" }
	     /^off-cpu: / {
		if ($0 !~ re || $2 != $6 + $12 + $17) { print "bad line: " $0; bad = 1; exit }
		line = $2 " " $6 " " $12 " " $17 }
	     END { if (!bad) print line ? line : "0 0 0 0"; exit bad }' "${out}"
}

# nap_samples: the direct samples of at least $1 ns in sleeper_nap
nap_samples() {
	perf script -i "${perfdata}" --time 0,18446744069 -F period,event,ip,sym 2>/dev/null |
		awk -v min="$1" 'function end() { n += s && nap }
				 /offcpu-time/ { end(); s = $1 >= min; nap = 0; next }
				 $2 == "sleeper_nap" { nap = 1 }
				 END { end(); print n + 0 }'
}

# 10 sleeps of 50 ms above a threshold of 20 ms: each is a direct sample or
# counted
if perf record -e dummy --off-cpu --off-cpu-thresh 20 -o "${perfdata}" \
	-- perf test -w sleeper 50 10 > "${out}" 2>&1; then
	n=$(nap_samples 45000000)
	if ! counts=$(missed); then
		echo "FAIL: ${counts}"
		err=1
	elif ! read -r total full storage unseen <<< "${counts}" ||
	     [ "${n}" -gt 10 ] || [ $((n + total)) -lt 10 ]; then
		echo "FAIL: 10 sleeps: ${n} direct samples, ${total} not recorded"
		err=1
	else
		echo "ok: 10 sleeps: ${n} direct samples, ${total} not recorded"
	fi
else
	echo "FAIL: perf record: $(head -1 "${out}")"
	err=1
fi

# fill_off_cpu_map PID: fill the off_cpu map of perf (PID) with keys of no
# task (tgid -1): the next short interval finds no room
fill_off_cpu_map() {
	local f id="" max size

	# the only hash map of the program with 8-byte values
	for f in /proc/"$1"/fdinfo/*; do
		if awk '/^map_type:/ { t = $2 } /^value_size:/ { v = $2 }
			END { exit !(t == 1 && v == 8) }' "${f}" 2>/dev/null; then
			id=$(awk '/^map_id:/ { print $2 }' "${f}")
			max=$(awk '/^max_entries:/ { print $2 }' "${f}")
			size=$(awk '/^key_size:/ { print $2 }' "${f}")
		fi
	done
	if [ -z "${id}" ]; then
		echo "FAIL: no off_cpu map in perf (pid $1)"
		err=1
		return 1
	fi
	# the key starts with the thread and the tgid, the rest is zero
	awk -v id="${id}" -v n="${max}" -v size="${size}" 'BEGIN {
		for (j = 8; j < size; j++)
			zeros = zeros " 0"
		for (i = 1; i <= n; i++)
			printf "map update id %d key %d %d %d 0 255 255 255 255%s value %s\n",
			       id, i % 256, int(i / 256) % 256, int(i / 65536) % 256,
			       zeros, "0 0 0 0 0 0 0 0" }' > "${tmpdir}/fill"
	if ! bpftool batch file "${tmpdir}/fill" > "${tmpdir}/fill.out" 2>&1; then
		echo "FAIL: cannot fill the off_cpu map: $(tail -1 "${tmpdir}/fill.out")"
		err=1
		return 1
	fi
}

# 20 sleeps of 1 ms of a process (-p) that waits until the map is full:
# each sleep is counted, none is in a sample.  The sleeps are those
# sched:sched_switch records with prev_state S or D; one preempted while
# going to sleep (R+) is off CPU for the off-cpu program as well.
if ! command -v bpftool > /dev/null; then
	skip_check "off_cpu map full" "no bpftool to fill the map"
elif start_stopped sleeper 1 20; then
	perf record -vvv -e sched:sched_switch --off-cpu -p "${target}" -o "${perfdata}" \
		> "${out}" 2>&1 &
	rec=$!
	if wait_log_line "${rec}" "${out}" "perf record has started" &&
	   fill_off_cpu_map "${rec}"; then
		kill -CONT "${target}"
		if wait "${rec}"; then
			counts=$(missed) || echo "FAIL: ${counts}"
			read -r total full storage unseen <<< "${counts}"
			read -r n sleeps preempted <<< "$(perf script -i "${perfdata}" \
				-F pid,event,trace 2>/dev/null | awk -v pid="${target}" '
				$1 != pid { next }
				/offcpu-time/ { n++ }
				/ prev_state=[SD] / { sleeps++ }
				/ prev_state=R\+ / { preempted++ }
				END { print n + 0, sleeps + 0, preempted + 0 }')"
			expect_min_count "sleeps of the sleeper" 20 "${sleeps}"
			if [ "${full:-0}" -lt "${sleeps}" ] ||
			   [ "${full:-0}" -gt $((sleeps + preempted)) ]; then
				echo "FAIL: sleeps counted as finding the off_cpu map full:" \
				     "${full}, the sleeper slept ${sleeps} times" \
				     "(${preempted} more preempted going to sleep)"
				err=1
			else
				echo "ok: sleeps counted as finding the off_cpu map full = ${full}," \
				     "of ${sleeps} sleeps, ${preempted} preempted going to sleep"
			fi
			expect_count "intervals not recorded" "${full}" "${total}"
			expect_count "off-cpu samples of the sleeper" 0 "${n}"
		else
			echo "FAIL: perf record -p: $(grep -v '^ ' "${out}" | tail -1)"
			err=1
		fi
	else
		kill -CONT "${target}"
		wait "${rec}"
	fi
fi

check_exit
