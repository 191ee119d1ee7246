#!/bin/bash
# perf report resolves the ip of direct off-cpu samples in user space
# SPDX-License-Identifier: GPL-2.0
# An off-cpu interval at or above --off-cpu-thresh is written by the BPF
# program as a sample whose ip is the first user address of the task's
# stack.  Three sleeps of 50 ms above a threshold of 20 ms: perf report must
# put their time in a user symbol of a known DSO, not in an unknown kernel
# address.

if [ "$(id -u)" != 0 ]; then
	echo "Skip: --off-cpu needs root"
	exit 2
fi
if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
	echo "Skip: perf was built without BPF skeletons (BUILD_BPF_SKEL=1)"
	exit 2
fi

tmpdir=$(mktemp -d /tmp/__perf_test.record_offcpu_report.XXXXX)
trap 'rm -rf "${tmpdir}"' EXIT
perfdata="${tmpdir}/perf.data"

if ! perf record -q -g -e dummy --off-cpu --off-cpu-thresh 20 -o "${perfdata}" \
	-- sh -c 'sleep 0.05; sleep 0.05; sleep 0.05' > "${tmpdir}/record.out" 2>&1; then
	echo "FAIL: perf record: $(head -1 "${tmpdir}/record.out")"
	exit 1
fi

# "SAMPLES USER UNKNOWN": the samples of the sleep processes of at least
# 50 ms (not those of the shell waiting for them), how many of them perf
# report puts in a user symbol ("[.]") and how many in no DSO
read -r samples user unknown < <(
	perf report -i "${perfdata}" --comms sleep --stdio --no-children -g none \
		-F period,sample,dso,sym 2>/dev/null |
	awk '/^#/ || NF < 4 || $1 < 50000000 { next }
	     { n += $2; if ($4 == "[.]") u += $2; if ($3 == "[unknown]") k += $2 }
	     END { print n + 0, u + 0, k + 0 }')

if [ "${samples} ${user} ${unknown}" != "3 3 0" ]; then
	echo "FAIL: ${samples} samples of the 50 ms sleeps, ${user} of them in a user symbol," \
		"${unknown} in no DSO; expected 3, 3 and 0"
	perf report -i "${perfdata}" --stdio --no-children -g none -F comm,period,sample,dso,sym
	exit 1
fi
echo "ok: the 3 samples of the 50 ms sleeps are in a user symbol of a known DSO"
exit 0
