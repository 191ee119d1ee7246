#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The headline demo: syscall statistics of a workload that makes a known
# number of calls (200000 getppid, 1000 failing flock), first with the
# user-space summary that copies every event to perf, then aggregated in
# the kernel with --bpf-summary, the default of the series.

set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "the demo loads BPF programs and needs root"
"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
mount_fs
export PATH=$OBJ:$PATH

run()
{
	local t0 t1

	echo
	echo "\$ $*"
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	echo "(took $(((t1 - t0) / 1000000)) ms)"
}

workload="perf test -w getppid_loop 200000"
fails="perf test -w syscall_fail 1000"
echo "Workload: sh -c \"$workload; $fails\": 200000 getppid calls, one more by sh for \$PPID,"
echo "and 1000 flock calls failing with EBADF."
echo
echo "User space: every syscall enter and exit is copied to perf through the ring buffer."
run perf trace -s --no-bpf-summary --errno-summary --summary-mode=total -- sh -c "$workload; $fails"
echo
echo "In the kernel, the default: BPF programs on the raw syscall tracepoints keep the statistics."
run perf trace -s --errno-summary --summary-mode=total -- sh -c "$workload; $fails"
