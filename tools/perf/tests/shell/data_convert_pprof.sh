#!/bin/bash
# perf data convert --to-pprof matches perf report in go tool pprof
# SPDX-License-Identifier: GPL-2.0
#
# Record cpu_split, which spends 3/4 of its CPU time in split_heavy() and
# 1/4 in split_light() until it has had 2 s of CPU time (about 2000
# samples at 999 Hz), convert the perf.data to pprof and read it with
# 'go tool pprof', the format's reference reader: its number of samples,
# period and shares are perf report's on the same file, callee first also
# with call-graph.order=caller, and its time lies within the recording.
# The same from a pipe, and as root for perf record --bpf-aggr, whose
# records stand for many samples each, and for the offcpu-time samples of
# perf record --off-cpu. Errors are one clear line.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
check_setup pprof

# go keeps its caches under HOME; UTC for the profile's time
pprof() {
	HOME="${tmpdir}" TZ=UTC GOTOOLCHAIN=local GOPROXY=off \
		go tool pprof -symbolize=none "$@" 2>&1
}

if ! perf version --build-options | grep -q 'zlib: \[ on'; then
	echo "Skip: perf was built without zlib, no --to-pprof"
	exit 2
fi
if ! command -v go > /dev/null || ! pprof -h > /dev/null; then
	echo "Skip: no 'go tool pprof' (golang-go) to read the profiles"
	exit 2
fi

# "SAMPLES PERIOD" of event $2 in perf report of $1; perf report -n counts
# a --bpf-aggr record as the samples it stands for
report_counts() {
	perf report -i "$1" --stdio --no-children -n --sort comm -g none 2>/dev/null |
		awk -v ev="'$2'" '/^# Samples:/ { cur = $NF }
			cur == ev && /^# Event count/ { period = $NF }
			cur == ev && !/^#/ && NF { n += $2 }
			END { print n + 0, period }'
}

# "Total samples" of value type $2 in profile $1, in ns for times
pprof_total() {
	pprof -top -unit=ns -sample_index="$2" "$1" |
		sed -n 's/.*Total samples = \([0-9]*\).*/\1/p'
}

# the value types of profile $1, the default one marked [dflt]
pprof_types() {
	pprof -raw "$1" | sed -n '/^Samples:$/ { n; p; q }'
}

# convert DATA PROFILE [ARGS]: perf data convert --to-pprof, a FAIL if not
convert() {
	if ! perf data convert -i "$1" --to-pprof "$2" "${@:3}" > "${tmpdir}/convert.err" 2>&1; then
		echo "FAIL: perf data convert -i $1 --to-pprof ${*:3} failed:"
		cat "${tmpdir}/convert.err"
		err=1
		return 1
	fi
}

# check_counts WHAT DATA PROFILE EVENT FLOOR SAMPLES-TYPE PERIOD-TYPE:
# perf report's samples of EVENT, at least FLOOR, in ${nr}, and their
# period are the profile's totals of the two value types
check_counts() {
	local period

	read -r nr period <<< "$(report_counts "$2" "$4")"
	expect_min_count "$1: perf report's samples" "$5" "${nr}" || return
	expect_count "$1: pprof -sample_index=$6" "${nr}" "$(pprof_total "$3" "$6")"
	expect_count "$1: pprof -sample_index=$7 in ns" "${period}" "$(pprof_total "$3" "$7")"
}

