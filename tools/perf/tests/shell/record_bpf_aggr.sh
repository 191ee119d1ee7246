#!/bin/bash
# perf record --bpf-aggr matches plain perf record
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split spends 3/4 of its CPU time in split_heavy() and 1/4 in
# split_light(), both called from split_round(). Record it with plain
# 'perf record -g' and with --bpf-aggr and check that the aggregated
# profile shows the 3:1 split, the callers and the total period, in a file
# with one sample record per distinct stack instead of one per sample. Every
# compared count must first reach a floor the workload guarantees, so that
# no check passes on two empty profiles. Then check that invalid values of
# --bpf-aggr-entries are refused with one line.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup bpf_aggr

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-aggr; then
	exit 2
fi

# Floors from the workload: 'cpu_split 1 2 cpu' runs two threads until each
# has had 1 s of CPU time, however loaded the machine is: 2 s of task-clock
# at least, about 2000 samples at 999 Hz, 3/4 of them in split_heavy and
# 1/4 in split_light (minus what perf stat and the kernel take).
min_task_ns=2000000000
# the sum of the sample periods of that time: the last period of each
# thread is not sampled, a late timer tick skips one
min_period_ns=1900000000
min_samples=1500
min_heavy=50
min_light=12

# --no-bpf-event: the BPF programs other tools have loaded on this machine
# are not part of the size comparison.
# Record the workload under perf stat, so that each recording can be
# compared with the CPU time (task-clock) its own run really got: this
# machine may be loaded, two runs do not get the same CPU time.
record() {
	local name=$1
	shift
	perf record "$@" -g -e cpu-clock -F 999 --no-bpf-event -o "${tmpdir}/${name}.data" -- \
		perf stat -x, -e task-clock -o "${tmpdir}/${name}.stat" -- \
		perf test -w cpu_split 1 2 cpu 2> "${tmpdir}/${name}.err"
}

# task-clock of the workload in ns
task_clock_ns() {
	awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1000000 }' "${tmpdir}/$1.stat"
}

# Sum of the sample periods (ns of CPU time for cpu-clock) of the process
# that got the most: the workload, whose CPU time perf stat counts.
workload_period() {
	perf script -i "${tmpdir}/$1.data" -F pid,period 2>/dev/null |
		awk 'NF == 2 { sum[$1] += $2 }
		     END { for (pid in sum) if (sum[pid] > max) max = sum[pid]
			   printf "%.0f\n", max }'
}

# "RECORDS BYTES FIXED" of the PERF_RECORD_SAMPLE records in the file: how
# many, their bytes, and the largest size of one without its callchain
# entries (8 bytes each)
sample_records() {
	perf report -D -i "${tmpdir}/$1.data" 2>/dev/null | awk '
		function hex(s,   i, v) {
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		function flush() {
			if (size && size - 8 * nr > fixed) fixed = size - 8 * nr
			size = 0; nr = 0 }
		/PERF_RECORD_SAMPLE/ {
			flush(); s = $3; sub(/\[0x/, "", s); sub(/\]:/, "", s)
			size = hex(s); bytes += size; records++ }
		/ chain: nr:/ { n = $0; sub(/.* chain: nr:/, "", n); nr = n + 0 }
		END { flush(); printf "%d %.0f %d\n", records, bytes, fixed }'
}

if ! record plain; then
	echo "plain perf record failed:"
	cat "${tmpdir}/plain.err"
	exit 1
fi
if ! record aggr --bpf-aggr; then
	echo "perf record --bpf-aggr failed:"
	cat "${tmpdir}/aggr.err"
	exit 1
fi
counted=$(sed -n 's/.*--bpf-aggr counted \([0-9]*\) samples.*/\1/p' "${tmpdir}/aggr.err")
if [ -z "$counted" ]; then
	echo "perf record --bpf-aggr did not report its counts:"
	cat "${tmpdir}/aggr.err"
	exit 1
fi
echo "aggr:  ${counted} samples counted in BPF"
expect_min "samples counted in BPF" $min_samples "$counted"
# each written sample has the number of samples of its stack as its weight
expect_count "sum of the weights of the written samples" "$counted" \
	"$(perf script -i "${tmpdir}/aggr.data" -F weight 2>/dev/null |
	   awk '{ sum += $1 } END { printf "%.0f\n", sum }')"

{ read -r plain_heavy; read -r plain_light; } < \
	<(symbol_shares "${tmpdir}/plain.data" split_heavy split_light)
{ read -r aggr_heavy; read -r aggr_light; } < \
	<(symbol_shares "${tmpdir}/aggr.data" split_heavy split_light)
echo "plain: split_heavy ${plain_heavy}%, split_light ${plain_light}%"
echo "aggr:  split_heavy ${aggr_heavy}%, split_light ${aggr_light}%"
expect_min "plain split_heavy share" $min_heavy "$plain_heavy"
expect_min "plain split_light share" $min_light "$plain_light"
expect_min "aggr split_heavy share" $min_heavy "$aggr_heavy"
expect_min "aggr split_light share" $min_light "$aggr_light"

