#!/bin/bash
# perf record --bpf-aggr counts every sample, one record per stack (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split spends 3/4 of its CPU time in split_heavy() and 1/4 in
# split_light(), both called from split_round(), and stops once each thread
# has had SEC s of CPU time.  Recorded with --bpf-aggr under perf stat, the
# file must hold one record per stack, whose weights add up to the samples
# perf record says it counted and whose periods add up to the task-clock;
# -t and -C must sample their target only, a full map must lose nothing,
# and options that cannot be aggregated must be refused.
# (exclusive): BPF programs of tests run beside it would take its samples.

# err, tmpdir and check_pids belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup bpf_aggr
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
# shellcheck source=lib/waiting.sh
. "$(dirname "$0")"/lib/waiting.sh
if bpf_skel_missing --bpf-aggr; then
	exit 2
fi

# record NAME THREADS OPTIONS...: 'cpu_split 1 THREADS cpu' under perf stat,
# THREADS s of task-clock at least however loaded the machine is
record() {
	local name=$1 threads=$2

	shift 2
	perf record --bpf-aggr -g -e cpu-clock "$@" -o "${tmpdir}/${name}.data" -- \
		perf stat -x, -e task-clock -o "${tmpdir}/${name}.stat" -- \
		perf test -w cpu_split 1 "$threads" cpu 2> "${tmpdir}/${name}.err" && return 0
	echo "FAIL: perf record --bpf-aggr $* failed:"
	cat "${tmpdir}/${name}.err"
	err=1
	return 1
}

# check_period NAME MIN_MS: the periods of the workload's samples add up to
# its task-clock (of MIN_MS ms at least) within 2%
check_period() {
	local missed=0 period task

	# the share of the event's count that perf says its program did not see
	missed=$(sed -n 's/.*without running the BPF program, \([0-9.]*\)% of its count.*/\1/p' \
		"${tmpdir}/$1.err")
	# the process with the most period: the workload, whose task-clock perf stat counts
	period=$(perf script -i "${tmpdir}/$1.data" -F pid,period 2>/dev/null |
		awk 'NF == 2 { sum[$1] += $2 }
		     END { for (pid in sum) if (sum[pid] > max) max = sum[pid]
			   printf "%.0f\n", max / 1e6 }')
	task=$(stat_count "${tmpdir}/$1.stat" task-clock)
	expect_min "$1: task-clock (ms)" "$2" "$task" || return
	if ! awk -v n="$1" -v p="$period" -v t="$task" -v m="${missed:-0}" 'BEGIN {
		d = p / t + m / 100 - 1
		printf "%s: period / task-clock %+.2f%%%s\n", n, 100 * d,
			m ? " with the " m "% perf did not see" : ""
		exit !(d < 0.02 && d > -0.02) }'; then
		echo "FAIL: $1: the period differs from the task-clock by 2% or more"
		err=1
	fi
}

# two threads of 1 s of CPU time: about 2000 samples at 999 Hz
record aggr 2 -F 999 || exit 1
read -r counted stacks < <(sed -n \
	's/.*--bpf-aggr counted \([0-9]*\) samples in \([0-9]*\) of.*/\1 \2/p' "${tmpdir}/aggr.err")
# "RECORDS STACKS SAMPLES": records, those of a stack (weight > 0, the
# others written as they came) and the samples counted in them
read -r records weighted sum < <(perf script -i "${tmpdir}/aggr.data" -F weight 2>/dev/null |
	awk 'NF { n++; if ($1 > 0) w++; s += $1 } END { print n + 0, w + 0, s + 0 }')
echo "aggr: ${records} records for ${counted} samples"
if expect_min_count "samples counted" 1500 "${counted}" &&
   expect_min_count "records" 1 "${records}"; then
	expect_count "records of a stack" "${stacks}" "${weighted}"
	expect_count "sum of the weights" "${counted}" "${sum}"
	# the stacks of cpu_split are few: aggregated, a record is many samples
	expect_min "samples per record" 4 "$((counted / records))"
fi

