#!/bin/bash
# perf data convert --to-pprof matches perf report in go tool pprof
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split spends 3/4 of its CPU time in split_heavy() and 1/4 in
# split_light(). Record it, convert the perf.data to pprof and check that
# 'go tool pprof', the reference reader of the format, shows the shares
# perf report shows and exactly the same total period and number of
# samples, also when perf.data comes through a pipe. As root with BPF
# skeletons, do the same for the offcpu-time samples of perf record
# --off-cpu. Errors must be clear: no input, an empty input, an output
# that exists.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154

set -e

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup pprof

if ! perf version --build-options | grep -q 'libprotobuf-c: \[ on'; then
	echo "Skip: perf was built without libprotobuf-c, no --to-pprof"
	exit 2
fi
if ! go tool pprof -h > /dev/null 2>&1; then
	echo "FAIL: 'go tool pprof' (golang-go) is needed to read the profiles"
	exit 1
fi

# go keeps its caches under HOME; perf's build-id cache must stay where it is
pprof() {
	mkdir -p "${tmpdir}/home"
	HOME="${tmpdir}/home" GOCACHE="${tmpdir}/gocache" GOPATH="${tmpdir}/gopath" \
		GOTOOLCHAIN=local GOPROXY=off go tool pprof -symbolize=none "$@" 2>&1
}

# "Total samples = N" of the value type $2 in pprof profile $1, in ns for times
pprof_total() {
	pprof -top -unit=ns -sample_index="$2" "$1" |
		awk '/Total samples =/ { sub(/.*Total samples = /, ""); sub(/ns.*/, "");
					 sub(/ .*/, ""); print; exit }'
}

# flat% of symbol $3 for value type $2 in pprof profile $1
pprof_share() {
	pprof -top -nodecount=100 -sample_index="$2" "$1" |
		awk -v sym="$3" '$NF == sym { sub("%", "", $2); print $2; exit }'
}

# percentage of the period of the samples with symbol $2 as the leaf
report_share() {
	perf report -i "$1" --stdio --no-children -g none --sort sym 2>/dev/null |
		awk -v sym="$2" '$NF == sym { sub("%", "", $1); print $1; exit }'
}

# number and period sum of the samples of event $2
script_total() {
	perf script -i "$1" -F event,period 2>/dev/null |
		awk -v ev="$2:" '$2 == ev { n++; sum += $1 } END { printf "%d %.0f\n", n, sum }'
}

data=${tmpdir}/cpu_split.data
profile=${tmpdir}/cpu_split.pb.gz
if ! perf record -e cpu-clock -F 999 -g -o "${data}" -- perf test -w cpu_split 2 1 \
		> "${tmpdir}/record.err" 2>&1; then
	echo "perf record failed:"
	cat "${tmpdir}/record.err"
	exit 1
fi
if ! perf data convert -i "${data}" --to-pprof "${profile}" > "${tmpdir}/convert.err" 2>&1; then
	echo "FAIL: perf data convert --to-pprof failed:"
	cat "${tmpdir}/convert.err"
	exit 1
fi
if ! gzip -t "${profile}"; then
	echo "FAIL: ${profile} is not gzip-compressed"
	err=1
fi

report_total=$(perf report -i "${data}" --stdio 2>/dev/null |
	awk '/^# Event count/ { print $NF; exit }')
read -r script_nr script_period <<< "$(script_total "${data}" cpu-clock)"
pprof_period=$(pprof_total "${profile}" cpu)
pprof_nr=$(pprof_total "${profile}" samples)
echo "total period: perf report ${report_total}, perf script ${script_period}," \
	"pprof ${pprof_period}"
echo "samples: perf script ${script_nr}, pprof ${pprof_nr}"
if [ "${script_nr}" -lt 100 ] || [ "${pprof_period}" != "${report_total}" ] ||
   [ "${pprof_period}" != "${script_period}" ] || [ "${pprof_nr}" != "${script_nr}" ]; then
	echo "FAIL: pprof's total period or sample count is not perf's, or too few samples"
	pprof -top -sample_index=cpu "${profile}" | head -20
	err=1
fi

# perf report and pprof agree on the shares within 2 points; split_heavy
# has about three times the share of split_light
shares=""
for sym in split_heavy split_light; do
	perf_share=$(report_share "${data}" ${sym})
	pprof_share=$(pprof_share "${profile}" cpu ${sym})
	echo "${sym}: perf report ${perf_share:=0}%, pprof ${pprof_share:=0}%"
	if ! awk -v a="${perf_share}" -v b="${pprof_share}" \
		'BEGIN { d = a - b; exit !(a > 0 && d < 2 && d > -2) }'; then
		echo "FAIL: the shares of ${sym} differ by 2 points or more, or are 0"
		err=1
	fi
	shares="${shares} ${pprof_share}"
done
read -r heavy light <<< "${shares}"
if ! awk -v h="${heavy}" -v l="${light}" 'BEGIN { exit !(h > 2 * l) }'; then
	echo "FAIL: pprof does not show split_heavy with about 3 times split_light's share"
	err=1
fi

