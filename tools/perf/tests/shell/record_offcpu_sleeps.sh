#!/bin/bash
# perf record --off-cpu records the known sleeps of the sleeper workload
# SPDX-License-Identifier: GPL-2.0
# Each case runs perf test -w sleeper, whose sleeps are known, and checks
# the off-cpu samples, or the intervals said not to be recorded, against
# them.

# err, skipped, tmpdir and target belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --off-cpu; then
	exit 2
fi
check_setup record_offcpu_sleeps
perfdata="${tmpdir}/perf.data"
out="${tmpdir}/record.out"
pidfile="${tmpdir}/pid"
# the samples written at the end have a fake time from 18446744069 s on
direct="0,18446744069"

# The workload: two sleeps of 300 ms, then one of 50 ms one frame deeper
# (sleeper_deep), so that it does not exit as the last long sleep ends
sleeper="sleeper 300 2 50 1 1"

# sleeps PID: the direct samples of the 300 ms sleeps of process PID, in
# sleeper_nap and not in sleeper_deep (on a loaded machine, a wait of its
# exec or its short sleep may take as long)
sleeps() {
	perf script -i "${perfdata}" --time "${direct}" -F pid,period,event,ip,sym 2>/dev/null |
		awk -v pid="$1" 'function end() { n += s && nap && !deep }
				 /offcpu-time/ { end(); s = $1 == pid && $2 >= 290000000
						 nap = deep = 0; next }
				 $2 == "sleeper_nap" { nap = 1 }
				 $2 == "sleeper_deep" { deep = 1 }
				 END { end(); print n + 0 }'
}

# expect_sleeps WHAT PID: the two long sleeps of PID, recorded as direct
# samples.  On a loaded machine one of them was now and then missing, or
# without symbols: one at least
expect_sleeps() {
	local n

	n=$(sleeps "$2")
	if expect_min_count "$1" 1 "${n}" && [ "${n}" -gt 2 ]; then
		echo "FAIL: $1: ${n} sleeps, the workload made 2"
		err=1
	fi
}

# record OPTION...: perf record --off-cpu of a workload that writes its pid
record() {
	if ! perf record -e dummy --off-cpu --off-cpu-thresh 200 -o "${perfdata}" "$@" \
		> "${out}" 2>&1; then
		echo "FAIL: perf record $*: $(head -1 "${out}")"
		err=1
		return 1
	fi
}

# record_task OPTION: perf record OPTION of a stopped sleeper, released once
# perf has turned the BPF program on; perf ends when the sleeper exits
record_task() {
	local rec

	# shellcheck disable=SC2086
	start_stopped ${sleeper} || return 1
	perf record -vvv -e dummy --off-cpu --off-cpu-thresh 200 -o "${perfdata}" \
		"$1" "${target}" > "${out}" 2>&1 &
	rec=$!
	wait_log_line "${rec}" "${out}" "perf record has started" || return 1
	kill -CONT "${target}"
	if ! wait "${rec}"; then
		echo "FAIL: perf record $1: $(grep -v '^ ' "${out}" | tail -1)"
		err=1
		return 1
	fi
}

cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
# With -C and no event but dummy, perf record 7.2 ends at its first wakeup
# and kills the workload (unpatched too): a cpu-clock event at 10 Hz keeps
# it going
# shellcheck disable=SC2016
if record -C "${cpu}" -e cpu-clock -F 10 -- sh -c 'echo $$ > "$0"; exec taskset -c "$1" perf test -w $2' \
	"${pidfile}" "${cpu}" "${sleeper}"; then
	expect_sleeps "-C ${cpu}: sleeps of the workload on CPU ${cpu}" "$(cat "${pidfile}")"
fi

for opt in -t -p; do
	if record_task "${opt}"; then
		expect_sleeps "${opt}: sleeps of the sleeper" "${target}"
	fi
done

# with -D, the workload is added when the delay ends, after it started:
# it sleeps once perf has said so
# shellcheck disable=SC2016
if record -D 100 -- sh -c 'echo $$ > "$0"
		until grep -q "^Events enabled" "$1"; do sleep 0.01; done
		exec perf test -w $2' "${pidfile}" "${out}" "${sleeper}"; then
	expect_sleeps "-D 100: sleeps of the workload" "$(cat "${pidfile}")"
fi

# -G: the workload once it moved to the cgroup
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=perf-test-offcpu-filter-$$
if [ -n "${cgmnt}" ] && mkdir "${cgmnt}/${cg}"; then
	# shellcheck disable=SC2016
	if record -a -G "${cg}" -- sh -c 'echo $$ > "$0/cgroup.procs"; echo $$ > "$1";
			exec perf test -w $2' "${cgmnt}/${cg}" "${pidfile}" "${sleeper}"; then
		expect_sleeps "-G: sleeps of the workload in the cgroup" "$(cat "${pidfile}")"
	fi
	rmdir "${cgmnt}/${cg}"
else
	skip_check "-G" "no cgroup2 hierarchy to make a cgroup in"
fi

# missed: "TOTAL FULL STORAGE UNSEEN", the intervals perf record said it
# did not record, zeros if it said nothing; fails if they do not add up
missed() {
	awk 'BEGIN { re = "^off-cpu: [0-9]+ intervals not recorded: [0-9]+ found the " \
			  "off_cpu map full, [0-9]+ had no task storage, [0-9]+ came " \
			  "back on a CPU unseen$" }
	     /^off-cpu: / {
		if ($0 !~ re || $2 != $6 + $12 + $17) { print "bad line: " $0; bad = 1; exit }
		line = $2 " " $6 " " $12 " " $17 }
	     END { if (!bad) print line ? line : "0 0 0 0"; exit bad }' "${out}"
}

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
# each is counted, none a sample.  The sleeps are the sched_switch records
# with prev_state S or D; one preempted going to sleep (R+) is off CPU too.
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
			counts=$(missed) || { echo "FAIL: ${counts}"; err=1; counts="0 0 0 0"; }
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

# Five sleeps of 30 ms above a threshold of 20 ms are samples with the
# sleeper's shallow stack; fifty of 1 ms made 40 frames deeper are summed,
# with the 32 entries kept of the deeper stack; all start at the same
# return address in libc.  One line a record: its period, the entries of
# its user stack, the first, and 1 if sleeper_nap is in it (perf script
# resolves the symbols of samples, not of the sums written after exit).
perf record -q -g -e dummy --off-cpu --off-cpu-thresh 20 -o "${perfdata}" \
	-- perf test -w sleeper 30 5 1 50 40 > "${out}" 2>&1 ||
	echo "perf record -g failed: $(head -1 "${out}")"
perf script -i "${perfdata}" -F period,ip,sym 2>/dev/null |
	awk 'function out() { if (p != "") print p, n, first, nap + 0 }
	     /^ *[0-9]+ *$/ { out(); p = $1; n = 0; first = ""; nap = 0; next }
	     NF >= 1 { n++; if (first == "") first = $1 }
	     $2 == "sleeper_nap" { nap = 1 }
	     END { out() }' > "${tmpdir}/records"

# the 1 ms sleeps are in at most 50 records: some may be samples on a
# loaded machine
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
