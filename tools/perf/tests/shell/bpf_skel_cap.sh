#!/bin/bash
# perf BPF options name a missing capability in one line
# SPDX-License-Identifier: GPL-2.0
# Run by a user without CAP_SYS_ADMIN, CAP_BPF or CAP_PERFMON, perf trace
# --bpf-summary and perf record --off-cpu fail with one line that names
# what is missing, instead of libbpf's messages about a failed load.  Root
# of a user namespace other than the initial one gets its own line.

# running perf as another user needs root
if [ "$(id -u)" != 0 ]; then
	echo "Skip: needs root"
	exit 2
fi
if ! perf version --build-options | grep -q 'bpf_skeletons: \[ on'; then
	# then the options say so, whoever runs them
	want="--bpf-summary: perf is built without BPF skeletons (make BUILD_BPF_SKEL=1)"
	got=$(perf trace -s --bpf-summary -- true 2>&1 < /dev/null)
	if [ $? = 0 ] || [ "${got}" != "${want}" ]; then
		echo "perf trace -s --bpf-summary without skeletons: printed '${got}', expected '${want}'"
		exit 1
	fi
	exit 0
fi

tmpdir=$(mktemp -d /tmp/__perf_test.bpf_skel_cap.XXXXX)
trap 'rm -rf "${tmpdir}"' EXIT
# a copy that the unprivileged user can run, wherever perf is installed
cp "$(command -v perf)" "${tmpdir}/perf"
chmod 755 "${tmpdir}" "${tmpdir}/perf"

err=0
# check OPTION perf ARGS...: fails, and its only line names OPTION
check() {
	local opt=$1 want out rc

	shift
	want="${opt}: loading BPF programs needs root, or CAP_BPF and CAP_PERFMON"
	out=$(cd "${tmpdir}" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"${tmpdir}/perf" "$@" < /dev/null 2>&1)
	rc=$?
	if [ ${rc} = 0 ] || [ "${out}" != "${want}" ]; then
		echo "perf $* as an unprivileged user: exit ${rc}, printed:"
		echo "${out}" | head -5
		err=1
	fi
}

check --bpf-summary trace -s --bpf-summary -a -- true
check --off-cpu record --off-cpu -o "${tmpdir}/perf.data" -- true

# root of a user namespace (a rootless container) holds every capability
# there, and loads BPF only with a BPF token delegated to the namespace,
# which a BPF file system mounted outside it does not give
if unshare --user --map-root-user true 2> /dev/null; then
	want="--bpf-summary: loading BPF programs in a user namespace needs a BPF token"
	want="${want} delegated to it (Linux 6.9+), or capabilities in the initial user namespace"
	out=$(cd "${tmpdir}" && unshare --user --map-root-user \
		"${tmpdir}/perf" trace -s --bpf-summary -a -- true < /dev/null 2>&1)
	rc=$?
	if [ ${rc} = 0 ] || [ "${out}" != "${want}" ]; then
		echo "perf trace --bpf-summary in a user namespace: exit ${rc}, printed:"
		echo "${out}" | head -5
		err=1
	fi
else
	echo "user namespace case not run: unshare --user --map-root-user fails here"
fi
exit ${err}
