# SPDX-License-Identifier: GPL-2.0
# perf record -g of cpu_split SECS 2 at 999 Hz and at the highest frequency
# the machine allows: plain vs --bpf-aggr, against two floors of each
# frequency, perf_event programs on the same event that write nothing: an
# empty one, and one that only walks the stacks into a stack map as
# --bpf-aggr does (scripts/bench/floor/).  The primary figure is thread time
# per round of work, ns, so what sampling steals from the workload shows as
# added ns; also work per second, perf.data size, samples and lost samples.
#
# "max" is kernel.perf_event_max_sample_rate read once at the start: the
# kernel lowers it while samples take too long, so it is set back to that
# value before each case at max, and restored at the end; every case at
# max samples at the same rate.  RECORD_AGGR_FREQS=999 or =max runs the
# cases of one frequency only.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="cpu_split 2 threads: ns of thread time per round, perf record -g vs --bpf-aggr vs perf_event program floors"
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_FLOORS="empty perf_event prog 999Hz (floor)
stack ids only 999Hz (floor)
empty perf_event prog max (floor)
stack ids only max (floor)"	# each case against its frequency's
export RECORD_AGGR_SECS=${RECORD_AGGR_SECS:-10}
RECORD_AGGR_MAX_HZ=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
export RECORD_AGGR_MAX_HZ
BENCH_SETUP_NOTE="max = $RECORD_AGGR_MAX_HZ Hz (kernel.perf_event_max_sample_rate at the start), cpu_split $RECORD_AGGR_SECS 2."
# At the highest frequency the start of perf test (dynamic linking) alone
# gives tens of thousands of distinct stacks: --bpf-aggr gets a map to
# match (65536 keys, 256K stacks, about 270 MB of kernel memory).

bench_setup()
{
	bench_build_floors
}

bench_teardown()
{
	echo "$RECORD_AGGR_MAX_HZ" > /proc/sys/kernel/perf_event_max_sample_rate
}

# Usage: bench_record_aggr_case untraced|floor|stackid|plain|aggr [FREQ [perf record options]]
bench_record_aggr_case()
{
	local mode=$1 freq=${2:-} dir out rounds threads=2
	local work=(perf test -w cpu_split "$RECORD_AGGR_SECS" "$threads" rounds)

	shift 2 || shift
	if [ "$freq" = max ]; then
		freq=$RECORD_AGGR_MAX_HZ
		echo "$freq" > /proc/sys/kernel/perf_event_max_sample_rate
	fi
	dir=$(mktemp -d /tmp/bench-record-aggr.XXXXX)
	case $mode in
	untraced)
		out=$("${work[@]}") ;;
	floor | stackid)
		local prog=$BENCH_FLOOR_DIR/perf_event_empty.bpf.o

		[ "$mode" = stackid ] && prog=$BENCH_FLOOR_DIR/perf_event_stackid.bpf.o
		out=$("$BENCH_FLOOR_DIR/floor" -F "$freq" "$prog" "${work[@]}") ;;
	*)
		local opts=(-g -e cpu-clock -F "$freq" -o "$dir/perf.data")
		[ "$mode" = aggr ] && opts+=(--bpf-aggr "$@")
		out=$(perf record "${opts[@]}" -- "${work[@]}" 2>"$dir/err") ;;
	esac
	rounds=$(echo "$out" | sed -n 's/^rounds=//p')
	[ -n "$rounds" ] && [ "$rounds" -gt 0 ] || { rm -rf "$dir"; return 1; }
	echo "ns_per_round=$((threads * RECORD_AGGR_SECS * 1000000000 / rounds))"
	echo "rounds_per_s=$((rounds / RECORD_AGGR_SECS))"
	if [ -f "$dir/perf.data" ]; then
		echo "perf_data_kb=$(($(stat -c %s "$dir/perf.data") / 1024))"
		if [ "$mode" = aggr ]; then
			echo "samples=$(sed -n 's/.*--bpf-aggr counted \([0-9]*\) samples.*/\1/p' "$dir/err")"
		else
			echo "samples=$(sed -n 's/.*perf.data (\([0-9]*\) samples).*/\1/p' "$dir/err")"
		fi
		echo "lost_samples=$(perf report -i "$dir/perf.data" --stdio --sort comm -g none 2>/dev/null |
				    sed -n 's/^# Total Lost Samples: *//p')"
	fi
	rm -rf "$dir"
}
export -f bench_record_aggr_case

bench_case untraced "bench_record_aggr_case untraced"
for freq in ${RECORD_AGGR_FREQS:-999 max}; do
	case $freq in
	999)	aggr_opts= ;;
	max)	aggr_opts=" --bpf-aggr-entries=65536" ;;
	*)	die "RECORD_AGGR_FREQS: 999 or max, not '$freq'" ;;
	esac
	empty="empty perf_event prog ${freq/999/999Hz} (floor)"
	walk="stack ids only ${freq/999/999Hz} (floor)"
	bench_case "$empty" "bench_record_aggr_case floor $freq" "$empty"
	bench_case "$walk" "bench_record_aggr_case stackid $freq" "$empty"
	bench_case "record -g ${freq/999/999Hz}" "bench_record_aggr_case plain $freq" "$empty" "$walk"
	bench_case "--bpf-aggr ${freq/999/999Hz}" "bench_record_aggr_case aggr $freq$aggr_opts" \
		"$empty" "$walk"
done
