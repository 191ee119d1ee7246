#!/bin/bash
# perf report and perf script survive a corrupted perf.data
# SPDX-License-Identifier: GPL-2.0
#
# Record two small perf.data files, one of them with BPF programs loaded
# (perf record --off-cpu) so that it holds PERF_RECORD_KSYMBOL and
# PERF_RECORD_BPF_EVENT records and the BPF_PROG_INFO and BPF_BTF header
# features, then damage copies of them in fixed ways: truncations at
# several offsets, the file header, record headers, the records of BPF
# programs, the BPF_PROG_INFO feature, and bytes at places drawn with a
# fixed seed.  perf report --header and perf script read each copy: they
# may fail, with an error message, but neither may die by a signal or
# hang.  One line per copy, then a summary.

err=0
skipped=0
tmpdir=$(mktemp -d /tmp/__perf_test.data_fuzz.XXXXX)
trap 'rm -rf "${tmpdir}"' EXIT
trap 'exit 1' TERM INT

# skip_check WHAT WHY: a part of the test that cannot run here
skip_check() {
	echo "Skip: $1: $2"
	skipped=$((skipped + 1))
}

# the feature bits of the BPF programs' header sections (util/header.h)
HEADER_BPF_PROG_INFO=25
HEADER_BPF_BTF=26
# offsets in struct bpf_prog_info (include/uapi/linux/bpf.h)
INFO_NR_JITED_KSYMS=104
INFO_JITED_KSYMS=112
INFO_FUNC_INFO_REC_SIZE=132

