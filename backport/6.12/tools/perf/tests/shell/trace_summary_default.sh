#!/bin/bash
# perf trace -s collects in BPF by default, else in user space
# SPDX-License-Identifier: GPL-2.0
# The workloads make a known number of calls: getppid_loop N N2 makes N
# getppid() in its main thread and N2 in thread "getppid-2"; syscall_fail N
# makes N flock() calls failing with EBADF.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup trace_summary_default
out="${tmpdir}/out"
errout="${tmpdir}/err"
config="${tmpdir}/config"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
notice="summary collected in user space"

# what check_cleanup does not undo
check_more_cleanup() {
	echo "${paranoid}" > /proc/sys/kernel/perf_event_paranoid
}

shelldir=$(dirname "$0")
# shellcheck source=lib/trace_summary.sh
. "${shelldir}"/lib/trace_summary.sh

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing "the BPF summary"; then
	exit 2
fi

# no_notice WHAT: the default BPF summary did not fall back
no_notice() {
	if grep -q "${notice}" "${errout}"; then
		echo "$1: fell back to user space"
		cat "${errout}"
		err=1
	fi
}

# header FILE PATH WHAT: with -v the header names where it was collected
header() {
	if ! grep -q "^ Summary of events (collected in $2):$" "$1"; then
		echo "$3: the header does not say 'collected in $2'"
		cat "$1"
		err=1
	fi
}

echo "perf trace -s: exact, in BPF"
perf trace -s -o "${out}" -- perf test -w getppid_loop 300 200 2> "${errout}"
expect "${out}" '^ perf \(' getppid "300 0" "-s"
expect "${out}" '^ getppid-2 \(' getppid "200 0" "-s"
check_order "${out}" "-s"
no_notice "-s"
if grep -q "collected in" "${out}"; then
	echo "-s: the header names the path without -v"
	cat "${out}"
	err=1
fi
perf trace -v -s --summary-mode=total -o "${out}" -- perf test -w getppid_loop 300 2> "${errout}"
header "${out}" "the kernel by BPF" "-v -s"
expect "${out}" '^ total' getppid "300 0" "-v -s"

echo "Errors and errnos, as in user space"
perf trace -s --errno-summary --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 70 2> "${errout}"
expect "${out}" '^ total' flock "70 70" "--errno-summary"
bpf_ebadf=$(awk '$1 == "flock" { getline; print $1, $2 }' "${out}")
no_notice "--errno-summary"
# a run that writes nothing must not pass on the previous run's output
rm -f "${out}"
perf trace -s --no-bpf-summary --errno-summary --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 70
expect "${out}" '^ total' flock "70 70" "--no-bpf-summary --errno-summary"
user_ebadf=$(awk '$1 == "flock" { getline; print $1, $2 }' "${out}")
if [ "${bpf_ebadf}" != "EBADF: 70" ] || [ "${user_ebadf}" != "${bpf_ebadf}" ]; then
	echo "--errno-summary: BPF '${bpf_ebadf}', user space '${user_ebadf}', expected 'EBADF: 70'"
	err=1
fi

echo "--no-bpf-summary and trace.bpf_summary=no: user space, no notice"
rm -f "${out}"
perf trace -v -s --no-bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 30 2> "${errout}"
header "${out}" "user space" "--no-bpf-summary"
expect "${out}" '^ total' flock "30 30" "--no-bpf-summary"
no_notice "--no-bpf-summary"
printf '[trace]\n\tbpf_summary = no\n' > "${config}"
rm -f "${out}"
PERF_CONFIG="${config}" perf trace -v -s --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 30 2> "${errout}"
header "${out}" "user space" "trace.bpf_summary=no"
no_notice "trace.bpf_summary=no"
rm -f "${out}"
PERF_CONFIG="${config}" perf trace -v -s --bpf-summary --summary-mode=total -o "${out}" -- \
	perf test -w syscall_fail 30 2> "${errout}"
header "${out}" "the kernel by BPF" "trace.bpf_summary=no, --bpf-summary"

echo "An option only user space offers: user space, one notice"
perf trace -s --sched --summary-mode=total -o "${out}" -- perf test -w syscall_fail 30 \
	2> "${errout}"
expect "${out}" '^ total' flock "30 30" "--sched"
if [ "$(grep -c "${notice}: --bpf-summary does not sum the runtime of --sched" \
	"${errout}")" != 1 ]; then
	echo "--sched: not one notice saying why"
	cat "${errout}"
	err=1
fi

echo "Unprivileged: user space, one notice"
# user space needs tracefs (mode 0700: dac_read_search) and raw tracepoint
# samples (perf_event_paranoid -1); BPF needs root or CAP_BPF+CAP_PERFMON
perf=$(command -v perf)
echo -1 > /proc/sys/kernel/perf_event_paranoid
(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=+dac_read_search --ambient-caps=+dac_read_search \
	"${perf}" trace -s --summary-mode=total -- "${perf}" test -w syscall_fail 20) \
	> "${out}" 2>&1
echo "${paranoid}" > /proc/sys/kernel/perf_event_paranoid
expect "${out}" '^ total' flock "20 20" "as nobody"
if [ "$(grep -c "${notice}" "${out}")" != 1 ] ||
   ! grep -q "${notice}: loading BPF programs needs root" "${out}"; then
	echo "as nobody: not one notice saying that BPF needs root"
	cat "${out}"
	err=1
fi

echo "Every mode prints the table"
table='^ *syscall +calls +errors +total +min +avg +max +stddev'
for args in "-s" "-S" "-s --summary-mode=thread" "-s --summary-mode=total" \
	    "-as --no-bpf-summary" "-as --bpf-summary" \
	    "-as --bpf-summary --summary-mode=thread" \
	    "-as --bpf-summary --summary-mode=total" \
	    "-as --bpf-summary --summary-mode=cgroup"; do
	# shellcheck disable=SC2086
	if ! perf trace ${args} -o "${out}" -- perf test -w getppid_loop 10 ||
	   ! grep -Eq "${table}" "${out}"; then
		echo "perf trace ${args}: no summary table"
		cat "${out}"
		err=1
	fi
done
exit ${err}
