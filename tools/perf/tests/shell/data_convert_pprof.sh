#!/bin/bash
# perf data convert --to-pprof matches perf report in go tool pprof
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split spends 3/4 of its CPU time in split_heavy() and 1/4 in
# split_light(); 'cpu_split 2 1 cpu' runs until it has had 2 s of CPU
# time, about 2000 samples at 999 Hz. Record it, convert the perf.data to
# pprof and check what 'go tool pprof', the reference reader of the
# format, shows for both value types (samples and cpu): the number of
# samples and the total period perf has, the shares perf report shows,
# callee first also when perfconfig says call-graph.order=caller, the
# duration and start time of the recording, and one mapping per binary.
# The same for perf record --bpf-aggr, whose records each stand for many
# samples, for a pipe, and as root with BPF skeletons for the offcpu-time
# samples of perf record --off-cpu. Errors must be clear: no input, an
# empty input, an output that exists. perf writes pprof with its own
# encoder: it links no protobuf library.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154

# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup pprof

if ! perf version --build-options | grep -q 'zlib: \[ on'; then
	echo "Skip: perf was built without zlib, no --to-pprof"
	exit 2
fi
if ! go tool pprof -h > /dev/null 2>&1; then
	echo "Skip: no 'go tool pprof' (golang-go) to read the profiles"
	exit 2
fi

# Floors from the workload: 2 s of CPU time at 999 Hz, less what the kernel
# and a late timer tick take
min_samples=1500

perf_bin=$(command -v perf)
if ldd "${perf_bin}" | grep -i protobuf; then
	echo "FAIL: ${perf_bin} links a protobuf library"
	err=1
else
	echo "ok: ${perf_bin} links no protobuf library"
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

# "START DURATION" of pprof profile $1: its time_nanos as seconds since the
# epoch, its duration_nanos in seconds
pprof_time() {
	local start duration

	start=$(pprof -raw "$1" | sed -n 's/^Time: \([0-9-]* [0-9:.]*\) .*/\1/p')
	duration=$(pprof -raw "$1" | sed -n 's/^Duration: //p')
	if [ -n "${start}" ]; then
		start=$(date -u -d "${start} UTC" +%s.%N)
	fi
	echo "${start:-none} ${duration:-none}"
}

# The file name of each mapping of pprof profile $1, as the file has them:
# go tool pprof merges mappings of the same file and size when it reads a
# profile, other readers do not. Decodes the protobuf wire format: the
# mappings are field 3 of the Profile, their file name field 5, an index
# into the string table, field 6.
raw_mapping_files() {
	python3 - "$1" <<'PYEOF'
import gzip
import sys

def varint(buf, i):
    val = shift = 0
    while True:
        byte = buf[i]
        i += 1
        val |= (byte & 0x7f) << shift
        shift += 7
        if byte < 0x80:
            return val, i

def fields(buf):
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        if key & 7 == 0:
            val, i = varint(buf, i)
        elif key & 7 == 2:
            size, i = varint(buf, i)
            val = buf[i:i + size]
            i += size
        else:
            sys.exit("unexpected wire type %d" % (key & 7))
        yield key >> 3, val

profile = gzip.open(sys.argv[1]).read()
strings = [val.decode() for field, val in fields(profile) if field == 6]
for field, val in fields(profile):
    if field == 3:
        print(strings[dict(fields(val)).get(5, 0)])
PYEOF
}

# number and period sum of the samples of event $2
script_total() {
	perf script -i "$1" -F event,period 2>/dev/null |
		awk -v ev="$2:" '$2 == ev { n++; sum += $1 } END { printf "%d %.0f\n", n, sum }'
}

# the workload between two wall-clock times, for the time of the profile:
# sh -c "${timed_cpu_split}" sh SEC START-FILE END-FILE
# shellcheck disable=SC2016
timed_cpu_split='date +%s.%N > "$2"; perf test -w cpu_split "$1" 1 cpu; date +%s.%N > "$3"'

# timed_record ERR-FILE ARGS...: perf record ARGS of cpu_split running 2 s
# on a CPU, its messages in ERR-FILE; the wall-clock times perf record and
# the workload started and ended at in ${tmpdir}/{pre,start,end,post}
timed_record() {
	local err_file=$1 rc

	shift
	date +%s.%N > "${tmpdir}/pre"
	perf record "$@" -- sh -c "${timed_cpu_split}" sh 2 "${tmpdir}/start" "${tmpdir}/end" \
		> "${err_file}" 2>&1
	rc=$?
	date +%s.%N > "${tmpdir}/post"
	return ${rc}
}