# u64 FILE OFFSET: a little-endian value of the file
u64() {
	od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

# put FILE OFFSET BYTES VALUE: write VALUE little-endian in BYTES bytes
put() {
	local file=$1 off=$2 n=$3 v=$4 i hex=

	for ((i = 0; i < n; i++)); do
		hex="${hex}\\x$(printf '%02x' $(((v >> (8 * i)) & 0xff)))"
	done
	# shellcheck disable=SC2059
	printf "${hex}" | dd of="${file}" bs=1 seek="${off}" conv=notrunc status=none
}

# flip FILE OFFSET MASK: xor the byte at OFFSET with MASK
flip() {
	local b

	b=$(od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' ')
	[ -n "${b}" ] && put "$1" "$2" 1 $((b ^ $3))
}

# A fixed sequence of pseudo-random numbers (an LCG): the same places on
# every run, relative to the parts of the file they are drawn in.  rand
# sets r; called in $(...) it would not advance the seed.
seed=20261126
r=0
rand() {
	seed=$(((seed * 1103515245 + 12345) & 0x7fffffff))
	r=$((seed >> 8))
}

# record_offset DUMP TYPE [N]: the file offset of the first (Nth, or with
# N 0 the last) record of TYPE in DUMP, the 'perf report -D' of the
# undamaged file
record_offset() {
	local hex

	hex=$(awk -v t="$2" -v n="${3:-1}" '{
		for (i = 2; i <= NF; i++)
			if ($i ~ /^\[0x/ && index($(i + 1), t) == 1) {
				last = $(i - 1)
				if (--n == 0) { print last; exit }
			}
	} END { if (n < 0) print last }' "$1")
	[ -z "${hex}" ] || echo $((hex))
}

# feature_section FILE BIT: the offset and size of feature BIT's section,
# from the table of sections after the data (one per feature set, in
# order), or nothing if the file has no such feature
feature_section() {
	local file=$1 bit=$2 table idx=0 b byte

	table=$(($(u64 "${file}" 40) + $(u64 "${file}" 48)))
	byte=$(u64 "${file}" $((72 + bit / 64 * 8)))
	[ $(((byte >> (bit % 64)) & 1)) = 1 ] || return 0
	for ((b = 0; b < bit; b++)); do
		byte=$(u64 "${file}" $((72 + b / 64 * 8)))
		idx=$((idx + ((byte >> (b % 64)) & 1)))
	done
	echo "$(u64 "${file}" $((table + 16 * idx))) $(u64 "${file}" $((table + 16 * idx + 8)))"
}

# callchain_offset FILE: where the callchain of a sample of the first
# event of FILE starts: after the header and the fields before it
callchain_offset() {
	perf evlist -v -i "$1" 2>/dev/null | awk -F'sample_type: ' 'NR == 1 {
		split($2, t, ","); n = split(t[1], f, "|"); off = 8
		for (i = 1; i <= n; i++)
			if (f[i] ~ /^(IDENTIFIER|IP|TID|TIME|ADDR|ID|STREAM_ID|CPU|PERIOD)$/)
				off += 8
		print off
	}'
}

# a length read from a damaged file must not take the machine's memory;
# a build with AddressSanitizer reserves terabytes of address space for
# its shadow memory and cannot start under such a limit
vlimit=4194304
if ! (ulimit -v ${vlimit}; exec perf version) > /dev/null 2>&1; then
	echo "perf does not start with 4 GiB of address space (ASan?): no memory limit"
	vlimit=unlimited
fi

crashed=0
hung=0
silent=0
runs=0
mutations=0

# run NAME FILE CMD...: CMD reads FILE; a crash, a hang or a failure that
# says nothing is counted; prints what it did in a few characters
run() {
	local name=$1 file=$2 rc sig log="${tmpdir}/$1.err"

	shift 2
	runs=$((runs + 1))
	# (the braces keep bash's report of a signal out of the output)
	{ (ulimit -v ${vlimit}; exec timeout -k 5 30 perf "$@" -i "${file}") \
		> /dev/null 2> "${log}" < /dev/null; } 2> /dev/null
	rc=$?
	if [ ${rc} = 124 ] || [ ${rc} = 137 ]; then
		hung=$((hung + 1))
		echo -n " ${name}:HANG"
		echo "${file##*/}: perf $*: no end in 30 s" >> "${tmpdir}/failures"
	elif [ ${rc} -gt 128 ] && [ ${rc} -le 159 ]; then
		sig=$(kill -l $((rc - 128)) 2>/dev/null)
		crashed=$((crashed + 1))
		echo -n " ${name}:SIG${sig}"
		echo "${file##*/}: perf $*: killed by SIG${sig}: $(grep -v '^ *$' "${log}" |
			tail -1)" >> "${tmpdir}/failures"
	elif [ ${rc} != 0 ] && ! grep -q '[^[:space:]]' "${log}"; then
		silent=$((silent + 1))
		echo -n " ${name}:${rc}-silent"
		echo "${file##*/}: perf $*: exit ${rc} without a message" >> "${tmpdir}/failures"
	else
		echo -n " ${name}:${rc}"
	fi
}

# mutate ORIG NAME OP ARGS: a copy of ORIG damaged by 'OP COPY ARGS', read
# by each command
mutate() {
	local orig=$1 name=$2 op=$3 copy

	shift 3
	copy="${tmpdir}/$(basename "${orig}" .data)-${name}.data"
	cp "${orig}" "${copy}"
	"${op}" "${copy}" "$@"
	mutations=$((mutations + 1))
	printf '%-34s' "${copy##*/}"
	run report "${copy}" report --stdio --header
	run script "${copy}" script
	echo
	rm -f "${copy}"
}

# mutate_record ORIG DUMP TYPE N NAME OFFSET BYTES VALUE: a copy of ORIG
# with VALUE in BYTES bytes at OFFSET in its Nth record of TYPE (N 0: the
# last), found in DUMP
mutate_record() {
	local rec

	rec=$(record_offset "$2" "$3" "$4")
	if [ -z "${rec}" ]; then
		echo "$5: ${2##*/} has no $3 record"
		return
	fi
	mutate "$1" "$5" put $((rec + $6)) "$7" "$8"
}

truncate_at() {
	truncate -s "$2" "$1"
}

