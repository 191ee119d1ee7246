#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a benchmark scenario, its baseline and its floors side by side in one
# run.
#
# Usage: bench.sh SCENARIO...     (scripts/bench/SCENARIO.sh; "all": each one)
#        make bench SCENARIO=name  or  make bench SCENARIO="name name"
#
# Environment: BENCH_ROUNDS=N (timed rounds; each scenario has a default;
# 0: none), BENCH_STATS_ROUNDS=N (rounds of the BPF statistics pass; a
# scenario may have a default, else 1; 0: none), BENCH_OUT=DIR (where
# the table and chart go,
# default Documentation/bench).
#
# A scenario file is sourced.  It sets BENCH_TITLE (and optionally
# BENCH_ROUNDS, BENCH_FLOORS: the names of its floor cases, one a line,
# BENCH_SPREAD_MAX: the largest spread of the baseline, in %, it wants), may
# define bench_setup and bench_teardown, and calls "bench_case NAME
# 'command' [FLOOR...]" once per case, the first one being the baseline;
# FLOORs name the floors the case is compared with (default: all).  A case
# command prints "key=value" lines; the first key is the primary metric.
# Cases run alternately within each round, in reverse order every other
# round, so drift of the machine hits all of them alike; before the
# baseline in each round a fixed computation (an awk loop, on
# BENCH_CPUS, the CPUs the scenario pins to, if it sets it) is
# timed in user CPU time, and its spread, given under the table, is the
# machine's own.  A scenario sourcing another can drop the cases that one
# declared with bench_cases_reset.  The table shows
# the primary metric's median, min and max over the rounds, what each case
# adds to the baseline and that as a multiple of what each floor adds.
#
# Then, unless BENCH_STATS_ROUNDS=0, every case runs again, alternated
# in the same way, with kernel.bpf_stats_enabled=1 (not timed: the
# statistics cost two clock reads per program run) and the table lists,
# per BPF program the case's processes hold, its runs and ns per run
# (median, min and max over the rounds).  Results go to
# Documentation/bench/SCENARIO.md and a bar chart of the ratios to the
# baseline to SCENARIO.png.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

scenarios()
{
	local f

	for f in "$ROOT"/scripts/bench/*.sh; do
		f=${f##*/}
		[ "$f" = lib.sh ] || echo "${f%.sh}"
	done
}