# check_shares WHAT DATA PROFILE: pprof's flat% of cpu time of split_heavy
# and split_light are perf report's shares (to its rounding), about 3:1
check_shares() {
	local perf_heavy perf_light heavy light

	{ read -r perf_heavy; read -r perf_light; } < <(symbol_shares "$2" split_heavy split_light)
	read -r heavy light < <(pprof -top -sample_index=cpu "$3" |
		awk '$NF == "split_heavy" { h = $2 } $NF == "split_light" { l = $2 }
		     END { print h + 0, l + 0 }')
	if awk -v a="${perf_heavy}" -v b="${heavy}" -v c="${perf_light}" -v d="${light}" \
		'function near(x, y) { return x - y <= 0.01 && y - x <= 0.01 }
		 BEGIN { exit !(near(a, b) && near(c, d)) }'; then
		echo "ok: $1: pprof's flat% of split_heavy ${heavy}, split_light ${light}" \
		     "are perf report's"
	else
		echo "FAIL: $1: pprof's flat% of split_heavy ${heavy}, split_light ${light};" \
		     "perf report ${perf_heavy:-none}%, ${perf_light:-none}%"
		err=1
	fi
	expect_split "$1: pprof" "${heavy}" "${light}"
}

# record_timed ARGS: perf record ARGS, the wall-clock time before and after
# in ${pre} and ${post}, its messages in ${tmpdir}/record.err
record_timed() {
	pre=$(date +%s.%N)
	if ! perf record "$@" > "${tmpdir}/record.err" 2>&1; then
		echo "FAIL: perf record $* failed:"
		cat "${tmpdir}/record.err"
		err=1
		return 1
	fi
	post=$(date +%s.%N)
}

# check_time WHAT PROFILE MIN: the profile lies between ${pre} and ${post}
# and lasts at least MIN s (pprof prints hundredths of a second)
check_time() {
	local start duration

	pprof -raw "$2" > "${tmpdir}/raw"
	start=$(date -d "$(awk '/^Time:/ { print $2, $3, $4; exit }' "${tmpdir}/raw")" +%s.%N)
	duration=$(awk '/^Duration:/ { print $2; exit }' "${tmpdir}/raw")
	if awk -v s="${start}" -v d="${duration}" -v pre="${pre}" -v post="${post}" -v min="$3" \
		'BEGIN { exit !(s != "" && d >= min && s >= pre && s + d <= post + 0.01) }'; then
		echo "ok: $1: the profile's ${duration} s lie within perf record's run"
	else
		echo "FAIL: $1: the profile starts at ${start:-none}, lasts ${duration:-none} s;" \
		     "perf record ran from ${pre} to ${post}, expected at least $3 s"
		err=1
	fi
}

data=${tmpdir}/perf.data
profile=${tmpdir}/perf.pb.gz
record_timed -e cpu-clock -F 999 -g -o "${data}" -- perf test -w cpu_split 2 1 cpu || check_exit
convert "${data}" "${profile}" || check_exit
check_counts "perf record -g" "${data}" "${profile}" cpu-clock 1500 samples cpu
expect_count "value types" "samples/count cpu/nanoseconds[dflt]" "$(pprof_types "${profile}")"
expect_count "samples labelled" "comm:${nr} pid:${nr} tid:${nr}" \
	"$(pprof -tags -sample_index=samples "${profile}" |
	   awk '/: Total/ { printf "%s%s%d", sep, $1, $3; sep = " " }')"
check_shares "perf record -g" "${data}" "${profile}"
check_time "perf record -g" "${profile}" 1.9

# pprof wants the leaf first, whatever perf config says
printf '[call-graph]\n\torder = caller\n' > "${tmpdir}/perfconfig"
expect_count "PERF_CONFIG's call-graph.order" call-graph.order=caller \
	"$(PERF_CONFIG="${tmpdir}/perfconfig" perf config call-graph.order)"
PERF_CONFIG="${tmpdir}/perfconfig" convert "${data}" "${tmpdir}/caller.pb.gz" &&
	check_shares "call-graph.order=caller" "${data}" "${tmpdir}/caller.pb.gz"

# From a pipe, 1 s of CPU time: the perf.data comes as events
pipe_test() {
	pre=$(date +%s.%N)
	if ! perf record -e cpu-clock -F 999 -g -o - -- perf test -w cpu_split 1 1 cpu \
			2> /dev/null | tee "${tmpdir}/pipe.data" |
			perf data convert -i - --to-pprof "${tmpdir}/pipe.pb.gz" \
			> "${tmpdir}/convert.err" 2>&1; then
		echo "FAIL: perf record -o - | perf data convert -i - --to-pprof failed:"
		cat "${tmpdir}/convert.err"
		err=1
		return
	fi
	post=$(date +%s.%N)
	check_counts "pipe" "${tmpdir}/pipe.data" "${tmpdir}/pipe.pb.gz" cpu-clock 750 \
		samples cpu
	check_shares "pipe" "${tmpdir}/pipe.data" "${tmpdir}/pipe.pb.gz"
	check_time "pipe" "${tmpdir}/pipe.pb.gz" 0.9
}
pipe_test

