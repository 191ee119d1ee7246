#!/bin/bash
# perf names the process or thread of a target that does not exist
# SPDX-License-Identifier: GPL-2.0
# perf trace, perf stat and perf record fail with one line naming a -p or
# -t that is not there, instead of a message that names none of them or a
# session that counts nothing.

# perf trace and perf stat -p 1 need root
if [ "$(id -u)" != 0 ]; then
	echo "Skip: needs root"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/__perf_test.target_missing.XXXXX)
trap 'rm -rf "${tmpdir}"' EXIT
out="${tmpdir}/out"
err=0

# a pid no task has
nopid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e "/proc/${nopid}" ]; do
	nopid=$((nopid - 1))
done

# check EXPECTED-FIRST-LINE perf ARGS...: fails, and says it in one line
check() {
	local want=$1 rc first

	shift
	perf "$@" < /dev/null > "${out}" 2>&1
	rc=$?
	first=$(grep -v -e '^ *$' "${out}" | head -1)
	if [ ${rc} = 0 ] || [ "${first}" != "${want}" ]; then
		echo "perf $*: exit ${rc}, first line '${first}', expected '${want}'"
		err=1
	fi
}

check "no such process: ${nopid}" stat -e task-clock -p "${nopid}"
check "no such thread: ${nopid}" stat -e task-clock -t "${nopid}"
check "no such process: ${nopid}" stat -e task-clock -p "1,${nopid}"
check "no such thread: ${nopid}" record -e task-clock -o "${out}.data" -t "${nopid}"
check "no such process: ${nopid}" trace -s -p "${nopid}"

# and a target that exists still works
if ! perf stat -e task-clock -p 1,$$ -- true > "${out}" 2>&1; then
	echo "perf stat -p 1,$$ failed: $(head -3 "${out}")"
	err=1
fi

exit ${err}
