#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run a benchmark scenario and its baseline side by side in one run.
#
# Usage: bench.sh SCENARIO        (scripts/bench/SCENARIO.sh)
#
# A scenario file is sourced.  It sets BENCH_TITLE (and optionally
# BENCH_ROUNDS, BENCH_FLOOR), may define bench_setup and bench_teardown, and
# calls "bench_case NAME 'command'" once per case, the first one being the
# baseline.  A case command prints "key=value" lines; the first key is the
# primary metric.  Cases run alternately, round after round, so drift of the
# machine hits all of them alike; the table shows medians.  Results go to
# Documentation/bench/SCENARIO.md and a bar chart to SCENARIO.png.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

scenario=${1:?usage: bench.sh SCENARIO}
file=$ROOT/scripts/bench/$scenario.sh
[ -f "$file" ] || die "no scenario '$scenario'; have: $(cd "$ROOT/scripts/bench" && ls ./*.sh 2>/dev/null | sed 's|./||;s|\.sh||' | tr '\n' ' ')"

"$ROOT/scripts/deps.sh" bench
"$ROOT/scripts/mount-fs.sh"
export PATH=$OBJ:$PATH

BENCH_TITLE=$scenario
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_FLOOR=${BENCH_FLOOR:-}
case_names=()
case_cmds=()
bench_case()
{
	case_names+=("$1")
	case_cmds+=("$2")
}

# shellcheck source=/dev/null
. "$file"
[ ${#case_names[@]} -ge 2 ] || die "$scenario defines fewer than two cases"
if declare -F bench_setup >/dev/null; then
	bench_setup
fi

results=$(mktemp)
trap 'rm -f "$results"; if declare -F bench_teardown >/dev/null; then bench_teardown; fi' EXIT
start=$(date -u +%FT%TZ)
for ((r = 1; r <= BENCH_ROUNDS; r++)); do
	for i in "${!case_names[@]}"; do
		echo "round $r/$BENCH_ROUNDS: ${case_names[$i]}" >&2
		out=$(bash -c "${case_cmds[$i]}" 2>"$results.err") ||
			die "case '${case_names[$i]}' failed: $(tail -3 "$results.err")"
		echo "$out" | grep -E '^[A-Za-z_][A-Za-z0-9_]*=-?[0-9.]+$' |
			sed "s/^/$i $r /;s/=/ /" >> "$results"
	done
done

out_md=$ROOT/Documentation/bench/$scenario.md
out_png=$ROOT/Documentation/bench/$scenario.png
mkdir -p "$(dirname "$out_md")"
names=$(printf '%s\n' "${case_names[@]}")
cmds=$(printf '%s\n' "${case_cmds[@]}")
NAMES=$names CMDS=$cmds TITLE=$BENCH_TITLE FLOOR=$BENCH_FLOOR ROUNDS=$BENCH_ROUNDS \
START=$start SCENARIO=$scenario KERNEL=$(uname -r) PERFV=$("$PERF" version) \
/usr/bin/python3 - "$results" "$out_md" "$out_png" <<'PYEOF'
import os, statistics, sys
from collections import OrderedDict

res, out_md, out_png = sys.argv[1:4]
names = os.environ["NAMES"].split("\n")
cmds = os.environ["CMDS"].split("\n")
floor = os.environ.get("FLOOR", "")
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
med = {ik: statistics.median(v) for ik, v in vals.items()}
base = med.get((0, primary))
fi = names.index(floor) if floor in names else None
added_floor = med[(fi, primary)] - base if fi is not None else None

def fmt(x):
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x

head = ["case", *keys.keys(), "ratio", "added " + primary]
if fi is not None:
    head.append("added / added(%s)" % floor)
rows = []
for i, n in enumerate(names):
    p = med.get((i, primary))
    row = [n] + [fmt(med[(i, k)]) if (i, k) in med else "-" for k in keys]
    row.append("%.2fx" % (p / base) if base else "-")
    row.append(fmt(p - base))
    if fi is not None:
        row.append("%.2f" % ((p - base) / added_floor) if added_floor else "-")
    rows.append(row)

w = [max(len(str(r[c])) for r in [head] + rows) for c in range(len(head))]
table = "\n".join("| " + " | ".join(str(r[c]).ljust(w[c]) for c in range(len(head))) + " |"
                  for r in [head, ["-" * x for x in w]] + rows)
print(table)
env = os.environ
with open(out_md, "w") as f:
    f.write("# Benchmark: %s\n\n" % env["TITLE"])
    f.write("Medians of %s rounds, cases run alternately in one run; ratio and added are "
            "against the first case (%s) for `%s`.\n\n" % (env["ROUNDS"], names[0], primary))
    f.write(table + "\n\n")
    f.write("Produced by `make bench SCENARIO=%s` (scripts/bench/%s.sh) on %s, kernel %s, %s, "
            "%s CPUs.\n\n" % (env["SCENARIO"], env["SCENARIO"], env["START"], env["KERNEL"],
                              env["PERFV"], os.cpu_count()))
    f.write("![%s](%s.png)\n\n## Commands\n\n" % (env["SCENARIO"], env["SCENARIO"]))
    for n, c in zip(names, cmds):
        f.write("- %s: `%s`\n" % (n, c.strip()))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names)), 4.5))
    ys = [med.get((i, primary), 0) for i in range(len(names))]
    bars = ax.bar(range(len(names)), ys, color=["#888"] + ["#3a7"] * (len(names) - 1))
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(primary)
    ax.set_title(env["TITLE"], fontsize=10)
    for b, y in zip(bars, ys):
        ax.annotate("%.2fx" % (y / base) if base else "", (b.get_x() + b.get_width() / 2, y),
                    ha="center", va="bottom", fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
except ImportError:
    print("python3-matplotlib missing: no chart", file=sys.stderr)
PYEOF
echo "wrote $out_md"
