# SPDX-License-Identifier: GPL-2.0
# A loop of getppid() calls, the cheapest syscall: untraced, and under the
# user-space syscall summary of perf trace -s.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="getppid loop: ns per call, untraced vs perf trace -s"
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
calls=${BENCH_CALLS:-1000000}

bench_case untraced "bench_ns_per_getppid $calls"
bench_case "perf trace -s" "bench_ns_per_getppid $calls perf trace -s -o /dev/null --"
