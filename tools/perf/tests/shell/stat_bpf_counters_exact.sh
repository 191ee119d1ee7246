#!/bin/bash
# perf stat --bpf-counters counts what perf stat counts, or refuses
# SPDX-License-Identifier: GPL-2.0
#
# A context switch happens in the kernel: context-switches:u is 0 with
# perf stat, and must be 0 with --bpf-counters too, of a workload that
# sleeps a known number of times; a workload is counted from its exec, as
# perf stat counts it.  Targets the shared leader cannot count
# (a cgroup of -G, --per-thread of CPUs) are refused in one line instead
# of printing numbers read from memory nothing wrote.

# err, tmpdir and check_pids belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh

check_setup stat_bpf_exact

# a cgroup made for -G, and the map of the test's sessions
cgrp_dir=
check_more_cleanup() {
	[ -n "${cgrp_dir}" ] && rmdir "${cgrp_dir}" 2>/dev/null
	bperf_attr_map_rm
}

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

if bperf_missing; then
	exit 2
fi
bperf_attr_map stat_bpf_exact
out="${tmpdir}/out"

# check_refused WANT-FIRST-LINE ARGS...: perf stat --bpf-counters ARGS
# fails, and its first line is WANT.  With -a --per-thread, perf reads the
# comm of every thread of the system first, and says so for one that exits
# meanwhile (on a busy machine): such lines are not perf stat's answer.
check_refused() {
	local want=$1 rc first

	shift
	perf stat --bpf-counters --bpf-attr-map "${attr_map}" -x, "$@" > "${out}" 2>&1
	rc=$?
	first=$(grep -v -e '^ *$' -e "^Couldn't resolve comm name for pid" "${out}" | head -1)
	if [ ${rc} = 0 ] || [ "${first}" != "${want}" ]; then
		echo "FAIL: perf stat --bpf-counters $*: exit ${rc}, first line '${first}', expected '${want}'"
		err=1
	else
		echo "ok: perf stat --bpf-counters $*: refused"
	fi
}

# 20 sleeps: at least 20 switches, all in the kernel
perf stat --bpf-counters --bpf-attr-map "${attr_map}" -x, -o "${out}" \
	-e cs:u,cs:k,cs -- perf test -w sleeper 10 20
expect_count "context-switches:u of 20 sleeps" 0 "$(stat_count "${out}" cs:u)"
expect_min_count "context-switches:k of 20 sleeps" 20 "$(stat_count "${out}" cs:k)"
expect_count "context-switches:k against context-switches" \
	"$(stat_count "${out}" cs)" "$(stat_count "${out}" cs:k)"
perf stat -x, -o "${out}" -e cs:u -- perf test -w sleeper 10 20
expect_count "context-switches:u of 20 sleeps, perf stat" 0 "$(stat_count "${out}" cs:u)"

# perf stat counts a workload from its exec (enable_on_exec): the faults
# of perf's child before it, copy-on-write of perf's memory, are not the
# workload's.  With stat.bpf-counter-events, one session counts page-faults
# with a perf_event and its alias faults with BPF, over the same run.
printf '[stat]\n\tbpf-counter-events = faults\n' > "${tmpdir}/config"
for run in 1 2 3; do
	PERF_CONFIG="${tmpdir}/config" perf stat --bpf-attr-map "${attr_map}" -x, \
		-o "${out}" -e page-faults,faults -- /bin/true
	plain=$(stat_count "${out}" page-faults)
	if expect_min_count "run ${run}: page-faults of /bin/true" 10 "${plain}"; then
		expect_count "run ${run}: faults of /bin/true with --bpf-counters" \
			"${plain}" "$(stat_count "${out}" faults)"
	fi
done

# This kernel runs no sched_switch tracepoint for the switches away from
# the worker threads of the VM's agent (PID 1, process_api): the leader
# sees them come in and never go.  What was counted across such a switch
# cannot be split and goes to the next task; the switches are counted and
# reported in one line, not lost silently.
if [ "$(cat /proc/1/comm)" = process_api ]; then
	perf stat --bpf-counters --bpf-attr-map "${attr_map}" -x, -o "${out}" \
		-e cs -p 1 -- sleep 2 2> "${out}.err"
	unseen=$(sed -n 's/^cs: \([0-9]*\) context switches away from counted tasks not seen by bperf: .*/\1/p' "${out}.err")
	expect_min_count "unseen switches of PID 1, reported" 1 "${unseen}"
else
	skip_check "unseen switches" "PID 1 is not the agent whose switches away this kernel does not trace"
fi

check_refused "--bpf-counters cannot count -a --per-thread" \
	-e cs,task-clock --per-thread -a -- sleep 0.1

# perf looks up -G cgroups under the perf_event hierarchy, else cgroup2
cgrp_mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/mounts)
[ -z "${cgrp_mnt}" ] && cgrp_mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "${cgrp_mnt}" ]; then
	skip_check "-G" "no perf_event or cgroup2 hierarchy is mounted"
else
	cgrp="perf_test_bpf_exact_$$"
	cgrp_dir="${cgrp_mnt}/${cgrp}"
	mkdir "${cgrp_dir}"
	check_refused "--bpf-counters cannot count a cgroup of -G: use --for-each-cgroup" \
		-a -e cs -G "${cgrp}" -- sleep 0.1
	# :b without --bpf-counters: the cgroup counter of --for-each-cgroup
	# is not used, and perf must not point at --for-each-cgroup.  (Where
	# the copies of the event made for each cgroup lose :b, 6.12, they
	# are plain perf events and count the cgroup.)
	want="cs:b: events counted with BPF count cgroups of --for-each-cgroup only with --bpf-counters"
	perf stat --bpf-attr-map "${attr_map}" -x, -a --for-each-cgroup "${cgrp}" \
		-e cs:b -- sleep 0.1 > "${out}" 2>&1
	rc=$?
	first=$(grep -v -e '^ *$' "${out}" | head -1)
	if [ ${rc} != 0 ] && [ "${first}" = "${want}" ]; then
		echo "ok: :b with --for-each-cgroup: refused"
	elif [ ${rc} = 0 ] && echo "${first}" | grep -q "^[^,]*,,cs:b,${cgrp},"; then
		echo "ok: :b with --for-each-cgroup: counted as a perf event"
	else
		echo "FAIL: :b with --for-each-cgroup: exit ${rc}, first line '${first}'"
		err=1
	fi
fi
check_exit