# the profile: 3:1, split_round accounts for both with --children
{ read -r heavy; read -r light; } < \
	<(symbol_shares "${tmpdir}/aggr.data" split_heavy split_light)
if expect_min "split_heavy share" 50 "$heavy" && expect_min "split_light share" 12 "$light" &&
   expect_split aggr "$heavy" "$light"; then
	expect_min "split_round share with --children" \
		"$(awk -v h="$heavy" -v l="$light" 'BEGIN { print h + l - 1 }')" \
		"$(perf report -i "${tmpdir}/aggr.data" --stdio --children -g none \
			--sort sym 2>/dev/null |
		   awk '$NF == "split_round" { sub("%", "", $1); print $1; exit }')"
fi
check_period aggr 2000

# -c leaves PERIOD out of the sample type: the records must still carry it
record fixed 1 -c 1000000 && check_period fixed 1000

# a map of 2 entries: the samples it has no room for are written as they come
if record full 1 -F 999 --bpf-aggr-entries 2; then
	if ! grep -q "samples not aggregated" "${tmpdir}/full.err"; then
		echo "FAIL: full map: no warning about samples not aggregated"
		err=1
	fi
	check_period full 1000
fi

# -t and -C: a workload of two threads on the first CPU this test may use,
# recorded until it has run 200 ms more, however busy the machine is
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
taskset -c "$cpu" perf test -w cpu_split 60 2 cpu &
wpid=$!
check_pids="${check_pids} ${wpid}"
if ! wait_for_threads "$wpid" 2; then
	echo "FAIL: cpu_split did not start its second thread"
	exit 1
fi
tid=$(find "/proc/${wpid}/task" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -n | tail -1)
window=". '$(dirname "$0")/lib/perf_check.sh'; wait_cpu_time ${wpid} 200"

# target NAME FIELD WANT MIN_MS OPTIONS...: every sample has FIELD WANT, and
# the workload's samples have MIN_MS ms of period at least
target() {
	local name=$1 field=$2 want=$3 min=$4

	shift 4
	if ! perf record --bpf-aggr -g -e cpu-clock -F 999 "$@" -o "${tmpdir}/${name}.data" -- \
		bash -c "$window" 2> "${tmpdir}/${name}.err"; then
		echo "FAIL: perf record --bpf-aggr $* failed:"
		cat "${tmpdir}/${name}.err"
		err=1
		return
	fi
	expect_count "${name}: ${field} of the samples" "$want" \
		"$(perf script -i "${tmpdir}/${name}.data" -F "$field" 2>/dev/null |
		   awk 'NF == 1 { print $1 }' | sort -u | paste -sd ' ')"
	expect_min_count "${name}: period of the workload (ms)" "$min" \
		"$(perf script -i "${tmpdir}/${name}.data" -F pid,period 2>/dev/null |
		   awk -v pid="$wpid" '$1 == pid { s += $2 } END { printf "%.0f\n", s / 1e6 }')"
}

# one of two threads sharing a CPU: about half of the 200 ms
target thread tid "${tid}" 50 -t "$tid"
target on_cpu cpu "$(printf '[%03d]' "$cpu")" 150 -C "$cpu"
kill "$wpid"
wait "$wpid" 2>/dev/null

# refused WORD ARGS...: perf record ARGS fails with an error of --bpf-aggr
# naming WORD (an error parsing ARGS would name it, but not --bpf-aggr)
refused() {
	local word=$1 out

	shift
	if out=$(perf record "$@" -o "${tmpdir}/refused.data" -- true 2>&1) ||
	   ! grep -q -e bpf-aggr <<< "$out" || ! grep -q -e "$word" <<< "$out"; then
		echo "FAIL: perf record $* was not refused with an error naming ${word}:"
		echo "$out"
		err=1
	fi
}

# none of them may wrap to a number in range, or stand for the default
for entries in 0 -1 abc 536870913 1099511627776 18446744073709551615; do
	refused bpf-aggr-entries --bpf-aggr --bpf-aggr-entries="$entries"
