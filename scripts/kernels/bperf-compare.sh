#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf stat --bpf-counters of the series against the base's fexit follower,
# in the qemu guest of 'make kernels', where fexit loads (KERNELS=7.3 by
# default): builds the base's perf if it is missing, boots each kernel with
# bperf-bench.sh as /init, and writes Documentation/bench/stat-bpf-counters.md
# from the guests' "bench:" lines.  Not part of CI: about 40 minutes a
# kernel under TCG.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

out=$ROOT/Documentation/bench/stat-bpf-counters.md
base=$ROOT/build/unpatched
[ -x "$base/perf/perf" ] || SERIES=none PERF_SERIES_BUILD=$base "$ROOT/scripts/build.sh"
t0=$(date +%s)
rc=0
KERNELS=${KERNELS:-7.3} KERNELS_INIT=bperf-bench KERNELS_MEM=${KERNELS_MEM:-4096} \
	KERNELS_TIMEOUT=${KERNELS_TIMEOUT:-5400} "$ROOT/scripts/kernels/boot.sh" || rc=$?

logs=()
for f in "$BUILD"/kernels/*-bperf-bench.log; do
	[ "$(stat -c %Y "$f")" -ge "$t0" ] && logs+=("$f")
done
[ ${#logs[@]} -gt 0 ] || die "no guest log written"

{
	echo "# perf stat --bpf-counters: task program vs the base's fexit follower"
	echo
	echo "Measured in qemu (TCG, 2 vCPUs, no PMU: software events only) on"
	echo "Debian's cloud kernels, with:"
	echo
	echo "    KERNELS=${KERNELS:-7.3} scripts/kernels/bperf-compare.sh"
	echo
	echo "\`perf-base\` is perf built from the pinned base without the series (fexit"
	echo "follower per session), \`perf\` the series (one task program per event)."
	echo "TCG makes every switch and program run slow: compare the designs, not the"
	echo "absolute figures.  Hardware counters could not be tested."
	echo
	echo "## Sessions counting one target"
	echo
	echo "N sessions count context-switches and task-clock of one \`-p\` target"
	echo "(\`perf bench sched pipe -l 20000\`: about 20000 switches of the target,"
	echo "40000 of the machine), beside one"
	echo "plain perf stat.  BPF ns per switch: run time of all bperf programs over"
	echo "all context switches of the machine while the target ran"
	echo "(kernel.bpf_stats_enabled).  Programs, maps and memlock: all the guest"
	echo "held (nothing else loads BPF there).  Start: seconds until the last"
	echo "session held its BPF links."
	echo
	echo "| kernel | design | sessions | BPF ns/switch | switches | programs | maps | map memory (KB) | start (s) | cs session 1 / plain | task-clock ms session 1 / plain |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
	for f in "${logs[@]}"; do
		k=$(basename "$f" -bperf-bench.log)
		tr -d '\r' < "$f" | awk -v k="$k" '$1 == "bench:" && $2 == "sessions" {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %s / %s | %s / %s |\n",
				k, v["design"], v["n"], v["ns_per_switch"], v["switches"], v["progs"],
				v["maps"], v["memlock"] / 1024, v["start_s"], v["cs"], v["plain_cs"],
				v["tc"], v["plain_tc"] }'
	done
	echo
	echo "## task-clock of a task that switches often"
	echo
	echo "\`perf test -w sleeper 1 2000\` (2000 sleeps of 1 ms), task-clock and"
	echo "context-switches counted plainly and with BPF (the b modifier) in one"
	echo "session; excess = (BPF - plain task-clock) / BPF context switches."
	echo
	echo "| kernel | design | run | task-clock ms plain | BPF | cs plain | BPF | excess us/switch |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	for f in "${logs[@]}"; do
		k=$(basename "$f" -bperf-bench.log)
		tr -d '\r' < "$f" | awk -v k="$k" '$1 == "bench:" && $2 == "gap" {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			x = v["bcs"] > 0 ? (v["btc"] - v["tc"]) * 1000 / v["bcs"] : 0
			printf "| %s | %s | %s | %s | %s | %s | %s | %.2f |\n", k, v["design"], v["run"],
				v["tc"], v["btc"], v["cs"], v["bcs"], x }'
	done
	echo
	echo "## One leader for both"
	echo
	echo "Each holds a leader of context-switches at the default attr map, then"
	echo "the other counts \`-a\` and a workload of 4000 switches on it:"
	echo
	for f in "${logs[@]}"; do
		tr -d '\r' < "$f" | sed -n 's/^smoke: \(PASS\|FAIL\) \(interop [^:]*\): \(exit [0-9]*, [^:]*\):.*/- \2: \1, \3/p'
	done
} > "$out"
note "wrote $out"
exit $rc
