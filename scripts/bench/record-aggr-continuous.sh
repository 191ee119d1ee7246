# SPDX-License-Identifier: GPL-2.0
# perf record --bpf-aggr as a continuous profiler, on the whole machine (-a):
#  - 60 s of 'perf record -g -F 999 -a' plain vs --bpf-aggr, while
#    cpu_split 60 2 keeps both CPUs busy: perf.data size, sample records,
#    lost samples, and the distinct stacks that make up an aggregated file;
#  - 10 minutes of --bpf-aggr -g -F 999 -a --switch-output=60s, with
#    cpu_split 600 2 as the load: the size of each file, against a minute
#    of the plain case, and perf's RSS over the run (it must stay flat).
#    A plain 10-minute run is not made: it writes ten times the 60 s case.
# Whatever else runs on the machine is profiled too: see the load figures
# printed with each case.
. "$ROOT/scripts/bench/lib.sh"

BENCH_TITLE="perf record -g -a: perf.data size, sample records and RSS, plain vs --bpf-aggr over 60 s and 10 min"
BENCH_ROUNDS=1
# no BPF statistics pass: each would take the 12 minutes again, and
# record-aggr has the program's cost per sample
BENCH_STATS_ROUNDS=0
CONT_SECS=${CONT_SECS:-600}
# per-file sizes, RSS over time and perf's own lines, beyond the table
BENCH_DETAIL=${BENCH_DETAIL:-/tmp/bench-record-aggr-continuous.txt}
export CONT_SECS BENCH_DETAIL

# bytes of PERF_RECORD_SAMPLE records in a perf.data
bench_sample_bytes()
{
	local n=0 hex

	while read -r hex; do
		n=$((n + 16#$hex))
	done < <(perf report -D -i "$1" 2>/dev/null |
		 awk '/PERF_RECORD_SAMPLE/ && match($0, /\[0x[0-9a-f]+\]:/) {
			print substr($0, RSTART + 3, RLENGTH - 5) }')
	echo $n
}

# Usage: bench_aggr_window plain|aggr SECS
bench_aggr_window()
{
	local mode=$1 secs=$2 dir opts load

	dir=$(mktemp -d /tmp/bench-aggr-cont.XXXXX)
	opts=(-g -a -e cpu-clock -F 999 -o "$dir/perf.data")
	[ "$mode" = aggr ] && opts+=(--bpf-aggr)
	load=$(cut -d' ' -f1 /proc/loadavg)
	perf record "${opts[@]}" -- perf test -w cpu_split "$secs" 2 2>"$dir/err" >/dev/null
	# first: the primary metric of the table (ratio against plain)
	echo "perf_data_kb=$(($(stat -c %s "$dir/perf.data") / 1024))"
	echo "load_avg_before=$load"
	echo "sample_records=$(sed -n 's/.*perf.data (\([0-9]*\) samples).*/\1/p' "$dir/err")"
	echo "sample_record_kb=$(($(bench_sample_bytes "$dir/perf.data") / 1024))"
	echo "lost_samples=$(perf report -i "$dir/perf.data" --stats 2>/dev/null |
			    awk '/LOST_SAMPLES events:/ { n = $3 } END { print n + 0 }')"
	# samples taken: plain writes each, --bpf-aggr says how many it counted
	if [ "$mode" = aggr ]; then
		echo "samples_taken=$(sed -n 's/.*--bpf-aggr counted \([0-9]*\) samples.*/\1/p' "$dir/err")"
	else
		echo "samples_taken=$(sed -n 's/.*perf.data (\([0-9]*\) samples).*/\1/p' "$dir/err")"
	fi
	echo "comms=$(perf report -i "$dir/perf.data" --stdio --sort comm -g none 2>/dev/null |
		     grep -c '^ .*%')"
	echo "load_avg_after=$(cut -d' ' -f1 /proc/loadavg)"
	{
		echo "== $mode ${secs}s -a: $(date -u +%FT%TZ)"
		grep -v '^\[ perf record: Woken' "$dir/err"
		perf report -i "$dir/perf.data" --stdio --sort comm -g none 2>/dev/null |
			grep '^ .*%' | head -8
	} >> "$BENCH_DETAIL"
	rm -rf "$dir"
}

# --bpf-aggr -F 999 -a with a file per minute for CONT_SECS seconds, the
# workload of the 60 s cases running as long: file sizes, stacks per file,
# and perf's RSS sampled every 10 s.
bench_aggr_continuous()
{
	local dir pid rss first=0 last=0 max=0 t=0 sizes

	dir=$(mktemp -d /tmp/bench-aggr-cont.XXXXX)
	echo "load_avg_before=$(cut -d' ' -f1 /proc/loadavg)"
	perf record --bpf-aggr -g -a -e cpu-clock -F 999 --switch-output=60s \
		-o "$dir/perf.data" -- perf test -w cpu_split "$CONT_SECS" 2 \
		2>"$dir/err" >/dev/null &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 10
		t=$((t + 10))
		rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status 2>/dev/null) || break
		[ -n "$rss" ] || break
		echo "rss t=${t}s ${rss} kB" >> "$BENCH_DETAIL"
		# first: once the first file was written
		[ $t -eq 70 ] && first=$rss
		last=$rss
		[ "$rss" -gt $max ] && max=$rss
	done
	wait $pid
	sizes=$(stat -c %s "$dir"/perf.data.* | sort -n)
	echo "files=$(echo "$sizes" | grep -c .)"
	echo "file_kb_min=$(($(echo "$sizes" | head -1) / 1024))"
	# the median file: a minute, to set against the 60 s cases
	echo "perf_data_kb=$(($(echo "$sizes" | bench_median) / 1024))"
	echo "file_kb_max=$(($(echo "$sizes" | tail -1) / 1024))"
	echo "rss_kb_70s=$first"
	echo "rss_kb_end=$last"
	echo "rss_kb_max=$max"
	local f lost=0 n records= stats
	echo "== --bpf-aggr -F 999 -a, ${CONT_SECS}s, a file per 60 s" >> "$BENCH_DETAIL"
	for f in "$dir"/perf.data.*; do
		stats=$(perf report -i "$f" --stats 2>/dev/null)
		n=$(echo "$stats" | awk '/LOST_SAMPLES events:/ { n = $3 } END { print n + 0 }')
		lost=$((lost + n))
		n=$(echo "$stats" | awk '/SAMPLE events:/ { print $3; exit }')
		records="$records $n"
		echo "$(basename "$f"): $(stat -c %s "$f") bytes, $n sample records," \
			"$(bench_sample_bytes "$f") bytes of them" >> "$BENCH_DETAIL"
	done
	echo "sample_records=$(echo "$records" | tr ' ' '\n' | grep . | bench_median)"
	echo "lost_samples=$lost"
	grep -v '^\[ perf record: Woken' "$dir/err" >> "$BENCH_DETAIL"
	echo "load_avg_after=$(cut -d' ' -f1 /proc/loadavg)"
	rm -rf "$dir"
}
export -f bench_sample_bytes bench_aggr_window bench_aggr_continuous

bench_case "record -g -a 999Hz 60s" "bench_aggr_window plain 60"
bench_case "--bpf-aggr -a 999Hz 60s" "bench_aggr_window aggr 60"
bench_case "--bpf-aggr -a 999Hz 10min, file per 60s" "bench_aggr_continuous"
