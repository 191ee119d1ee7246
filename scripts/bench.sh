#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a benchmark scenario, its baseline and its floors side by side in one
# run: make bench SCENARIO=name (scripts/bench/name.sh).
#
# A scenario file is sourced.  It sets BENCH_TITLE (and optionally
# BENCH_ROUNDS, BENCH_FLOORS: the names of its floor cases, one a line, and
# BENCH_SETUP_NOTE), may define bench_setup and bench_teardown, and calls
# "bench_case NAME 'command' [FLOOR...]" once per case, the first one being
# the baseline; FLOORs name the floors the case is compared with (default:
# all).  A case command prints "key=value" lines; the first key is the
# primary metric.  Cases run alternately within each round, in reverse
# order every other round, so that drift of the machine hits all of them
# alike.  The table shows the primary metric's median, min and max over the
# rounds, its ratio to the baseline, what each case adds to the baseline
# and that as a multiple of what each floor adds.
#
# Then, unless BENCH_STATS_ROUNDS=0 (default 1), every case runs again with
# kernel.bpf_stats_enabled=1 (not timed: the statistics cost two clock
# reads per program run), and a second table lists, per BPF program the
# case's processes hold, its runs and ns per run.  Results go to
# Documentation/bench/SCENARIO.md (BENCH_OUT=DIR: elsewhere) and a chart of
# the ratios to the baseline, on a log scale where they differ by orders of
# magnitude, to SCENARIO.png.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

scenario=${1:-}
file=$ROOT/scripts/bench/$scenario.sh
[ -n "$scenario" ] && [ "$scenario" != lib ] && [ -f "$file" ] ||
	die "no scenario '$scenario'; have: $(cd "$ROOT/scripts/bench" && ls ./*.sh |
		sed 's|^\./||; s|\.sh$||' | grep -vx lib | xargs)"

deps bench
mount_fs
export PATH=$OBJ:$PATH

BENCH_TITLE=$scenario
BENCH_FLOORS=""
case_names=() case_cmds=() case_floors=()
bench_case()
{
	case_names+=("$1")
	case_cmds+=("$2")
	shift 2
	case_floors+=("$(printf '%s|' "$@")")
}

# shellcheck source=/dev/null
. "$file"
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_STATS_ROUNDS=${BENCH_STATS_ROUNDS:-1}
n=${#case_names[@]}
[ "$n" -ge 2 ] || die "$scenario defines fewer than two cases"

results=$(mktemp)
stats=$(mktemp)
old_bpf_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup()
{
	echo "$old_bpf_stats" > /proc/sys/kernel/bpf_stats_enabled
	rm -f "$results" "$results.err" "$results.prog" "$stats"
	! declare -F bench_teardown >/dev/null || bench_teardown
}
trap cleanup EXIT
! declare -F bench_setup >/dev/null || bench_setup

start=$(date -u +%FT%TZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= BENCH_ROUNDS; r++)); do
	for ((j = 0; j < n; j++)); do
		i=$((r % 2 ? j : n - 1 - j))
		echo "round $r/$BENCH_ROUNDS: ${case_names[$i]}" >&2
		out=$(bash -c "${case_cmds[$i]}" 2>"$results.err") ||
			die "case '${case_names[$i]}' failed: $(tail -3 "$results.err")"
		echo "$out" | grep -E '^[A-Za-z_][A-Za-z0-9_]*=-?[0-9.]+$' |
			sed "s/^/$i $r /;s/=/ /" >> "$results"
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# The BPF statistics pass: not timed, the case's own figures are dropped.
if [ "$BENCH_STATS_ROUNDS" -gt 0 ]; then
	echo 1 > /proc/sys/kernel/bpf_stats_enabled
	for ((r = 1; r <= BENCH_STATS_ROUNDS; r++)); do
		for ((j = 0; j < n; j++)); do
			i=$((r % 2 ? j : n - 1 - j))
			echo "bpf stats $r/$BENCH_STATS_ROUNDS: ${case_names[$i]}" >&2
			bash -c "${case_cmds[$i]}" >/dev/null 2>"$results.err" &
			pid=$!
			"$ROOT/scripts/bench/bpf-stats.py" "$pid" "$results.prog" &
			wait "$pid" || die "case '${case_names[$i]}' failed: $(tail -3 "$results.err")"
			wait $! || die "bpf-stats.py failed"
			sed "s/^/$i $r /" "$results.prog" >> "$stats"
		done
	done
	echo "$old_bpf_stats" > /proc/sys/kernel/bpf_stats_enabled
fi

out_dir=${BENCH_OUT:-$ROOT/Documentation/bench}
mkdir -p "$out_dir"
NAMES=$(printf '%s\n' "${case_names[@]}") CMDS=$(printf '%s\n' "${case_cmds[@]}") \
CASE_FLOORS=$(printf '%s\n' "${case_floors[@]}") FLOORS=$BENCH_FLOORS TITLE=$BENCH_TITLE \
ROUNDS=$BENCH_ROUNDS STATS_ROUNDS=$BENCH_STATS_ROUNDS START=$start SCENARIO=$scenario \
KERNEL=$(uname -r) PERFV=$("$PERF" version) LOAD="$load_start -> $load_end" \
SETUP=${BENCH_SETUP_NOTE:-} \
/usr/bin/python3 - "$results" "$stats" "$out_dir/$scenario" <<'PYEOF'
import os, statistics, sys

