# SPDX-License-Identifier: GPL-2.0
# A loop of getppid() calls, the cheapest syscall: untraced; under two empty
# tp_btf programs on sys_enter/sys_exit (the floor of any in-kernel syscall
# statistics); under the same two reading the clock, as any syscall
# duration needs (tp_btf_clock.bpf.c); under perf trace -s --bpf-summary in
# each mode; under plain perf trace -s, which collects in BPF by default;
# under the user-space perf trace -s --no-bpf-summary; strace -c; and a
# bpftrace script keeping the same statistics in the kernel.
#
# The time is taken inside the traced command (getppid_inner.sh), around a
# loop of N calls and a loop of 0 calls, so the tracer's own start (BPF load,
# bpftrace compile) and stop are not in it; the primary figure is the CPU
# time of the loop, which on a shared machine does not include waiting for
# a CPU.  The slow user-space tracers run fewer calls.  Upstream's
# system-wide --bpf-summary, built from the same base without the series,
# runs beside ours with -a.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="getppid loop: ns per call added by syscall statistics"
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_FLOORS="tp_btf empty (floor)
tp_btf + 2 clock reads (timer floor)"
calls=${BENCH_CALLS:-2000000}
slow_calls=${BENCH_SLOW_CALLS:-200000}

export BENCH_TS_SRC=$ROOT/scripts/bench/trace-summary
export BENCH_TS_PERF=$OBJ/perf

# upstream's own --bpf-summary (system wide only) beside ours: the same
# base built without the series
upstream=$BUILD/unpatched/perf/perf

bench_setup()
{
	bench_build_floors "$BENCH_TS_SRC/tp_btf_floor.bpf.c" "$BENCH_TS_SRC/tp_btf_clock.bpf.c"
	if [ ! -x "$upstream" ]; then
		SERIES=none PERF_SERIES_BUILD=$BUILD/unpatched "$ROOT/scripts/build.sh" >/dev/null ||
			die "building the unpatched base failed"
	fi
}

# bpftrace -c splits its command at spaces: no shell quoting in it
inner() { echo "/bin/bash \$BENCH_TS_SRC/getppid_inner.sh $1"; }
floor="\$BENCH_FLOOR_DIR/floor \$BENCH_FLOOR_DIR/tp_btf_floor.bpf.o"
clock="\$BENCH_FLOOR_DIR/floor \$BENCH_FLOOR_DIR/tp_btf_clock.bpf.o"

bench_case untraced "$(inner "$calls")"
bench_case "tp_btf empty (floor)" "$floor $(inner "$calls")"
bench_case "tp_btf + 2 clock reads (timer floor)" "$clock $(inner "$calls")"
bench_case "upstream: perf trace -as --bpf-summary" \
	"$upstream trace -as --bpf-summary -o /dev/null -- $(inner "$calls")"
bench_case "perf trace -as" "perf trace -as -o /dev/null -- $(inner "$calls")"
for mode in total thread cgroup; do
	bench_case "perf trace -s --bpf-summary --summary-mode=$mode" \
		"perf trace -s --bpf-summary --summary-mode=$mode -o /dev/null -- $(inner "$calls")"
done
bench_case "bpftrace (same statistics)" \
	"bpftrace -q -f text \$BENCH_TS_SRC/syscall_stats.bt -c \"$(inner "$calls")\""
bench_case "perf trace -s (default)" "perf trace -s -o /dev/null -- $(inner "$calls")"
bench_case "perf trace -s --no-bpf-summary" \
	"perf trace -s --no-bpf-summary -o /dev/null -- $(inner "$slow_calls")"
bench_case "strace -c" "strace -c -f -o /dev/null $(inner "$slow_calls")"
