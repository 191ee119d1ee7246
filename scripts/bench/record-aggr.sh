# SPDX-License-Identifier: GPL-2.0
# perf record -g of a CPU-bound 2-thread workload (cpu_split 10 2) at 999 Hz
# and at the highest frequency the machine allows: plain vs --bpf-aggr.
# Work done per second (split_round calls), perf.data size, lost samples.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="cpu_split 10 2: rounds/s, perf.data size and lost samples, perf record -g vs --bpf-aggr"
BENCH_ROUNDS=2
# At the highest frequency the start of perf test (dynamic linking) alone
# gives tens of thousands of distinct stacks: --bpf-aggr gets a map to
# match (65536 keys, 256K stacks, about 270 MB of kernel memory).

# Usage: bench_record_aggr_case untraced|plain|aggr [FREQ [perf record options]]
bench_record_aggr_case()
{
	local mode=$1 freq=$2 dir out rounds

	shift 2 || shift

	if [ "$mode" = untraced ]; then
		rounds=$(perf test -w cpu_split 10 2 rounds | sed -n 's/^rounds=//p')
		echo "rounds_per_s=$((rounds / 10))"
		return
	fi
	dir=$(mktemp -d /tmp/bench-record-aggr.XXXXX)
	local opts=(-g -e cpu-clock -F "$freq" -o "$dir/perf.data")
	[ "$mode" = aggr ] && opts+=(--bpf-aggr "$@")
	out=$(perf record "${opts[@]}" -- perf test -w cpu_split 10 2 rounds 2>"$dir/err")
	rounds=$(echo "$out" | sed -n 's/^rounds=//p')
	echo "rounds_per_s=$((rounds / 10))"
	echo "perf_data_kb=$(($(stat -c %s "$dir/perf.data") / 1024))"
	echo "sample_records=$(sed -n 's/.*perf.data (\([0-9]*\) samples).*/\1/p' "$dir/err")"
	echo "lost_samples=$(perf report -i "$dir/perf.data" --stdio --sort comm -g none 2>/dev/null |
			    sed -n 's/^# Total Lost Samples: *//p')"
	rm -rf "$dir"
}
export -f bench_record_aggr_case

bench_case untraced "bench_record_aggr_case untraced"
bench_case "record -g 999Hz" "bench_record_aggr_case plain 999"
bench_case "--bpf-aggr 999Hz" "bench_record_aggr_case aggr 999"
bench_case "record -g max" "bench_record_aggr_case plain max"
bench_case "--bpf-aggr max" "bench_record_aggr_case aggr max --bpf-aggr-entries=65536"
