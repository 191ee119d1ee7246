#!/bin/bash
# perf record --off-cpu records the sleeps of each target it filters
# SPDX-License-Identifier: GPL-2.0
# -C, -t, -p, -G and a workload that runs before an initial delay (-D)
# each put their CPU, thread, process, cgroup or workload in a filter map
# of the off-cpu BPF program; each must record the sleeps of the sleeper
# workload it names.

# err, skipped, tmpdir and target belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --off-cpu; then
	exit 2
fi
check_setup record_offcpu_filter
perfdata="${tmpdir}/perf.data"
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
		> "${tmpdir}/record.out" 2>&1; then
		echo "FAIL: perf record $*: $(head -1 "${tmpdir}/record.out")"
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
		"$1" "${target}" > "${tmpdir}/record.out" 2>&1 &
	rec=$!
	wait_log_line "${rec}" "${tmpdir}/record.out" "perf record has started" || return 1
	kill -CONT "${target}"
	if ! wait "${rec}"; then
		echo "FAIL: perf record $1: $(grep -v '^ ' "${tmpdir}/record.out" | tail -1)"
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
		exec perf test -w $2' "${pidfile}" "${tmpdir}/record.out" "${sleeper}"; then
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

check_exit
