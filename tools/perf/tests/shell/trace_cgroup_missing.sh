#!/bin/bash
# perf trace -G of a cgroup that cannot be opened fails
# SPDX-License-Identifier: GPL-2.0
# perf trace -G printed "no access to cgroup" for a cgroup it could not
# open and then traced the whole system; perf stat and perf record fail.

# perf trace needs root here
if [ "$(id -u)" != 0 ]; then
	echo "Skip: needs root"
	exit 2
fi

out=$(mktemp /tmp/__perf_test.trace_cgroup.XXXXX)
trap 'rm -f "${out}"' EXIT

cg=perf-test-no-such-cgroup-$$
err=0
perf trace -a -G "${cg}" -e getppid -- true < /dev/null > "${out}" 2>&1
rc=$?
if [ ${rc} = 0 ]; then
	echo "perf trace -G ${cg}: exit 0, expected a failure"
	err=1
fi
if ! grep -q "no access to cgroup .*${cg}" "${out}"; then
	echo "perf trace -G ${cg}: no 'no access to cgroup' line: $(head -3 "${out}")"
	err=1
fi
exit ${err}