[ $# -ge 1 ] || die "usage: bench.sh SCENARIO...; have: $(scenarios | xargs)"
if [ $# -gt 1 ] || [ "$1" = all ]; then
	list=("$@")
	[ "$1" = all ] && mapfile -t list < <(scenarios)
	for s in "${list[@]}"; do
		"$0" "$s" || die "scenario $s failed"
	done
	exit 0
fi
scenario=$1
file=$ROOT/scripts/bench/$scenario.sh
[ "$scenario" != lib ] && [ -f "$file" ] ||
	die "no scenario '$scenario'; have: $(scenarios | xargs) (or all)"

deps bench
mount_fs
export PATH=$OBJ:$PATH

BENCH_TITLE=$scenario
BENCH_FLOOR=${BENCH_FLOOR:-}
BENCH_FLOORS=${BENCH_FLOORS:-}
bench_cases_reset()
{
	case_names=()
	case_cmds=()
	case_floors=()
}
bench_case()
{
	case_names+=("$1")
	case_cmds+=("$2")
	shift 2
	case_floors+=("$(printf '%s|' "$@")")
}
bench_cases_reset

# shellcheck source=/dev/null
. "$file"
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_STATS_ROUNDS=${BENCH_STATS_ROUNDS:-1}
[ -n "$BENCH_FLOORS" ] || BENCH_FLOORS=$BENCH_FLOOR
[ ${#case_names[@]} -ge 2 ] || die "$scenario defines fewer than two cases"

results=$(mktemp)
stats=$(mktemp)
old_bpf_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup()
{
	echo "$old_bpf_stats" > /proc/sys/kernel/bpf_stats_enabled
	rm -f "$results" "$results.err" "$results.prog" "$results.ref" "$stats"
	if declare -F bench_teardown >/dev/null; then
		bench_teardown
	fi
}
trap cleanup EXIT
if declare -F bench_setup >/dev/null; then
	bench_setup
fi

# The machine's own spread: a fixed computation, user space only, timed in
# user CPU time on the CPU the scenario pins to (if it does), in the slot
# before the baseline of every round: as many values, taken as the
# baseline's are, so that the two spreads compare.
reference_cmd="awk 'BEGIN { for (i = 0; i < 1e7; i++) s += i }'"
[ -n "${BENCH_CPUS:-}" ] && reference_cmd="taskset -c $BENCH_CPUS $reference_cmd"
reference_ms()
{
	local LC_ALL=C TIMEFORMAT=%3U t

	t=$({ time bash -c "$reference_cmd" >/dev/null 2>&1; } 2>&1) &&
		[[ $t =~ ^[0-9]+\.[0-9]+$ ]] || return 1
	awk -v t="$t" 'BEGIN { print t * 1000 }'
}

start=$(date -u +%FT%TZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
n=${#case_names[@]}
for ((r = 1; r <= BENCH_ROUNDS; r++)); do
	for ((j = 0; j < n; j++)); do
		i=$((r % 2 ? j : n - 1 - j))
		echo "round $r/$BENCH_ROUNDS: ${case_names[$i]}" >&2
		if [ "$i" = 0 ]; then
			reference_ms >> "$results.ref" ||
				die "the machine reference failed: $reference_cmd"
		fi
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
out_md=$out_dir/$scenario.md
out_png=$out_dir/$scenario.png
mkdir -p "$out_dir"
names=$(printf '%s\n' "${case_names[@]}")
cmds=$(printf '%s\n' "${case_cmds[@]}")
floors_of=$(printf '%s\n' "${case_floors[@]}")
NAMES=$names CMDS=$cmds CASE_FLOORS=$floors_of TITLE=$BENCH_TITLE FLOORS=$BENCH_FLOORS ROUNDS=$BENCH_ROUNDS \
STATS_ROUNDS=$BENCH_STATS_ROUNDS START=$start SCENARIO=$scenario KERNEL=$(uname -r) \
PERFV=$("$PERF" version) LOAD="$load_start -> $load_end" SETUP=${BENCH_SETUP_NOTE:-} \
SPREAD_MAX=${BENCH_SPREAD_MAX:-} \
REFERENCE_CMD=$reference_cmd \
/usr/bin/python3 - "$results" "$stats" "$out_md" "$out_png" "$results.ref" <<'PYEOF'
import os, statistics, sys
from collections import OrderedDict

res, stats, out_md, out_png, ref = sys.argv[1:6]
env = os.environ
names = env["NAMES"].split("\n")
cmds = env["CMDS"].split("\n")
floors = [f for f in env.get("FLOORS", "").split("\n") if f in names]
case_floors = [[f for f in c.split("|") if f] or floors for c in env["CASE_FLOORS"].split("\n")]
vals = {}			# (case, key) -> [values]
keys = OrderedDict()
primary = None
for line in open(res):
    i, r, k, v = line.split()
    i = int(i)
    if i == 0 and primary is None:
        primary = k
    keys[k] = 1
    vals.setdefault((i, k), []).append(float(v))
primary = primary or "none (BENCH_ROUNDS=0)"
med = {ik: statistics.median(v) for ik, v in vals.items()}
base = med.get((0, primary))
added = {i: med[(i, primary)] - base for i in range(len(names)) if (i, primary) in med}


def fmt(x):
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


def spread(i):
    v = vals.get((i, primary))
    return (max(v) - min(v)) / statistics.median(v) if v and statistics.median(v) else None


def table(head, rows):
    w = [max(len(str(r[c])) for r in [head] + rows) for c in range(len(head))]
    return "\n".join("| " + " | ".join(str(r[c]).ljust(w[c]) for c in range(len(head))) + " |"
                     for r in [head, ["-" * x for x in w]] + rows)


others = [k for k in keys if k != primary]
head = ["case", primary + " median", "min", "max", "spread", *others, "ratio",
        "added"] + ["x " + f for f in floors]
rows = []
for i, n in enumerate(names):
    if (i, primary) not in med:
        rows.append([n] + ["-"] * (len(head) - 1))
        continue
    v = vals[(i, primary)]
    row = [n, fmt(med[(i, primary)]), fmt(min(v)), fmt(max(v)), "%.1f%%" % (100 * spread(i))]
    row += [fmt(med[(i, k)]) if (i, k) in med else "-" for k in others]
    row.append("%.2fx" % (med[(i, primary)] / base) if base else "-")
    row.append(fmt(added[i]))
    for f in floors:
        a = added.get(names.index(f))
        row.append("%.2f" % (added[i] / a) if a and f in case_floors[i] and i else "-")
    rows.append(row)
main = table(head, rows)
print(main)

# BPF statistics: per case and program, runs and ns per run (medians)
prog = OrderedDict()		# (case, name) -> [(runs, ns)]
if os.path.exists(stats):
    for line in open(stats):
        i, r, name, cnt, ns = line.split()
        prog.setdefault((int(i), name), []).append((int(cnt), int(ns)))
stats_table = None
if prog:
    srows = []
    for (i, name), v in sorted(prog.items(), key=lambda x: x[0][0]):
        per = [ns / cnt for cnt, ns in v]
        srows.append([names[i], name, fmt(statistics.median([c for c, _ in v])),
                      fmt(statistics.median(per)), fmt(min(per)), fmt(max(per))])
    stats_table = table(["case", "BPF program", "runs", "ns per run median", "min", "max"],
                        srows)
    print(stats_table)

with open(out_md, "w") as f:
    f.write("# Benchmark: %s\n\n" % env["TITLE"])
    if vals:
        f.write("%s rounds, cases run alternately in one run (every other round in reverse "
                "order). `%s`: median, min and max over the rounds, spread = (max - min) / "
                "median; the other figures are medians. Ratio and added are against the "
                "first case (%s)" % (env["ROUNDS"], primary, names[0]))
        if floors:
            f.write("; \"x FLOOR\" is what the case adds divided by what the floor adds")
        f.write(".\n\n" + main + "\n\n")
    elif env["ROUNDS"] == "0":
        f.write("No timed rounds (BENCH_ROUNDS=0): the BPF statistics below are the "
                "measurement.\n\n")
    else:
        f.write("No case printed a figure in its %s timed rounds.\n\n" % env["ROUNDS"])
    refs = [float(l) for l in open(ref)] if os.path.exists(ref) else []
    if refs:
        rm = statistics.median(refs)
        f.write("Machine reference: `%s`, user CPU time, in the slot before %s in each "
                "round, %d runs: median %s ms, min %s, max %s, spread %.1f%%: the spread a "
                "computation that never changes gets from the machine itself.\n\n"
                % (env["REFERENCE_CMD"], names[0], len(refs), fmt(rm), fmt(min(refs)), fmt(max(refs)),
                   100 * (max(refs) - min(refs)) / rm))
    sp = spread(0)
    if sp is not None:
        f.write("Spread of %s: %.1f%%" % (names[0], 100 * sp))
        if env.get("SPREAD_MAX"):
            ok = 100 * sp < float(env["SPREAD_MAX"])
            f.write(" (target under %s%%: %s)" % (env["SPREAD_MAX"], "met" if ok else
                    "NOT met, run on an idle machine"))
        f.write(".\n\n")
    f.write("Produced by `make bench SCENARIO=%s` (scripts/bench/%s.sh) with BENCH_ROUNDS=%s "
            "BENCH_STATS_ROUNDS=%s on %s, kernel %s, %s, %s CPUs, load average %s.\n\n" %
            (env["SCENARIO"], env["SCENARIO"], env["ROUNDS"], env["STATS_ROUNDS"],
             env["START"], env["KERNEL"], env["PERFV"], os.cpu_count(), env["LOAD"]))
    if env.get("SETUP"):
        f.write(env["SETUP"] + "\n\n")
    if vals:
        f.write("![%s](%s.png)\n\n" % (env["SCENARIO"], env["SCENARIO"]))
    if stats_table:
        f.write("## BPF run time per program\n\nA separate pass, not timed, with "
                "`kernel.bpf_stats_enabled=1` (%s round(s)): for each BPF program the "
                "case's processes hold, its runs and the kernel's run_time_ns / run_cnt "
                "(which include the statistics' own two clock reads per run).\n\n"
                % env["STATS_ROUNDS"])
        f.write(stats_table + "\n\n")
    f.write("## Commands\n\n")
    for n, c in zip(names, cmds):
        f.write("- %s: `%s`\n" % (n, c.strip()))
try:
    if not vals:
        if os.path.exists(out_png):
            os.remove(out_png)
        raise ImportError("no timed rounds")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names)), 4.5))
    # ratios to the baseline, min to max; on a log scale where the cases
    # differ by orders of magnitude, or the small ones cannot be read
    ys = [med.get((i, primary), 0) / base if base else 0 for i in range(len(names))]
    lo = [y - min(vals.get((i, primary), [y * base])) / base for i, y in enumerate(ys)]
    hi = [max(vals.get((i, primary), [y * base])) / base - y for i, y in enumerate(ys)]
    colors = ["#888" if i == 0 else "#c93" if n in floors else "#3a7"
              for i, n in enumerate(names)]
    bars = ax.bar(range(len(names)), ys, color=colors, yerr=[lo, hi], capsize=3,
                  error_kw={"elinewidth": 0.8})
    pos = [y for y in ys if y > 0]
    if pos and max(pos) / min(pos) > 20:
        ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("%s, x %s (median, min-max)" % (primary, names[0]))
    ax.set_title(env["TITLE"], fontsize=9)
    for b, y, h in zip(bars, ys, hi):
        ax.annotate("%.2fx" % y, (b.get_x() + b.get_width() / 2, y + h), ha="center",
                    va="bottom", fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
except ImportError as e:
    print("no chart: %s" % e, file=sys.stderr)
PYEOF
echo "wrote $out_md"