# The profile $2 of a timed_record has the wall-clock time and duration of
# the recording: it lies within perf record's run and lasts at least 90% of
# the workload's.  Its start is perf record's clock reference (-k,
# --bpf-aggr), taken before perf forks the workload, so it starts before
# the workload; or else it ends when perf.data ($3) was last written and
# starts its duration (first to last sample) before.  pprof prints the
# duration in hundredths of a second.
check_time() {
	local what=$1 start duration mtime=""

	read -r start duration <<< "$(pprof_time "$2")"
	if [ -n "${3:-}" ]; then
		mtime=$(date -r "$3" +%s.%N)
	fi
	if ! awk -v s="${start}" -v d="${duration}" -v mt="${mtime}" \
		 -v pre="$(cat "${tmpdir}/pre")" -v ws="$(cat "${tmpdir}/start")" \
		 -v we="$(cat "${tmpdir}/end")" -v post="$(cat "${tmpdir}/post")" -v what="${what}" '
		BEGIN { e = s + d
			ok = s ~ /^[0-9.]+$/ && d ~ /^[0-9.]+$/ && s >= pre && e <= post + 0.01 &&
			     d >= 0.9 * (we - ws)
			if (mt != "")
				ok = ok && e >= mt - 0.01 && e <= mt + 0.01
			else
				ok = ok && s <= ws
			printf "%s: %s: the profile spans %.3f to %.3f s of the workload'"'"'s 0 to %.3f s, " \
			       "perf record ran from %.3f to %.3f s%s\n", ok ? "ok" : "FAIL", what,
			       s - ws, e - ws, we - ws, pre - ws, post - ws,
			       mt != "" ? sprintf(", perf.data written at %.3f s", mt - ws) : ""
			exit !ok }'; then
		err=1
	fi
}

data=${tmpdir}/cpu_split.data
profile=${tmpdir}/cpu_split.pb.gz
if ! timed_record "${tmpdir}/record.err" -e cpu-clock -F 999 -g -o "${data}"; then
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
expect_min_count "samples of cpu_split" ${min_samples} "${script_nr}"
expect_count "pprof samples (-sample_index=samples)" "${script_nr}" \
	"$(pprof_total "${profile}" samples)"
expect_count "pprof cpu time (-sample_index=cpu) = perf script's sum of periods" \
	"${script_period}" "$(pprof_total "${profile}" cpu)"
expect_count "pprof cpu time = perf report's event count" "${report_total}" \
	"$(pprof_total "${profile}" cpu)"
if ! pprof -raw "${profile}" | grep -q '^samples/count cpu/nanoseconds\[dflt\]$'; then
	echo "FAIL: cpu is not the default value type of the profile"
	err=1
fi
check_time "plain recording" "${profile}" "${data}"

# perf report and pprof agree on the shares within 2 points, for both
# value types
shares=""
read -r perf_heavy perf_light < <(symbol_shares "${data}" split_heavy split_light | xargs)
for index in cpu samples; do
	heavy=$(pprof_share "${profile}" ${index} split_heavy)
	light=$(pprof_share "${profile}" ${index} split_light)
	echo "-sample_index=${index}: split_heavy ${heavy}%, split_light ${light}%;" \
	     "perf report ${perf_heavy}%, ${perf_light}%"
	if ! awk -v a="${perf_heavy}" -v b="${heavy}" -v c="${perf_light}" -v d="${light}" \
		'BEGIN { exit !(b > 0 && d > 0 && a - b < 2 && b - a < 2 &&
				c - d < 2 && d - c < 2) }'; then
		echo "FAIL: the shares of -sample_index=${index} differ by 2 points or more" \
		     "from perf report's, or are 0"
		err=1
	fi
	expect_split "pprof -sample_index=${index}" "${heavy}" "${light}"
done
plain_part=$(split_part "$(pprof_share "${profile}" cpu split_heavy)" \
			"$(pprof_share "${profile}" cpu split_light)")

# pprof wants the leaf first: a perfconfig with call-graph.order=caller,
# which perf report follows, changes nothing
printf '[call-graph]\n\torder = caller\n' > "${tmpdir}/perfconfig"
expect_count "perf config call-graph.order of the test's PERF_CONFIG" call-graph.order=caller \
	"$(PERF_CONFIG="${tmpdir}/perfconfig" perf config call-graph.order)"
if ! PERF_CONFIG="${tmpdir}/perfconfig" perf data convert -i "${data}" \
		--to-pprof "${tmpdir}/caller.pb.gz" > "${tmpdir}/convert.err" 2>&1; then
	echo "FAIL: perf data convert --to-pprof failed with call-graph.order=caller:"
	cat "${tmpdir}/convert.err"
	err=1
fi
heavy=$(pprof_share "${profile}" cpu split_heavy)
expect_min "split_heavy's own share (flat%) with call-graph.order=caller" 50 \
	"$(pprof_share "${tmpdir}/caller.pb.gz" cpu split_heavy)" &&
	expect_count "split_heavy's flat% with call-graph.order=caller" "${heavy}" \
	"$(pprof_share "${tmpdir}/caller.pb.gz" cpu split_heavy)"

# every sample has its thread's labels
pprof -tags "${profile}" > "${tmpdir}/tags"
if ! grep -q "^ *comm: " "${tmpdir}/tags" || ! grep -q "): perf$" "${tmpdir}/tags" ||
   ! grep -q "^ *pid: " "${tmpdir}/tags" || ! grep -q "^ *tid: " "${tmpdir}/tags"; then
	echo "FAIL: the samples have no comm, pid or tid labels:"
	head -20 "${tmpdir}/tags"
	err=1
