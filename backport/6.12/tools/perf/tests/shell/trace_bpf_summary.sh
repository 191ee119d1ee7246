#!/bin/bash
# perf trace summary with BPF (--bpf-summary)
# SPDX-License-Identifier: GPL-2.0
# The workloads make a known number of calls: getppid_loop N N2 makes N
# getppid() in its main thread and N2 in thread "getppid-2"; syscall_fail N
# makes N flock() calls failing with EBADF; sleeper MSEC N sleeps N times.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_bpf_summary
out="${tmpdir}/out"

shelldir=$(dirname "$0")
# shellcheck source=lib/trace_summary.sh
. "${shelldir}"/lib/trace_summary.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-summary; then
	exit 2
fi

echo "Thread mode"
perf trace -s --bpf-summary -o "${out}" -- perf test -w getppid_loop 300 200
expect "${out}" '^ perf \(' getppid "300 0" "thread mode"
expect "${out}" '^ getppid-2 \(' getppid "200 0" "thread mode"
check_order "${out}" "thread mode"
check_single_calls "${out}" "thread mode"

echo "Total mode"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 300 200
expect "${out}" '^ total, [0-9]+ events$' getppid "500 0" "total mode"
check_order "${out}" "total mode"

echo "Errors counted, and the user-space summary agrees"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- perf test -w syscall_fail 70
expect "${out}" '^ total' flock "70 70" "bpf errors"
# a run that writes nothing must not pass on the previous run's output
rm -f "${out}"
perf trace -s --no-bpf-summary --summary-mode=total -o "${out}" -- perf test -w syscall_fail 70
expect "${out}" '^ total' flock "70 70" "user-space errors"

echo "Errnos counted in BPF, as in user space"
for mode in thread total; do
	perf trace -s --bpf-summary --errno-summary --summary-mode=${mode} -o "${out}" -- \
		perf test -w syscall_fail 70
	bpf_ebadf=$(awk '$1 == "flock" && $2 == 70 && $3 == 70 { getline; print }' "${out}")
	if [ "$(echo ${bpf_ebadf})" != "EBADF: 70" ]; then
		echo "--bpf-summary --errno-summary (${mode}): expected 'EBADF: 70' under flock"
		cat "${out}"
		err=1
	fi
	rm -f "${out}"
	perf trace -s --no-bpf-summary --errno-summary --summary-mode=${mode} -o "${out}" -- \
		perf test -w syscall_fail 70
	user_ebadf=$(awk '$1 == "flock" && $2 == 70 && $3 == 70 { getline; print }' "${out}")
	if [ "${bpf_ebadf}" != "${user_ebadf}" ]; then
		echo "--errno-summary (${mode}): BPF '${bpf_ebadf}', user space '${user_ebadf}'"
		err=1
	fi
done
# without -s: --errno-summary implies it
perf trace --errno-summary --bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 7
if ! grep -Eq "^[[:space:]]+EBADF: 7$" "${out}"; then
	echo "--errno-summary --bpf-summary without -s: no 'EBADF: 7'"
	cat "${out}"
	err=1
fi

echo "Min, avg and max merged across CPUs"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- perf test -w sleeper 20 4 30 1
if ! awk '$1 == "clock_nanosleep" && $2 == 5 && $5 >= 20 && $5 < 30 && $7 >= 30 &&
	  $6 > $5 && $6 < $7 { ok = 1 } END { exit !ok }' "${out}"; then
	echo "min/avg/max of 4 sleeps of 20ms and one of 30ms are wrong"
	cat "${out}"
	err=1
fi
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- perf test -w sleeper 25 1
if ! awk '$1 == "clock_nanosleep" && $2 == 1 && $5 >= 25 && $5 == $6 && $6 == $7 &&
	  $8 == "0.00%" { ok = 1 } END { exit !ok }' "${out}"; then
	echo "one sleep of 25ms does not give min = avg = max >= 25"
	cat "${out}"
	err=1
fi

echo "Cgroup mode"
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "${cgmnt}" ] && mkdir "${cgmnt}/perf-trace-test-$$" 2>/dev/null; then
	cg="/perf-trace-test-$$"
	perf trace -s --bpf-summary --summary-mode=cgroup -o "${out}" -- \
		sh -c "perf test -w getppid_loop 100; echo \$\$ > ${cgmnt}${cg}/cgroup.procs;
		       exec perf test -w getppid_loop 400"
	expect "${out}" "^ cgroup ${cg}, " getppid "400 0" "cgroup mode"
	check_order "${out}" "cgroup mode"
	rmdir "${cgmnt}${cg}"
else
	echo "cgroup mode: cannot create a cgroup2 cgroup"
	err=1
fi

echo "With events (-S)"
perf trace -S --bpf-summary --summary-mode=total -o "${out}" -- perf test -w getppid_loop 10
if [ "$(grep -c 'getppid()' "${out}")" != 10 ]; then
	echo "-S --bpf-summary: expected 10 getppid events"
	cat "${out}"
	err=1
fi
expect "${out}" '^ total' getppid "10 0" "-S"

echo "Only the syscalls of -e"
perf trace -s --bpf-summary -e getppid,flock --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 30
expect "${out}" '^ total' getppid "30 0" "-e getppid,flock"
if [ "$(grep -c '^   [a-z]' "${out}")" != 2 ]; then
	echo "-e getppid,flock: other syscalls than getppid were printed"
	cat "${out}"
	err=1
fi
perf trace -s --bpf-summary -e '!getppid' --summary-mode=total -o "${out}" -- \
	perf test -w getppid_loop 30
expect "${out}" '^ total' getppid "" "-e !getppid"
if [ "$(grep -c '^   [a-z]' "${out}")" -lt 3 ]; then
	echo "-e !getppid: the other syscalls were not printed"
	cat "${out}"
	err=1
fi

echo "--no-inherit: not the children of the workload"
perf trace -s --bpf-summary --no-inherit --summary-mode=total -o "${out}" -- \
	sh -c "perf test -w syscall_fail 30; true"
expect "${out}" '^ total' flock "" "--no-inherit"
expect "${out}" '^ total' vfork "1 0" "--no-inherit, the shell"
perf trace -s --bpf-summary --summary-mode=total -o "${out}" -- \
	sh -c "perf test -w syscall_fail 30; true"
expect "${out}" '^ total' flock "30 30" "inherit"

echo "-D: only the calls started after the delay"
# perf test starts its first sleep in about 0.1 s (well under 1 s on a
# loaded machine): it is under way when counting starts at 1 s, and the
# second, 3 s later, is counted
perf trace -s --bpf-summary -D 1000 --summary-mode=total -o "${out}" -- \
	perf test -w sleeper 3000 2
expect "${out}" '^ total' clock_nanosleep "1 0" "-D 1000"

echo "Nothing lost"
perf trace -s --bpf-summary -o "${out}" -- perf test -w getppid_loop 200000
expect "${out}" '^ perf \(' getppid "200000 0" "many calls"
if grep -q LOST "${out}"; then
	echo "--bpf-summary lost events"
	cat "${out}"
	err=1
fi

echo "Bad usage"
for args in "--bpf-summary" "-s --bpf-summary -i /dev/null" "-s --bpf-summary -u root" \
	    "-s --bpf-summary -F all" "-s --bpf-summary --sched"; do
	if perf trace ${args} -o /dev/null true 2> "${out}"; then
		echo "'perf trace ${args}' did not fail"
		err=1
	elif ! grep -q -- "--bpf-summary" "${out}"; then
		echo "'perf trace ${args}' did not say why it failed"
		cat "${out}"
		err=1
	fi
done
exit ${err}