res, stats, out = sys.argv[1:4]
env = os.environ
names = env["NAMES"].split("\n")
cmds = env["CMDS"].split("\n")
floors = [f for f in env["FLOORS"].split("\n") if f in names]
case_floors = [[f for f in c.split("|") if f] or floors for c in env["CASE_FLOORS"].split("\n")]
vals, keys = {}, []			# (case, key) -> [values]
for line in open(res):
    i, r, k, v = line.split()
    if k not in keys:
        keys.append(k)
    vals.setdefault((int(i), k), []).append(float(v))
if not keys:
    sys.exit("no case printed a figure")
primary = keys[0]
med = {ik: statistics.median(v) for ik, v in vals.items()}
base = med[(0, primary)]


def fmt(x):
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


def table(head, rows):
    w = [max(len(str(r[c])) for r in [head] + rows) for c in range(len(head))]
    return "\n".join("| " + " | ".join(str(r[c]).ljust(w[c]) for c in range(len(head))) + " |"
                     for r in [head, ["-" * x for x in w]] + rows)


rows, ratios = [], []
for i, n in enumerate(names):
    v = vals[(i, primary)]
    m = med[(i, primary)]
    added = m - base
    row = [n, fmt(m), fmt(min(v)), fmt(max(v)), "%.1f%%" % (100 * (max(v) - min(v)) / m if m else 0)]
    row += [fmt(med[(i, k)]) if (i, k) in med else "-" for k in keys[1:]]
    row += ["%.2fx" % (m / base), fmt(added)]
    for f in floors:
        fa = med[(names.index(f), primary)] - base
        # a floor lost in the noise (adding nothing) gives no multiple
        row.append("%.2f" % (added / fa) if i and fa > 0 and f in case_floors[i] else "-")
    rows.append(row)
    ratios.append((m / base, min(v) / base, max(v) / base))
main = table(["case", primary + " median", "min", "max", "spread", *keys[1:], "ratio", "added"]
             + ["x " + f for f in floors], rows)

prog = {}			# (case, program) -> [(runs, ns)]
if os.path.exists(stats):
    for line in open(stats):
        i, r, name, cnt, ns = line.split()
        prog.setdefault((int(i), name), []).append((int(cnt), int(ns)))
srows = []
for (i, name), v in sorted(prog.items(), key=lambda x: x[0][0]):
    per = [ns / cnt for cnt, ns in v]
    srows.append([names[i], name, fmt(statistics.median([c for c, _ in v])),
                  fmt(statistics.median(per)), fmt(min(per)), fmt(max(per))])

with open(out + ".md", "w") as f:
    f.write("# Benchmark: %s\n\n" % env["TITLE"])
    f.write("%s rounds, cases run alternately in one run (every other round in reverse order). "
            "`%s`: median, min and max over the rounds, spread = (max - min) / median; the "
            "other figures are medians. Ratio and added are against the first case (%s)%s.\n\n"
            % (env["ROUNDS"], primary, names[0], "; \"x FLOOR\" is what the case adds divided "
               "by what the floor adds" if floors else ""))
    f.write(main + "\n\n")
    f.write("Produced by `make bench SCENARIO=%s` (scripts/bench/%s.sh) with BENCH_ROUNDS=%s "
            "BENCH_STATS_ROUNDS=%s on %s, kernel %s, %s, %s CPUs, load average %s.\n\n" %
            (env["SCENARIO"], env["SCENARIO"], env["ROUNDS"], env["STATS_ROUNDS"],
             env["START"], env["KERNEL"], env["PERFV"], os.cpu_count(), env["LOAD"]))
    if env["SETUP"]:
        f.write(env["SETUP"] + "\n\n")
    f.write("![%s](%s.png)\n\n" % (env["SCENARIO"], env["SCENARIO"]))
    if srows:
        f.write("## BPF run time per program\n\nA separate pass, not timed, with "
                "`kernel.bpf_stats_enabled=1`: for each BPF program the case's processes hold, "
                "its runs and the kernel's run_time_ns / run_cnt (which include the "
                "statistics' own two clock reads per run).\n\n")
        f.write(table(["case", "BPF program", "runs", "ns per run median", "min", "max"], srows)
                + "\n\n")
    f.write("## Commands\n\n")
    for n, c in zip(names, cmds):
        f.write("- %s: `%s`\n" % (n, c.strip()))

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names)), 4.5))
ys = [r[0] for r in ratios]
err = [[r[0] - r[1] for r in ratios], [r[2] - r[0] for r in ratios]]
colors = ["#888" if i == 0 else "#c93" if n in floors else "#3a7" for i, n in enumerate(names)]
bars = ax.bar(range(len(names)), ys, color=colors, yerr=err, capsize=3,
              error_kw={"elinewidth": 0.8})
if max(ys) / min(ys) > 20:
    ax.set_yscale("log")
ax.set_xticks(range(len(names)))
ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
ax.set_ylabel("%s, x %s (median, min-max)" % (primary, names[0]))
ax.set_title(env["TITLE"], fontsize=9)
for b, y, r in zip(bars, ys, ratios):
    ax.annotate("%.2fx" % y, (b.get_x() + b.get_width() / 2, r[2]), ha="center", va="bottom",
                fontsize=7)
fig.tight_layout()
fig.savefig(out + ".png", dpi=110)
print(main)
PYEOF
echo "wrote $out_dir/$scenario.md"