# no_features FILE [OP ARGS]: 'OP FILE ARGS', and no header features, so
# that nothing read from them stops perf before it reads the data
no_features() {
	local f=$1

	shift
	put "${f}" 72 8 0
	put "${f}" 80 8 0
	put "${f}" 88 8 0
	put "${f}" 96 8 0
	[ $# = 0 ] || "$1" "${f}" "${@:2}"
}

# flip_random FILE START LEN N: flip N bytes drawn in [START, START + LEN)
flip_random() {
	local i off

	for ((i = 0; i < $4; i++)); do
		rand
		off=$(($2 + r % $3))
		rand
		flip "$1" "${off}" $((r % 255 + 1))
	done
}

# the mutations of any perf.data: the file's layout, its records
fuzz_common() {
	local f=$1 dump=$2 size data_off data_size rec feat_off

	size=$(stat -c %s "${f}")
	data_off=$(u64 "${f}" 40)
	data_size=$(u64 "${f}" 48)
	feat_off=$((data_off + data_size))

	mutate "${f}" trunc-0 truncate_at 0
	mutate "${f}" trunc-magic truncate_at 8
	mutate "${f}" trunc-header truncate_at 104
	mutate "${f}" trunc-data truncate_at $((data_off + data_size / 2))
	mutate "${f}" trunc-features truncate_at $((feat_off + 8))
	mutate "${f}" trunc-last-feature truncate_at $((size - 16))
	mutate "${f}" hdr-magic flip 0 0x01
	mutate "${f}" hdr-attr-size put 16 8 0x1
	mutate "${f}" hdr-attrs-size put 32 8 0xffff
	mutate "${f}" hdr-data-offset put 40 8 $((size + 4096))
	mutate "${f}" hdr-data-size put 48 8 $((1 << 40))
	mutate "${f}" hdr-features put 72 8 0xffffffffffffffff
	mutate "${f}" hdr-no-features no_features
	mutate "${f}" data-past-eof no_features put 40 8 $((size + 4096))
	# the file ends at a page boundary within the data
	mutate "${f}" trunc-data-page no_features truncate_at \
		$(((data_off + data_size / 2) / 4096 * 4096))

	mutate_record "${f}" "${dump}" PERF_RECORD_SAMPLE 10 rec-size-0 6 2 0
	mutate_record "${f}" "${dump}" PERF_RECORD_SAMPLE 10 rec-size-4 6 2 4
	mutate_record "${f}" "${dump}" PERF_RECORD_SAMPLE 10 rec-size-max 6 2 0xfff8
	mutate_record "${f}" "${dump}" PERF_RECORD_SAMPLE 10 rec-type 0 4 0xfff
	mutate_record "${f}" "${dump}" PERF_RECORD_SAMPLE 10 sample-callchain \
		"$(callchain_offset "${f}")" 8 0xfffffff
	mutate_record "${f}" "${dump}" PERF_RECORD_ 0 rec-last-size-max 6 2 0xfff8
	# the filename after the header, pid, tid, addr, len, pgoff, maj,
	# min, ino, ino_generation, prot, flags
	mutate_record "${f}" "${dump}" PERF_RECORD_MMAP2 1 mmap2-filename 72 8 0x4141414141414141
	mutate_record "${f}" "${dump}" PERF_RECORD_COMM 1 comm-size 6 2 16

	mutate "${f}" random-data flip_random "${data_off}" "${data_size}" 8
	mutate "${f}" random-features flip_random "${feat_off}" $((size - feat_off)) 8
}

# the mutations of the records and header features of BPF programs
fuzz_bpf() {
	local f=$1 dump=$2 sec len off

	# type, flags, id after the header
	mutate_record "${f}" "${dump}" PERF_RECORD_BPF_EVENT 1 bpf-event-type 8 2 0xffff
	mutate_record "${f}" "${dump}" PERF_RECORD_BPF_EVENT 1 bpf-event-id 12 4 0xfffffff0
	# addr, len, ksym_type, flags, name after the header
	mutate_record "${f}" "${dump}" PERF_RECORD_KSYMBOL 1 ksymbol-len 16 4 0xffffffff
	mutate_record "${f}" "${dump}" PERF_RECORD_KSYMBOL 1 ksymbol-size 6 2 24

	# the section: count, then per program info_len, data_len, arrays
	# (one bit per array of the program in data), info, data
	read -r sec len < <(feature_section "${f}" ${HEADER_BPF_PROG_INFO})
	if [ -z "${sec}" ]; then
		skip_check "BPF_PROG_INFO mutations" "the perf.data has no BPF_PROG_INFO"
	else
		off=$((sec + 4 + 16))
		mutate "${f}" prog-info-random flip_random "${sec}" "${len}" 8
		mutate "${f}" prog-info-count put "${sec}" 4 0xfffffff
		mutate "${f}" prog-info-data-len put $((sec + 8)) 4 0xffffff00
		mutate "${f}" prog-info-arrays put $((sec + 12)) 8 0
		mutate "${f}" prog-info-nr-jited-ksyms \
			put $((off + INFO_NR_JITED_KSYMS)) 4 0xfffffff
		mutate "${f}" prog-info-jited-ksyms put $((off + INFO_JITED_KSYMS)) 8 0xfffffff0
		mutate "${f}" prog-info-func-info put $((off + INFO_FUNC_INFO_REC_SIZE)) 4 0
	fi
	read -r sec _ < <(feature_section "${f}" ${HEADER_BPF_BTF})
	if [ -n "${sec}" ]; then
		# count, then per BTF its id, data size and data
		mutate "${f}" btf-size put $((sec + 8)) 4 0xfffffff
		mutate "${f}" btf-data flip_random $((sec + 12)) 64 8
	fi
}

# the workload runs for 1 s; a sample each ms of CPU time, with callchains
cpu_data="${tmpdir}/cpu.data"
if ! perf record -o "${cpu_data}" -N -e cpu-clock -c 1000000 -g \
	-- perf test -w noploop 1 > /dev/null 2>&1; then
	echo "Skip: perf record -e cpu-clock failed"
	exit 2
fi
# --off-cpu loads BPF programs before perf record synthesizes the
# records of the programs there are (-F: 6.12 takes a -c period for its
# offcpu-time event as well, and refuses it)
bpf_data="${tmpdir}/bpf.data"
if ! perf record -o "${bpf_data}" -N --off-cpu -e cpu-clock -F 1000 -g \
	-- perf test -w noploop 1 > /dev/null 2>&1; then
	rm -f "${bpf_data}"
fi

for f in "${cpu_data}" "${bpf_data}"; do
	[ -f "${f}" ] || continue
	if ! perf report -D -i "${f}" > "${f}.dump" 2>&1; then
		echo "FAIL: perf report -D of the undamaged ${f##*/} failed"
		exit 1
	fi
done

echo "perf.data fuzzing, 'command:exit' per damaged copy"
fuzz_common "${cpu_data}" "${cpu_data}.dump"
if [ ! -f "${bpf_data}" ]; then
	skip_check "BPF program mutations" \
		"perf record --off-cpu failed (not root or no BPF skeletons)"
elif ! grep -q PERF_RECORD_BPF_EVENT "${bpf_data}.dump"; then
	skip_check "BPF program mutations" "perf record --off-cpu wrote no PERF_RECORD_BPF_EVENT"
else
	# the mutations of any perf.data were done on the first file
	fuzz_bpf "${bpf_data}" "${bpf_data}.dump"
fi

if [ -f "${tmpdir}/failures" ]; then
	cat "${tmpdir}/failures"
fi
echo "${mutations} damaged perf.data, ${runs} runs: ${crashed} killed by a signal," \
	"${hung} hung, ${silent} failed without a message"
if [ $((crashed + hung + silent)) != 0 ]; then
	echo "FAIL: perf must reject a damaged perf.data with a message"
	err=1
fi
[ "${err}" != 0 ] && exit 1
[ "${skipped}" != 0 ] && exit 2
exit 0