expect_split plain "$plain_heavy" "$plain_light"
expect_split aggr "$aggr_heavy" "$aggr_light"

# -g: both functions are shown with their caller
for sym in split_heavy split_light; do
	if ! perf script -i "${tmpdir}/aggr.data" -F ip,sym 2>/dev/null |
	     awk -v sym="$sym" 'prev == sym && $2 == "split_round" { found = 1 } { prev = $2 }
				END { exit !found }'; then
		echo "FAIL: no split_round caller for ${sym} in the aggregated call graphs"
		err=1
	fi
done
# --children: split_round accounts for both
round=$(perf report -i "${tmpdir}/aggr.data" --stdio --children -g none --sort sym 2>/dev/null |
	awk '$NF == "split_round" { sub("%", "", $1); print $1; exit }')
echo "aggr --children: split_round ${round}%"
expect_min "aggr --children split_round share" $((min_heavy + min_light)) "$round"
if ! awk -v r="$round" -v h="$aggr_heavy" -v l="$aggr_light" \
	'BEGIN { exit !(r >= h + l - 1) }'; then
	echo "FAIL: perf report --children does not add split_heavy and split_light to split_round"
	err=1
fi

# total period, relative to the CPU time each run got.  Samples the kernel
# took without running the BPF program (another kprobe, tracepoint or
# --bpf-aggr program ran on the CPU, on a shared machine) are in no sample,
# and perf says what share of the count they are: they go with the period.
aggr_missed=$(sed -n 's/.*without running the BPF program.*: \([0-9.]*\)% of its count.*/\1/p' \
	"${tmpdir}/aggr.err")
aggr_missed=${aggr_missed:-0}
[ "${aggr_missed}" = 0 ] || echo "aggr: ${aggr_missed}% of the count not seen by the program, as perf says"
plain_total=$(workload_period plain)
aggr_total=$(workload_period aggr)
plain_task=$(task_clock_ns plain)
aggr_task=$(task_clock_ns aggr)
echo "plain: total period ${plain_total} ns, task-clock ${plain_task} ns"
echo "aggr:  total period ${aggr_total} ns, task-clock ${aggr_task} ns"
if expect_min "plain task-clock" $min_task_ns "$plain_task" &&
   expect_min "aggr task-clock" $min_task_ns "$aggr_task" &&
   expect_min "plain total period" $min_period_ns "$plain_total" &&
   expect_min "aggr total period" $min_period_ns "$aggr_total" &&
   ! awk -v pt="$plain_total" -v at="$aggr_total" -v pc="$plain_task" -v ac="$aggr_task" \
	-v m="$aggr_missed" \
	'BEGIN { d = (at / ac + m / 100) / (pt / pc) - 1
		 printf "period/task-clock differs by %.2f%%\n", 100 * d
		 exit !(d < 0.02 && d > -0.02) }'; then
	echo "FAIL: total period differs by 2% or more"
	err=1
fi

# A fixed period (-c) leaves PERIOD out of plain samples; the written ones
# must still carry the sum of the periods they stand for.
if perf record --bpf-aggr -g -e cpu-clock -c 1000000 --no-bpf-event -o "${tmpdir}/fixed.data" -- \
	perf stat -x, -e task-clock -o "${tmpdir}/fixed.stat" -- \
	perf test -w cpu_split 1 1 cpu 2> "${tmpdir}/fixed.err"; then
	fixed_total=$(workload_period fixed)
	fixed_task=$(task_clock_ns fixed)
	echo "aggr -c: total period ${fixed_total} ns, task-clock ${fixed_task} ns"
	if expect_min "aggr -c task-clock" $((min_task_ns / 2)) "$fixed_task" &&
	   ! awk -v t="$fixed_total" -v c="$fixed_task" \
		'BEGIN { d = t / c - 1; exit !(d < 0.02 && d > -0.02) }'; then
		echo "FAIL: with -c the total period is not the task-clock within 2%"
		err=1
	fi
else
	echo "FAIL: perf record --bpf-aggr -c failed:"
	cat "${tmpdir}/fixed.err"
	err=1
fi

# size: the sample records shrink by samples / stacks
plain_size=$(stat -c %s "${tmpdir}/plain.data")
aggr_size=$(stat -c %s "${tmpdir}/aggr.data")
read -r plain_nr plain_sbytes plain_fixed <<< "$(sample_records plain)"
read -r aggr_nr aggr_sbytes aggr_fixed <<< "$(sample_records aggr)"
echo "plain: ${plain_size} bytes, ${plain_nr} samples (${plain_sbytes} bytes of samples," \
     "${plain_fixed} a sample without its callchain)"
echo "aggr:  ${aggr_size} bytes, ${aggr_nr} stacks (${aggr_sbytes} bytes of samples," \
     "${aggr_fixed} a sample without its callchain)"
