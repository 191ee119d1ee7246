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

if [ "$(id -u)" != 0 ]; then
	echo "Skip: needs root"
	exit 2
fi
if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
	echo "Skip: perf is built without BPF skeletons"
	exit 2
fi
check_setup record_offcpu_filter
perfdata="${tmpdir}/perf.data"
pidfile="${tmpdir}/pid"
# the samples written at the end have a fake time from 18446744069 s on
direct="0,18446744069"

# sleeps PID: the direct samples of the 300 ms sleeps of process PID
sleeps() {
	perf script -i "${perfdata}" --time "${direct}" -F pid,period,event 2>/dev/null |
		awk -v pid="$1" '/offcpu-time/ && $1 == pid && $2 >= 290000000 { n++ }
				 END { print n + 0 }'
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

	start_stopped sleeper 300 2 || return 1
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
# shellcheck disable=SC2016
if record -C "${cpu}" -- sh -c 'echo $$ > "$0"; exec taskset -c "$1" perf test -w sleeper 300 2' \
	"${pidfile}" "${cpu}"; then
	expect_count "-C ${cpu}: sleeps of the workload on CPU ${cpu}" 2 \
		"$(sleeps "$(cat "${pidfile}")")"
fi

for opt in -t -p; do
	if record_task "${opt}"; then
		expect_count "${opt}: sleeps of the sleeper" 2 "$(sleeps "${target}")"
	fi
done

# with -D, the workload is added when the delay ends, after its first sleep
# began: the two that follow are recorded, the first one too if the
# workload started late
# shellcheck disable=SC2016
if record -D 100 -- sh -c 'echo $$ > "$0"; exec perf test -w sleeper 300 3' "${pidfile}"; then
	n=$(sleeps "$(cat "${pidfile}")")
	expect_min_count "-D 100: sleeps of the workload" 2 "${n}"
	if [ "${n}" -gt 3 ]; then
		echo "FAIL: -D 100: ${n} sleeps of the workload, it made 3"
		err=1
	fi
fi

# -G: the workload once it moved to the cgroup
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=perf-test-offcpu-filter-$$
if [ -n "${cgmnt}" ] && mkdir "${cgmnt}/${cg}"; then
	# shellcheck disable=SC2016
	record -a -G "${cg}" -- sh -c 'echo $$ > "$0/cgroup.procs"; echo $$ > "$1";
		exec perf test -w sleeper 300 2' "${cgmnt}/${cg}" "${pidfile}" &&
		expect_count "-G: sleeps of the workload in the cgroup" 2 \
			"$(sleeps "$(cat "${pidfile}")")"
	rmdir "${cgmnt}/${cg}"
else
	skip_check "-G" "no cgroup2 hierarchy to make a cgroup in"
fi

# inject OPTION...: perf record OPTION... with its first BPF map update
# after the programs are loaded, the first filter entry, failing with
# E2BIG (a full map) by strace's fault injection; --no-bpf-event, so that
# the BPF programs of others do not change the number of that bpf() call
inject() {
	local n

	strace -o "${tmpdir}/bpf.log" -e trace=bpf perf record --no-bpf-event -e dummy \
		--off-cpu -o "${perfdata}" "$@" > /dev/null 2>&1
	n=$(awk '/^bpf\(BPF_PROG_LOAD/ { n = 0; load = 1 }
		 /^bpf\(BPF_MAP_UPDATE_ELEM/ && load && !n { n = NR } END { print n + 0 }' \
		"${tmpdir}/bpf.log")
	strace -o /dev/null -e trace=bpf -e inject=bpf:error=E2BIG:when="${n}" \
		perf record --no-bpf-event -e dummy --off-cpu -o "${perfdata}" "$@" \
		> "${tmpdir}/record.out" 2>&1
}

# a filter entry that cannot be added is named in one line, and fails the
# session, or when the workload is added after -D, leaves off-cpu off
if command -v strace > /dev/null; then
	want="--off-cpu: cannot add CPU ${cpu} to the BPF filter: Argument list too long"
	inject -C "${cpu}" -- true
	rc=$?
	if [ "${rc}" = 0 ] || [ "$(head -1 "${tmpdir}/record.out")" != "${want}" ]; then
		echo "FAIL: -C ${cpu} with a failed filter update: exit ${rc}, printed:"
		head -3 "${tmpdir}/record.out"
		err=1
	else
		echo "ok: -C ${cpu} with a failed filter update fails: ${want}"
	fi
	# shellcheck disable=SC2016
	inject --off-cpu-thresh 200 -D 100 -- \
		sh -c 'echo $$ > "$0"; exec perf test -w sleeper 300 2' "${pidfile}"
	pid=$(cat "${pidfile}")
	want="--off-cpu: cannot add workload ${pid} to the BPF filter: Argument list too long"
	if ! grep -q -x -e "${want}" "${tmpdir}/record.out"; then
		echo "FAIL: -D with a failed filter update: no line '${want}'"
		head -5 "${tmpdir}/record.out"
		err=1
	else
		expect_count "-D with a failed filter update: ${want}; sleeps" 0 \
			"$(sleeps "${pid}")"
	fi
else
	skip_check "a failed filter update" "no strace to inject the failure"
fi

check_exit
