# SPDX-License-Identifier: GPL-2.0
# Helpers for benchmark scenarios; sourced by scripts/bench/*.sh.

# Print the wall time of a command in nanoseconds; its output is discarded.
bench_time_ns()
{
	local t0 t1

	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

# ns per getppid() call under a tracer: the time of N calls minus the time
# of 0 calls (the tracer's own start and stop), divided by N.
# Usage: bench_ns_per_getppid N [tracer command ...]
bench_ns_per_getppid()
{
	local n=$1 t0 t1

	shift
	t0=$(bench_time_ns "$@" perf test -w getppid_loop 0)
	t1=$(bench_time_ns "$@" perf test -w getppid_loop "$n")
	echo "ns_per_call=$(((t1 - t0) / n))"
}
export -f bench_time_ns bench_ns_per_getppid

# The median of the numbers on stdin, one a line (the lower of the middle
# two for an even count).
bench_median()
{
	sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
export -f bench_median

# Build the floor loader and the floor programs of scripts/bench/floor/
# (and any more BPF sources given) into build/bench/floor/:
# "$BENCH_FLOOR_DIR/floor [-F FREQ] $BENCH_FLOOR_DIR/NAME.bpf.o COMMAND"
# runs COMMAND under the programs of NAME.bpf.c.
# Usage: bench_build_floors [extra.bpf.c ...]
bench_build_floors()
{
	local libbpf=$OBJ/libbpf src o

	mkdir -p "$BENCH_FLOOR_DIR"
	for src in "$ROOT"/scripts/bench/floor/*.bpf.c "$@"; do
		o=$BENCH_FLOOR_DIR/$(basename "${src%.c}").o
		clang -O2 -g -target bpf -I"$libbpf/include" -c "$src" -o "$o" ||
			die "cannot build $src"
	done
	gcc -O2 -Wall -I"$libbpf/include" -o "$BENCH_FLOOR_DIR/floor" \
		"$ROOT/scripts/bench/floor/floor.c" "$libbpf/libbpf.a" -lelf -lz ||
		die "cannot build the floor loader"
}
export BENCH_FLOOR_DIR=$ROOT/build/bench/floor
