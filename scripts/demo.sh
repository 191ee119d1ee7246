#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The headline demo: syscall statistics of a workload that makes a known
# number of calls (200000 getppid, 1000 failing flock), first with the
# user-space summary that copies every event to perf, then, where the
# series provides it, aggregated in the kernel with --bpf-summary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/mount-fs.sh"
export PATH=$OBJ:$PATH
[ "$(id -u)" = 0 ] || die "the demo traces syscalls and needs root"

workload="perf test -w getppid_loop 200000"
fails="perf test -w syscall_fail 1000"

run()
{
	echo
	echo "\$ $*"
	local t0 t1
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	echo "(took $(((t1 - t0) / 1000000)) ms)"
}

echo "Workload: $workload (200000 getppid calls), then $fails (1000 flock calls failing with EBADF)"
run perf trace -s --summary-mode=total -- sh -c "$workload; $fails" 2>&1 ||
	run perf trace -s -- sh -c "$workload; $fails"
if perf trace -h 2>&1 | grep -q -- '--bpf-summary'; then
	run perf trace -s --bpf-summary --summary-mode=total -- sh -c "$workload; $fails"
fi
