#!/bin/bash
# perf report -n counts the samples of perf record --bpf-aggr
# SPDX-License-Identifier: GPL-2.0
#
# --bpf-aggr writes one sample record per stack, with the number of samples
# counted for that stack as its weight (0 in a sample written as it came,
# which stands for itself).  perf report's Samples column (-n) must give
# those numbers, as it does for plain perf record: summed, it is the sum of
# the weights of the file, with and without --children and with a --comm
# filter, and the count perf record printed (plus the samples it says it
# could not aggregate, a stack map hash collision now and then), well above
# the number of records in the file.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup bpf_aggr_report

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-aggr; then
	exit 2
fi

data="${tmpdir}/perf.data"

# 'cpu_split 1 1 cpu': one thread until it has had 1 s of CPU time, about
# 1000 samples at 999 Hz however loaded the machine is
if ! perf record --bpf-aggr -g -e cpu-clock -F 999 -o "${data}" -- \
	perf test -w cpu_split 1 1 cpu 2> "${tmpdir}/record.err"; then
	echo "FAIL: perf record --bpf-aggr: $(grep -v '^\[' "${tmpdir}/record.err" | head -1)"
	exit 1
fi
counted=$(sed -n 's/.*--bpf-aggr counted \([0-9]*\) samples.*/\1/p' "${tmpdir}/record.err")
# written as they came, each a record of weight 0
plain=$(sed -n 's/.*--bpf-aggr: \([0-9]*\) samples not aggregated.*/\1/p' "${tmpdir}/record.err")
# "RECORDS SAMPLES": the records of the file and the samples they stand for
read -r records weights < <(perf script -i "${data}" -F weight 2>/dev/null |
	awk 'NF { n++; sum += $1 > 0 ? $1 : 1 } END { print n + 0, sum + 0 }')

# samples_column [perf report options]: the sum of the Samples column
samples_column() {
	perf report -i "${data}" --stdio -n --sort pid -g none "$@" 2>/dev/null |
		awk -v col="$1" '/^#/ || NF == 0 { next }
				 { sum += (col == "--children") ? $3 : $2 }
				 END { print sum + 0 }'
}

if expect_min_count "samples perf record counted" 800 "${counted}" &&
   expect_min_count "records in the file" 1 "${records}"; then
	if [ "${records}" -ge "${counted}" ]; then
		echo "FAIL: ${records} records for ${counted} samples: nothing aggregated"
		err=1
	fi
	expect_count "samples the records stand for" "$((counted + ${plain:-0}))" \
		"${weights}"
	expect_count "Samples column" "${weights}" "$(samples_column --no-children)"
	expect_count "Samples column with --children" "${weights}" \
		"$(samples_column --children)"
	expect_count "Samples column with --comm perf" "${weights}" \
		"$(samples_column --no-children --comm perf)"
	# what a weight means is in the header's sample aggr feature, not in
	# the command line saved beside it: rewritten, the file counts the same
	LC_ALL=C sed 's/--bpf-aggr/--xyz-aggr/g' "${data}" > "${tmpdir}/rewritten.data"
	data="${tmpdir}/rewritten.data"
	expect_count "rewritten: command lines naming --bpf-aggr" 0 \
		"$(perf report -i "${data}" --header-only 2>/dev/null | grep -c -e --bpf-aggr)"
	expect_count "rewritten: Samples column" "${weights}" "$(samples_column --no-children)"
	# perf inject keeps the feature
	perf inject -i "${data}" -o "${tmpdir}/inject.data" 2>/dev/null
	data="${tmpdir}/inject.data"
	expect_count "perf inject: sample aggr lines in the header" 1 \
		"$(perf report -i "${data}" --header-only 2>/dev/null | grep -c '^# sample aggr:')"
	expect_count "perf inject: Samples column" "${weights}" "$(samples_column --no-children)"
fi

check_exit