# every sample has its thread's labels
pprof -tags "${profile}" > "${tmpdir}/tags"
if ! grep -q "^ *comm: " "${tmpdir}/tags" || ! grep -q "): perf$" "${tmpdir}/tags" ||
   ! grep -q "^ *pid: " "${tmpdir}/tags" || ! grep -q "^ *tid: " "${tmpdir}/tags"; then
	echo "FAIL: the samples have no comm, pid or tid labels:"
	head -20 "${tmpdir}/tags"
	err=1
fi

# from a pipe: perf record -o - | perf data convert -i -
pipe_data=${tmpdir}/pipe.data
if ! perf record -e cpu-clock -F 999 -g -o - -- perf test -w cpu_split 1 1 2> /dev/null |
		tee "${pipe_data}" |
		perf data convert -i - --to-pprof "${tmpdir}/pipe.pb.gz" \
		> "${tmpdir}/convert.err" 2>&1; then
	echo "FAIL: perf data convert -i - --to-pprof failed:"
	cat "${tmpdir}/convert.err"
	err=1
else
	read -r script_nr script_period <<< "$(script_total "${pipe_data}" cpu-clock)"
	pprof_period=$(pprof_total "${tmpdir}/pipe.pb.gz" cpu)
	echo "pipe: perf script ${script_nr} samples ${script_period} ns, pprof ${pprof_period} ns"
	if [ "${script_nr}" -lt 100 ] || [ "${pprof_period}" != "${script_period}" ]; then
		echo "FAIL: the profile of a pipe has not the period of its samples, or too few"
		err=1
	fi
fi

# perf record --off-cpu: offcpu-time samples have off-CPU time as period
offcpu_test() {
	local offcpu_data=${tmpdir}/offcpu.data offcpu=${tmpdir}/offcpu.pb.gz
	local nr period pprof_period pprof_nr

	# two sleeps above the default threshold, written when they end, ten
	# below it, aggregated and written at the end of the session
	if ! perf record --off-cpu -e cpu-clock -F 999 -g -o "${offcpu_data}" -- \
			perf test -w sleeper 600 2 20 10 > "${tmpdir}/offcpu.err" 2>&1; then
		echo "perf record --off-cpu failed:"
		cat "${tmpdir}/offcpu.err"
		err=1
		return
	fi
	if ! perf data convert -i "${offcpu_data}" --to-pprof "${offcpu}" \
			> "${tmpdir}/convert.err" 2>&1; then
		echo "FAIL: perf data convert --to-pprof failed on an --off-cpu recording:"
		cat "${tmpdir}/convert.err"
		err=1
		return
	fi
	read -r nr period <<< "$(script_total "${offcpu_data}" offcpu-time)"
	pprof_period=$(pprof_total "${offcpu}" off-cpu)
	pprof_nr=$(pprof_total "${offcpu}" offcpu-time-samples)
	echo "off-cpu: perf script ${nr} samples ${period} ns," \
		"pprof ${pprof_nr} samples ${pprof_period} ns"
	if [ "${nr}" -lt 3 ] || [ "${period}" -lt 1200000000 ] ||
	   [ "${pprof_period}" != "${period}" ] || [ "${pprof_nr}" != "${nr}" ]; then
		echo "FAIL: pprof's off-cpu samples or time differ from perf's, or are too few"
		err=1
	fi
	if ! pprof -top -sample_index=off-cpu "${offcpu}" | grep -q " sleeper_nap$"; then
		echo "FAIL: pprof shows no off-cpu time in sleeper_nap:"
		pprof -top -sample_index=off-cpu "${offcpu}" | head -20
		err=1
	fi
}

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --off-cpu > "${tmpdir}/offcpu.skip"; then
	echo "not testing --off-cpu recordings: $(cat "${tmpdir}/offcpu.skip")"
else
	offcpu_test
fi

# errors: one clear line, no output file left behind
convert_fails() {
	local what=$1 pattern=$2 out=$3

	shift 3
	if perf data convert "$@" --to-pprof "${out}" > "${tmpdir}/fail.err" 2>&1; then
		echo "FAIL: --to-pprof of ${what} succeeded"
		err=1
	elif ! grep -q "${pattern}" "${tmpdir}/fail.err"; then
		echo "FAIL: --to-pprof of ${what} does not say '${pattern}':"
		cat "${tmpdir}/fail.err"
		err=1
	fi
}

convert_fails "a missing input" "No such file" "${tmpdir}/missing.pb.gz" \
	-i "${tmpdir}/missing.data"
: > "${tmpdir}/empty.data"
convert_fails "an empty input" "zero-sized" "${tmpdir}/empty.pb.gz" -i "${tmpdir}/empty.data"
if [ -e "${tmpdir}/missing.pb.gz" ] || [ -e "${tmpdir}/empty.pb.gz" ]; then
	echo "FAIL: a failed conversion left an output file"
	err=1
fi
convert_fails "an existing output without --force" "exists" "${profile}" -i "${data}"
if ! perf data convert -i "${data}" --to-pprof "${profile}" --force > /dev/null 2>&1; then
	echo "FAIL: --force does not overwrite an existing output"
	err=1
fi
exit ${err}
