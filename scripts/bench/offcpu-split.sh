# SPDX-License-Identifier: GPL-2.0
# Where the time of perf record --off-cpu's sched_switch program goes, in
# the kernel's BPF statistics, on offcpu.sh's pinned sched pipe: the
# series' program (default threshold) against measurement builds of it,
# each taking one more part out of the one before:
#   0. none: the program as shipped, built in the same tree as the others
#      (the control: the series' case uses the build tree's perf);
#   1. no last_in: without the per-CPU check for switches the tracepoint
#      missed;
#   2. no sum: without adding the interval to the map keyed by the stack;
#   3. no walk: without the user stack walk (len = 0 for bpf_get_stack());
#   4. clock and filters only: returns after bpf_ktime_get_ns() and
#      can_record(), no task storage;
#   5. filters only: returns after can_record(), no clock read.
# The builds are not shipped: bench_setup makes them from the build tree
# in build/bench/offcpu-split/ (one perf tree, then a skeleton and a link
# per variant, each binary in build/bench/offcpu-split/N/).  With
# offcpu.sh's floors and the base 6.12's --off-cpu, in one run.  Timed
# rounds tell nothing more here, so there are none unless BENCH_ROUNDS
# says so, and 15 rounds of BPF statistics: compare the minima (the
# host's noise only adds) as well as the medians.
split_rounds=${BENCH_ROUNDS:-0}
. "$ROOT/scripts/bench/offcpu.sh"

BENCH_TITLE="off-cpu program split: the series' sched_switch program without one part after another"
BENCH_ROUNDS=$split_rounds
BENCH_STATS_ROUNDS=${BENCH_STATS_ROUNDS:-15}
export OFFCPU_SPLIT_DIR=$ROOT/build/bench/offcpu-split
# this scenario has cases of its own
bench_cases_reset

# Usage: offcpu_split_edit FILE VARIANT: VARIANT's edit on top of the one
# before (0: none); the unused function attributes keep -Werror quiet.
offcpu_split_edit()
{
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import sys

path, variant = sys.argv[1], sys.argv[2]
text = open(path).read()
edits = {
    "0": [],
    "1": [("\t__u32 zero = 0, *seen;\n", ""),
          ("\tseen = bpf_map_lookup_elem(&last_in, &zero);\n"
           "\tif (seen) {\n"
           "\t\tif (*seen && *seen != prev->pid)\n"
           "\t\t\tcheck_unseen_out(*seen);\n"
           "\t\t*seen = next->pid;\n"
           "\t}\n", ""),
          ("static void check_unseen_out(",
           "static __attribute__((unused)) void check_unseen_out(")],
    "2": [("\t\tkey = &pelem->dump.key;\n"
           "\t\tif (key->nr <= OFF_CPU_SHORT_STACK + 1)\n"
           "\t\t\toff_cpu_sum(&off_cpu_short, key, delta);\n"
           "\t\telse\n"
           "\t\t\toff_cpu_sum(&off_cpu, key, delta);\n", ""),
          ("static __always_inline void off_cpu_sum(",
           "static __always_inline __attribute__((unused)) void off_cpu_sum(")],
    "3": [("\tlen = bpf_get_stack(ctx, &key->ips[1], "
           "sizeof(key->ips) - sizeof(key->ips[0]),\n"
           "\t\t\t    BPF_F_USER_STACK);\n", "\tlen = 0;\n")],
    "4": [("\tts = bpf_ktime_get_ns();\n",
           "\tts = bpf_ktime_get_ns();\n"
           "\tif (can_record(prev, state) || ts)\n\t\treturn 0;\n")],
    "5": [("\tts = bpf_ktime_get_ns();\n"
           "\tif (can_record(prev, state) || ts)\n",
           "\tif (can_record(prev, state) || prev)\n\t\treturn 0;\n"
           "\tts = bpf_ktime_get_ns();\n"
           "\tif (ts)\n")],
}
for old, new in edits[variant]:
    if text.count(old) != 1:
        sys.exit("offcpu-split: edit %s no longer matches %s" % (variant, path))
    text = text.replace(old, new)
open(path, "w").write(text)
EOF
}

bench_setup()
{
	local src=$OFFCPU_SPLIT_DIR/src obj=$OFFCPU_SPLIT_DIR/perf v

	[ -f "$SRC/tools/perf/util/bpf_skel/off_cpu.bpf.c" ] ||
		die "no build tree in $SRC: run make build first"
	offcpu_setup
	mkdir -p "$src" "$obj"
	# the build tree, as the last build left it: only off_cpu.bpf.c changes
	rsync -a --delete "$SRC/" "$src/"
	for v in 0 1 2 3 4 5; do
		echo "building off-cpu measurement variant $v" >&2
		offcpu_split_edit "$src/tools/perf/util/bpf_skel/off_cpu.bpf.c" $v ||
			die "cannot make variant $v"
		make -C "$src/tools/perf" O="$obj" BUILD_BPF_SKEL=1 -j"$JOBS" \
			PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config \
			> "$OFFCPU_SPLIT_DIR/build-$v.log" 2>&1 ||
			die "variant $v does not build: $OFFCPU_SPLIT_DIR/build-$v.log"
		mkdir -p "$OFFCPU_SPLIT_DIR/$v"
		cp "$obj/perf" "$OFFCPU_SPLIT_DIR/$v/perf"
	done
}

# Usage: offcpu_split_run VARIANT: offcpu_run 500 with that variant's perf
offcpu_split_run()
{
	PATH=$OFFCPU_SPLIT_DIR/$1:$PATH offcpu_run 500
}
export -f offcpu_split_run

bench_case untraced "offcpu_run none"
bench_case "tp_btf sched_switch empty (floor)" "offcpu_run floor-sched_switch_empty"
bench_case "user stack walk only (floor)" "offcpu_run floor-sched_switch_ustack"
bench_case "perf record -e dummy, no --off-cpu" "offcpu_run dummy"
bench_case "base 6.12 --off-cpu" "offcpu_run base"
bench_case "--off-cpu (default 500 ms)" "offcpu_run 500"
bench_case "0. as shipped, built as the variants" "offcpu_split_run 0"
bench_case "1. no last_in" "offcpu_split_run 1"
bench_case "2. 1 and no sum" "offcpu_split_run 2"
bench_case "3. 2 and no walk" "offcpu_split_run 3"
bench_case "4. clock and filters only" "offcpu_split_run 4"
bench_case "5. filters only" "offcpu_split_run 5"