fi

# From a pipe: perf record -o - | perf data convert -i -. Two processes of
# the same binaries: one mapping per binary, not per process.
pipe_data=${tmpdir}/pipe.data
if ! perf record -e cpu-clock -F 999 -g -o - -- \
		sh -c 'perf test -w cpu_split 1 1 cpu & perf test -w cpu_split 1 1 cpu; wait' \
		2> /dev/null | tee "${pipe_data}" |
		perf data convert -i - --to-pprof "${tmpdir}/pipe.pb.gz" \
		> "${tmpdir}/convert.err" 2>&1; then
	echo "FAIL: perf data convert -i - --to-pprof failed:"
	cat "${tmpdir}/convert.err"
	err=1
else
	read -r script_nr script_period <<< "$(script_total "${pipe_data}" cpu-clock)"
	expect_min_count "samples of two cpu_split from a pipe" ${min_samples} "${script_nr}"
	expect_count "pprof samples of a pipe" "${script_nr}" \
		"$(pprof_total "${tmpdir}/pipe.pb.gz" samples)"
	expect_count "pprof cpu time of a pipe" "${script_period}" \
		"$(pprof_total "${tmpdir}/pipe.pb.gz" cpu)"
	pprof -tags "${tmpdir}/pipe.pb.gz" > "${tmpdir}/tags"
	expect_min_count "pids of the pipe's profile" 2 \
		"$(sed -n '/^ *pid: /,/^ *[a-z]*: /p' "${tmpdir}/tags" | grep -c '): [0-9]*$')"
	raw_mapping_files "${tmpdir}/pipe.pb.gz" > "${tmpdir}/mappings"
	expect_count "mappings of ${perf_bin}" 1 \
		"$(grep -c -x "$(readlink -f "${perf_bin}")" "${tmpdir}/mappings")"
	expect_count "mappings of the same file" 0 \
		"$(sort "${tmpdir}/mappings" | uniq -d | wc -l)"
fi

# perf record --bpf-aggr writes one record per stack: its samples are the
# ones counted in BPF, and those it could not aggregate (a stack map
# collision), written as plain samples; the shares the same as without
# --bpf-aggr
bpf_aggr_test() {
	local aggr_data=${tmpdir}/aggr.data aggr=${tmpdir}/aggr.pb.gz
	local counted plain records period heavy light index

	if ! timed_record "${tmpdir}/aggr.err" --bpf-aggr -e cpu-clock -F 999 -g \
			-o "${aggr_data}"; then
		echo "perf record --bpf-aggr failed:"
		cat "${tmpdir}/aggr.err"
		err=1
		return
	fi
	counted=$(sed -n 's/.*--bpf-aggr counted \([0-9]*\) samples.*/\1/p' "${tmpdir}/aggr.err")
	plain=$(sed -n 's/.*--bpf-aggr: \([0-9]*\) samples not aggregated.*/\1/p' "${tmpdir}/aggr.err")
	if ! perf data convert -i "${aggr_data}" --to-pprof "${aggr}" \
			> "${tmpdir}/convert.err" 2>&1; then
		echo "FAIL: perf data convert --to-pprof failed on a --bpf-aggr recording:"
		cat "${tmpdir}/convert.err"
		err=1
		return
	fi
	read -r records period <<< "$(script_total "${aggr_data}" cpu-clock)"
	echo "--bpf-aggr: ${counted} samples counted in BPF, ${plain:-0} not, ${records} records"
	expect_min_count "samples counted by --bpf-aggr" ${min_samples} "${counted}"
	if [ "${records}" -ge "${counted}" ]; then
		echo "FAIL: --bpf-aggr wrote ${records} records for ${counted} samples"
		err=1
	fi
	expect_count "pprof samples of --bpf-aggr (-sample_index=samples)" "$((counted + ${plain:-0}))" \
		"$(pprof_total "${aggr}" samples)"
	expect_count "pprof cpu time of --bpf-aggr" "${period}" "$(pprof_total "${aggr}" cpu)"
	check_time "--bpf-aggr recording" "${aggr}"
	for index in cpu samples; do
		heavy=$(pprof_share "${aggr}" ${index} split_heavy)
		light=$(pprof_share "${aggr}" ${index} split_light)
		expect_split "--bpf-aggr -sample_index=${index}" "${heavy}" "${light}"
		# two processes, each profile within 4 points of its mean
		if ! awk -v a="$(split_part "${heavy}" "${light}")" -v b="${plain_part}" \
		     'BEGIN { exit !(a != "" && b != "" && a - b < 8 && b - a < 8) }'; then
			echo "FAIL: --bpf-aggr -sample_index=${index}: split_heavy is" \
			     "$(split_part "${heavy}" "${light}")% of the two, ${plain_part}%" \
			     "without --bpf-aggr"
			err=1
		fi
	done
}

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
if bpf_skel_missing --bpf-aggr > "${tmpdir}/bpf.skip"; then
	echo "not testing --bpf-aggr and --off-cpu recordings: $(cat "${tmpdir}/bpf.skip")"
else
	bpf_aggr_test
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
check_exit