done
refused bpf-aggr-entries --bpf-aggr-entries=16
refused -d --bpf-aggr -d
refused -T --bpf-aggr -T
refused threads --bpf-aggr --threads
refused branch --bpf-aggr -b
refused dwarf --bpf-aggr --call-graph dwarf
refused defer --bpf-aggr --call-graph fp,defer
refused period --bpf-aggr -e 'cpu-clock/period=0/'
refused task-clock --bpf-aggr -e cpu-clock,task-clock
refused -k --bpf-aggr -k realtime
refused filter --bpf-aggr -e cpu-clock --filter 'ip > 0'
refused -u --bpf-aggr -e cpu-clock -u root
if [ -d /sys/kernel/tracing/events/sched ] ||
   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	refused sched_switch --bpf-aggr -e sched:sched_switch
fi

# The kernel drops a sample taken while another kprobe or tracepoint BPF
# program runs on the CPU, and counts it nowhere: perf compares the event's
# count with the periods its program saw and says how many it missed.
# perf trace's syscall programs run at each call of a workload that only
# calls getppid(): about 8% of its samples.
perf trace -a -e getppid -o /dev/null > /dev/null 2>&1 &
trace=$!
check_pids="${check_pids} ${trace}"
# sys_enter and sys_exit attached, as BPF links (5.15 on), in 10 s
n=0
while [ "$(find "/proc/${trace}/fd" -lname 'anon_inode:bpf[-_]link' 2>/dev/null |
	   wc -l)" -lt 2 ] && [ $n -lt 1000 ] && kill -0 "$trace" 2>/dev/null; do
	n=$((n + 1))
	sleep 0.01
done
if [ $n -ge 1000 ] || ! kill -0 "$trace" 2>/dev/null; then
	skip_check "samples missed beside perf trace" "perf trace attached no BPF links"
else
	perf record --bpf-aggr -e cpu-clock -c 50000 -o "${tmpdir}/missed.data" -- \
		perf test -w getppid_loop 40000 2> "${tmpdir}/missed.err"
	missed=$(sed -n 's/.*at least \([0-9]*\) samples of .* without running the BPF.*/\1/p' \
		"${tmpdir}/missed.err")
	if ! expect_min_count "samples missed beside perf trace" 1 "${missed}"; then
		cat "${tmpdir}/missed.err"
	fi
fi
kill "$trace" 2>/dev/null
wait "$trace" 2>/dev/null

# perf report -n counts a record as the samples it stands for: its weight,
# or 1 for one written as it came.  That is in the header's sample aggr
# feature, not in the saved command line: rewritten, the file counts the
# same, and so does what perf inject writes of it.
samples_column() {
	perf report -i "${tmpdir}/$1.data" --stdio -n --sort pid -g none "$2" 2>/dev/null |
		awk -v col="$2" '/^#/ || NF == 0 { next }
				 { sum += (col == "--children") ? $3 : $2 }
				 END { print sum + 0 }'
}

plain=$(sed -n 's/.*--bpf-aggr: \([0-9]*\) samples not aggregated.*/\1/p' "${tmpdir}/aggr.err")
want=$((counted + ${plain:-0}))
expect_count "Samples column" "$want" "$(samples_column aggr --no-children)"
expect_count "Samples column with --children" "$want" "$(samples_column aggr --children)"
LC_ALL=C sed 's/--bpf-aggr/--xyz-aggr/g' "${tmpdir}/aggr.data" > "${tmpdir}/rewritten.data"
expect_count "rewritten: command lines naming --bpf-aggr" 0 \
	"$(perf report -i "${tmpdir}/rewritten.data" --header-only 2>/dev/null |
	   grep -c -e --bpf-aggr)"
expect_count "rewritten: Samples column" "$want" "$(samples_column rewritten --no-children)"
if perf inject -i "${tmpdir}/rewritten.data" -o "${tmpdir}/inject.data" \
	2> "${tmpdir}/inject.err"; then
	expect_count "perf inject: Samples column" "$want" "$(samples_column inject --no-children)"
else
	echo "FAIL: perf inject failed:"
	cat "${tmpdir}/inject.err"
	err=1
fi
check_exit