# perf record --bpf-aggr writes one record per stack, its weight the
# samples counted for it
bpf_aggr_test() {
	local aggr_data=${tmpdir}/aggr.data aggr=${tmpdir}/aggr.pb.gz records

	record_timed --bpf-aggr -e cpu-clock -F 999 -g -o "${aggr_data}" -- \
		perf test -w cpu_split 2 1 cpu || return
	convert "${aggr_data}" "${aggr}" || return
	records=$(perf script -i "${aggr_data}" -F period 2>/dev/null | wc -l)
	check_counts "--bpf-aggr (${records} records)" "${aggr_data}" "${aggr}" cpu-clock 1500 \
		samples cpu
	if [ "${records}" -ge "${nr}" ]; then
		echo "FAIL: --bpf-aggr wrote ${records} records for ${nr} samples"
		err=1
	fi
	check_shares "--bpf-aggr" "${aggr_data}" "${aggr}"
	check_time "--bpf-aggr" "${aggr}" 1.9
}

# perf record --off-cpu: two sleeps of 600 ms, written as they end, and ten
# of 20 ms, below the threshold, summed into records at the end of the
# session with a made-up time the profile's time must not take
offcpu_test() {
	local offcpu_data=${tmpdir}/offcpu.data offcpu=${tmpdir}/offcpu.pb.gz

	record_timed --off-cpu -e cpu-clock -F 999 -g -o "${offcpu_data}" -- \
		perf test -w sleeper 600 2 20 10 || return
	convert "${offcpu_data}" "${offcpu}" || return
	expect_count "--off-cpu value types" "cpu-clock-samples/count cpu/nanoseconds[dflt]\
 offcpu-time-samples/count off-cpu/nanoseconds" "$(pprof_types "${offcpu}")"
	check_counts "--off-cpu" "${offcpu_data}" "${offcpu}" offcpu-time 3 \
		offcpu-time-samples off-cpu
	expect_min_count "--off-cpu: pprof's off-cpu ns" 1200000000 \
		"$(pprof_total "${offcpu}" off-cpu)"
	check_time "--off-cpu" "${offcpu}" 0.6
}

if why=$(bpf_skel_missing --bpf-aggr); then
	skip_check "--bpf-aggr and --off-cpu profiles" "${why#Skip: }"
else
	bpf_aggr_test
	offcpu_test
fi

# errors: one line that says why, no output file left behind
convert_fails() {
	local pattern=$1 out=$2

	shift 2
	if perf data convert "$@" --to-pprof "${out}" > "${tmpdir}/fail.err" 2>&1; then
		echo "FAIL: perf data convert $* --to-pprof succeeded"
		err=1
	elif [ "$(wc -l < "${tmpdir}/fail.err")" != 1 ] ||
	     ! grep -q "${pattern}" "${tmpdir}/fail.err"; then
		echo "FAIL: perf data convert $* --to-pprof does not say '${pattern}' in one line:"
		cat "${tmpdir}/fail.err"
		err=1
	else
		echo "ok: perf data convert $* --to-pprof: $(cat "${tmpdir}/fail.err")"
	fi
}

convert_fails "No such file" "${tmpdir}/failed.pb.gz" -i "${tmpdir}/missing.data"
convert_fails "not supported" "${tmpdir}/failed.pb.gz" -i "${data}" --tod
expect_count "files left by the failed conversions" 0 \
	"$(find "${tmpdir}" -name failed.pb.gz | wc -l)"
convert_fails "exists, use --force" "${profile}" -i "${data}"
: > "${tmpdir}/caller.pb.gz"
convert "${data}" "${tmpdir}/caller.pb.gz" --force &&
	expect_count "pprof samples after --force" "$(pprof_total "${profile}" samples)" \
	"$(pprof_total "${tmpdir}/caller.pb.gz" samples)"
check_exit