# One sample record per stack instead of one per sample, each no larger
# than a plain sample of its callchain but for its weight, 8 bytes (the
# rare stacks are the long ones, so the bytes shrink by less than
# samples / stacks: x15.4 against x19.9
# in one run), and the rest of the file (mmap, comm events, build ids) no
# larger than plain's.  The aggregated file has at least the stacks of
# split_heavy and split_light.
if expect_min "plain samples" $min_samples "$plain_nr" &&
   expect_min "plain bytes of samples" 1 "$plain_sbytes" &&
   expect_min "plain sample without its callchain" 8 "$plain_fixed" &&
   expect_min "aggr stacks" 2 "$aggr_nr" &&
   expect_min "aggr bytes of samples" 1 "$aggr_sbytes" &&
   ! awk -v ps="$plain_size" -v as="$aggr_size" -v pn="$plain_nr" -v an="$aggr_nr" \
	-v psb="$plain_sbytes" -v asb="$aggr_sbytes" -v pf="$plain_fixed" -v af="$aggr_fixed" \
	'BEGIN { printf "sample records: x%.1f fewer, x%.1f fewer bytes; file x%.1f smaller\n",
			pn / an, psb / asb, ps / as
		 exit !(an < pn && af <= pf + 8 && as - asb <= ps - psb + 4096) }'; then
	echo "FAIL: perf.data of --bpf-aggr has more than one sample record of a plain" \
	     "sample's size per stack, or more of the rest"
	err=1
fi

# --bpf-aggr-entries: one line naming the accepted range, non-zero exit
entries_refused() {
	local value=$1 what=$2 out rc

	out=$(perf record --bpf-aggr --bpf-aggr-entries="$value" -e cpu-clock \
		-o "${tmpdir}/refused.data" -- true 2>&1)
	rc=$?
	if [ $rc -eq 0 ] || [ "$(echo "$out" | wc -l)" -ne 1 ] ||
	   ! echo "$out" | grep -q -- "$what"; then
		echo "FAIL: --bpf-aggr-entries=${value}: exit ${rc}, expected one line '${what}':"
		echo "$out"
		err=1
	fi
	rm -f "${tmpdir}/refused.data"
}

# The kernel drops a sample taken while another kprobe or tracepoint BPF
# program runs on the CPU, without running --bpf-aggr's program and
# without counting it anywhere: perf compares the event's count with the
# periods its program saw and says how many samples it did not see.  perf
# trace's syscall programs (tracepoint programs on raw_syscalls) run at
# each call of a workload that only calls getppid(): 7% of its samples
# are missed.
missed_line="without running the BPF program"
perf trace -a -e getppid -o /dev/null -- sleep 60 > /dev/null 2>&1 &
trace=$!
nprogs=0
for _ in $(seq 100); do
	nprogs=$(find "/proc/${trace}/fd" -lname 'anon_inode:bpf-prog' 2>/dev/null | wc -l)
	[ "${nprogs}" -gt 0 ] && break
	sleep 0.1
done
if [ "${nprogs}" -eq 0 ]; then
	echo "FAIL: perf trace -e getppid loaded no BPF program to run beside --bpf-aggr"
	err=1
else
	perf record --bpf-aggr -e cpu-clock -c 100000 -o "${tmpdir}/missed.data" -- \
		perf test -w getppid_loop 2000000 2> "${tmpdir}/missed.err"
	missed=$(sed -n "s/.*at least \([0-9]*\) samples of cpu-clock ${missed_line}.*/\1/p" \
		"${tmpdir}/missed.err")
	if [ -z "${missed}" ] || [ "${missed}" -le 0 ]; then
		echo "FAIL: --bpf-aggr beside perf trace did not say it missed samples:"
		cat "${tmpdir}/missed.err"
		err=1
	else
		echo "beside perf trace: $(grep -- "${missed_line}" "${tmpdir}/missed.err")"
	fi
fi
kill "${trace}" 2>/dev/null
wait "${trace}" 2>/dev/null

# 2^40 used to be truncated to 0 and refused as "must be at least 1"
entries_refused 1099511627776 "over the maximum of 536870912"
entries_refused 536870913 "over the maximum of 536870912"
entries_refused 99999999999999999999999 "over the maximum of 536870912"
entries_refused -1 "expected a number of map entries from 1 to 536870912"
entries_refused abc "expected a number of map entries from 1 to 536870912"
entries_refused 8k "expected a number of map entries from 1 to 536870912"
entries_refused 0 "must be at least 1"
out=$(perf record --bpf-aggr-entries=16 -o "${tmpdir}/refused.data" -- true 2>&1)
if [ $? -eq 0 ] || ! echo "$out" | grep -q -- "--bpf-aggr-entries needs --bpf-aggr"; then
	echo "FAIL: --bpf-aggr-entries without --bpf-aggr was not refused:"
	echo "$out"
	err=1
fi
exit $err
