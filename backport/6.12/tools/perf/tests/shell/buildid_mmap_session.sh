#!/bin/bash
# perf beside a perf record --buildid-mmap session
# SPDX-License-Identifier: GPL-2.0
# While a session records with --buildid-mmap, the kernel (seen on 6.18)
# marks the MMAP2 events of every other session with
# PERF_RECORD_MISC_MMAP_BUILD_ID, over their maj/min/ino fields, so the
# build-id size perf reads is the low byte of maj: up to 255 bytes copied
# into a 20-byte build id.  perf must record, trace and report such events
# without overflowing it: exit 0, the oversized build ids truncated.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# perf record -a needs root
if [ "$(id -u)" != 0 ]; then
	echo "Skip: needs root"
	exit 2
fi

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup buildid_mmap_session
data="${tmpdir}/perf.data"

perf record --buildid-mmap -a -e dummy -o "${tmpdir}/buildid.data" \
	-- sleep 60 > /dev/null 2>&1 &
check_pids=$!

# The other session marks our mmaps once its events are enabled: until
# then a recording of /bin/true has no oversized build id.
seen=0
for _ in $(seq 20); do
	perf record -q -e dummy -o "${data}" -- /bin/true > /dev/null 2>&1
	rc=$?
	if [ ${rc} != 0 ]; then
		break
	fi
	if perf report -D -v -i "${data}" 2>&1 | grep -q 'Truncating build_id size'; then
		seen=1
		break
	fi
	sleep 0.5
done
expect_count "perf record beside a --buildid-mmap session: exit status" 0 "${rc}"
if [ ${rc} = 0 ] && [ ${seen} = 0 ]; then
	skip_check "oversized build ids" "this kernel does not mark the mmap events of other sessions"
	check_exit
fi

perf trace -o "${tmpdir}/trace.out" -- /bin/true > /dev/null 2>&1
expect_count "perf trace beside a --buildid-mmap session: exit status" 0 $?
perf report -i "${data}" --stdio > /dev/null 2>&1
expect_count "perf report of its recording: exit status" 0 $?
check_exit
