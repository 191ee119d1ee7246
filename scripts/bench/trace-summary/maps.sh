#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The memory of the BPF maps a perf trace -s session holds, as the kernel
# accounts it (memlock in /proc/PID/fdinfo of each BPF map perf holds
# open), 1.5 s into a session of 'sleep 3': one line per case with the
# total and the three largest maps.  bpftool names the maps.
#
# Usage: scripts/bench/trace-summary/maps.sh [PERF [LABEL]]
#   PERF: the perf binary (default: build/perf/perf, see lib.sh)
#   LABEL: what to call it in the table (default: its version)
set -uo pipefail
. "$(dirname "$0")/../../lib.sh"

perf=${1:-$BUILD/perf/perf}
label=${2:-$("$perf" version 2>/dev/null)}
command -v bpftool > /dev/null || die "bpftool is needed (apt-get install bpftool)"

# maps PID: "BYTES NAME" for each BPF map process PID holds open
maps()
{
	local fd id bytes

	for fd in "/proc/$1/fd/"*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:bpf-map" ] || continue
		id=$(awk '$1 == "map_id:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		bytes=$(awk '$1 == "memlock:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		echo "$bytes $(bpftool map show id "$id" 2>/dev/null | awk 'NR == 1 {
			for (i = 1; i < NF; i++) if ($i == "name") { print $(i + 1); exit } }')"
	done
}

# measure ARGS...: the row of perf trace ARGS -- sleep 3
measure()
{
	local pid out

	"$perf" trace "$@" -o /dev/null -- sleep 3 &
	pid=$!
	sleep 1.5
	out=$(maps "$pid" | sort -nr)
	wait "$pid"
	printf '| %s | `perf trace %s` | %.2f | %s |\n' "$label" "$*" \
		"$(echo "$out" | awk '{ s += $1 } END { print s / 1e6 }')" \
		"$(echo "$out" | head -3 | awk '{ printf "%s%s %.2f", (NR > 1 ? ", " : ""), $2, $1 / 1e6 }')"
}

echo "| perf | session | MB of BPF maps | largest maps (MB) |"
echo "| --- | --- | --- | --- |"
# perf trace -h exits 129
help=$("$perf" trace -h 2>&1)
if echo "$help" | grep -q -- '--bpf-summary-entries'; then
	measure -s
	measure -s --errno-summary
	measure -s --summary-mode=total
	measure -as
	measure -as --errno-summary
	measure -as --summary-mode=total
else
	measure -as --bpf-summary
	measure -as --bpf-summary --summary-mode=total
fi
