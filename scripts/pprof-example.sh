#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The pprof example of README and Documentation/record-aggr.md: cpu_split
# (3/4 of its CPU time in split_heavy(), 1/4 in split_light()) profiled with
# its stacks counted in the kernel (perf record --bpf-aggr), converted with
# perf data convert --to-pprof and read by go tool pprof, the reference
# consumer of the format: its -top, and its -svg call graph written to
# Documentation/pprof-bpf-aggr.svg (or the file given).
# Usage: pprof-example.sh [OUTPUT.svg]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

svg=$(realpath -m "${1:-$ROOT/Documentation/pprof-bpf-aggr.svg}")
[ "$(id -u)" = 0 ] || die "perf record --bpf-aggr loads a BPF program and needs root"
"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
"$ROOT/scripts/deps.sh" test bench || die "go tool pprof and graphviz are needed"
"$ROOT/scripts/mount-fs.sh"
export PATH=$OBJ:$PATH

tmp=$(mktemp -d /tmp/perf-pprof-example.XXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

run()
{
	echo "\$ $*"
	"$@"
}

run perf record --bpf-aggr -g -e cpu-clock -F 999 -- perf test -w cpu_split 3 2 2>&1
run perf report --stdio --no-children --sort sym -g none 2>/dev/null |
	grep -E '^# (Samples|Event count)|split_' || true
run perf data convert --to-pprof cpu_split.pb.gz 2>&1
run go tool pprof -top -nodecount=4 cpu_split.pb.gz 2>&1
# -symbolize=none: perf has resolved every symbol already
go tool pprof -symbolize=none -svg -output "$svg" cpu_split.pb.gz 2>&1
echo "wrote $svg"
