#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The headline demo: syscall statistics of a workload that makes a known
# number of calls (200000 getppid, 1000 failing flock), first with the
# user-space summary that copies every event to perf, then aggregated in
# the kernel with --bpf-summary, the default of the series.
#
#   demo.sh          the headline demo
#   demo.sh pprof [OUTPUT.svg]   the pprof example of README and
#       Documentation/record-aggr.md: cpu_split profiled with its stacks
#       counted in the kernel (perf record --bpf-aggr), converted with perf
#       data convert --to-pprof and read by go tool pprof, whose -svg call
#       graph goes to Documentation/pprof-bpf-aggr.svg (or OUTPUT.svg)
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

pprof()
{
	local svg tmp

	svg=$(realpath -m "${1:-$ROOT/Documentation/pprof-bpf-aggr.svg}")
	deps test bench
	tmp=$(mktemp -d /tmp/perf-pprof-example.XXXXX)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	cd "$tmp"
	# -o: with its stdout a pipe (demo.sh pprof | tee), perf record writes there
	run perf record -o perf.data --bpf-aggr -g -e cpu-clock -F 999 -- \
		perf test -w cpu_split 3 2 2>&1
	run perf report --stdio --no-children --sort sym -g none 2>/dev/null |
		grep -E '^# (Samples|Event count)|split_' || true
	run perf data convert --to-pprof cpu_split.pb.gz 2>&1
	run go tool pprof -top -nodecount=4 cpu_split.pb.gz 2>&1
	# -symbolize=none: perf has resolved every symbol already
	go tool pprof -symbolize=none -svg -output "$svg" cpu_split.pb.gz 2>&1
	echo "wrote $svg"
}

if [ "${1:-}" = pprof ]; then
	shift
	pprof "$@"
	exit
fi

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
