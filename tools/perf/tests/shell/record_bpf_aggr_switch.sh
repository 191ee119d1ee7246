#!/bin/bash
# perf record --bpf-aggr writes each interval at --switch-output (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split runs in three phases under 'perf record --bpf-aggr
# --switch-output=signal'.  After each of the first two phases the
# workload itself sends SIGUSR2 to perf record and starts the next phase
# once perf says it wrote the file, so perf writes three files, one per
# phase, without the test sleeping.  Each file must be a profile of its
# phase with the 3:1 split between split_heavy and split_light, and the
# periods of all files together must equal the task-clock of the workload
# within 2%.  With a signal, a timer (1s) and a size (1B) as the trigger,
# each file must hold the samples its "--bpf-aggr counted" line says; with
# the timer and the size, while both threads run on, the samples of all
# files must be exactly those the program ran for (perf record -v): none
# lost or written twice at a switch.  --switch-max-files=2 must keep the
# last two files.
# (exclusive): BPF programs of tests run beside it would take its samples.

# err and tmpdir belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
check_setup bpf_aggr_switch

# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh
if bpf_skel_missing --bpf-aggr; then
	exit 2
fi

# Floors from the workload: each phase, 'cpu_split 1 2 cpu', runs two
# threads until each has had 1 s of CPU time, however loaded the machine
# is: 2 s of task-clock, about 2000 samples of 1 ms at 999 Hz.
nr_phases=3
min_phase_ns=1500000000
min_task_ms=$((nr_phases * 2000))

# The workload: PHASES phases of 'cpu_split SEC THREADS cpu', a SIGUSR2 to perf
# record (its pid in perf.pid) after each but the last. The next phase
# starts when perf has printed its "Dump" line to ERRFILE: the process of
# that phase then starts in the new file, which gets its COMM and MMAP
# events. It runs under perf stat, whose pid is written to stat.pid: perf
# stat's own samples are not in its task-clock.
cat > "${tmpdir}/workload.sh" <<EOF
#!/bin/sh
echo \$\$ > "${tmpdir}/stat.pid"
exec perf stat -x, -e task-clock -o "${tmpdir}/stat" -- sh -c '
	i=1
	while true; do
		perf test -w cpu_split \$2 \$3 cpu || exit 1
		[ \$i -ge \$1 ] && exit 0
		kill -USR2 \$(cat "${tmpdir}/perf.pid") || exit 1
		# polls the state perf reports, bounded to 60 s
		n=0
		while [ \$(grep -c "perf record: Dump" "\$4") -lt \$i ]; do
			n=\$((n + 1))
			[ \$n -gt 6000 ] && exit 1
			sleep 0.01
		done
		i=\$((i + 1))
	done' sh "\$@"
EOF
chmod +x "${tmpdir}/workload.sh"

# record_switch NAME PHASES SEC THREADS [OPTIONS]: the workload under
# perf record --bpf-aggr --switch-output=signal into NAME/perf.data.*
record_switch() {
	local name=$1 phases=$2 sec=$3 threads=$4

	shift 4
	mkdir "${tmpdir}/${name}"
	# exec: the pid of this shell is perf record's
	sh -c 'echo $$ > "$0"/perf.pid; exec "$@"' "${tmpdir}" \
		perf record --bpf-aggr -g -e cpu-clock -F 999 \
		--switch-output=signal "$@" -o "${tmpdir}/${name}/perf.data" -- \
		"${tmpdir}/workload.sh" "$phases" "$sec" "$threads" "${tmpdir}/${name}.err" \
		2> "${tmpdir}/${name}.err" && return 0
	echo "FAIL: perf record --bpf-aggr --switch-output=signal $* failed:"
	cat "${tmpdir}/${name}.err"
	err=1
	return 1
}

# check_counted WHAT ERRFILE MIN_FILES: each file holds the samples its
# "--bpf-aggr counted" line, printed before its "Dump" line, says (the
# weights of its samples add up to the number), and there are MIN_FILES
# files at least.  The line used to give what the program had counted by
# the time perf printed it, samples of the next interval included:
# "counted 294" for a file of 287.
check_counted() {
	local n=0 total=0 want file got

	while read -r want file; do
		got=$(perf script -i "$file" -F weight 2>/dev/null |
			awk '{ s += $1 } END { print s + 0 }')
		n=$((n + 1))
		total=$((total + got))
		if [ "$got" != "$want" ]; then
			echo "FAIL: $1: $(basename "$file") holds ${got} samples," \
			     "its line says ${want}"
			err=1
		fi
	done < <(awk '/--bpf-aggr counted/ { n = $6 } /perf record: Dump/ { print n, $5 }' "$2")
	echo "$1: ${n} files, ${total} samples, each as its line says"
	expect_min "$1: files" "$3" "$n"
}

# check_total WHAT ERRFILE: the samples of all the files, aggregated (their
# weight) or not (one each), are the samples the program ran for
check_total() {
	local want got

	want=$(sed -n 's/.*the program ran for \([0-9]*\) samples.*/\1/p' "$2")
	got=$(awk '/perf record: Dump/ { print $5 }' "$2" |
		while read -r f; do perf script -i "$f" -F weight 2>/dev/null; done |
		awk '{ s += $1 ? $1 : 1 } END { print s + 0 }')
	expect_count "$1: samples of all files" "${want:-?}" "$got"
}

record_switch aggr $nr_phases 1 2 || exit 1
expect_count "files" $nr_phases "$(find "${tmpdir}/aggr" -name 'perf.data.*' | wc -l)"
expect_count "dumps" $nr_phases "$(grep -c "perf record: Dump" "${tmpdir}/aggr.err")"
check_counted "--switch-output=signal" "${tmpdir}/aggr.err" $nr_phases

stat_pid=$(cat "${tmpdir}/stat.pid")
sum_period=0
for f in "${tmpdir}"/aggr/perf.data.*; do
	name=$(basename "$f")
	period=$(perf script -i "$f" -F pid,period 2>/dev/null |
		awk -v stat="$stat_pid" 'NF == 2 && $1 != stat { sum += $2 }
					  END { printf "%.0f\n", sum }')
	{ read -r heavy; read -r light; } < <(symbol_shares "$f" split_heavy split_light)
	echo "${name}: period ${period} ns, split_heavy ${heavy}%, split_light ${light}%"
	# a phase of 2 s of CPU time has 1500 samples of 1 ms at least
	expect_min "period in ${name}" $min_phase_ns "$period"
	expect_min "split_heavy share in ${name}" 50 "$heavy" &&
		expect_min "split_light share in ${name}" 12 "$light" &&
		expect_split "${name}" "$heavy" "$light"
	sum_period=$(awk -v s="$sum_period" -v p="$period" 'BEGIN { printf "%.0f\n", s + p }')
done

task_ms=$(stat_count "${tmpdir}/stat" task-clock)
if expect_min "task-clock (ms)" $min_task_ms "$task_ms" &&
   ! awk -v s="$sum_period" -v t="$task_ms" \
	'BEGIN { d = s / 1e6 / t - 1
		 printf "sum of the periods / task-clock: %+.2f%%\n", 100 * d
		 exit !(d < 0.02 && d > -0.02) }'; then
	echo "FAIL: the periods of all files differ from the task-clock by 2% or more"
	err=1
fi
# Samples the maps had no room for are written as plain samples (and are
# in the sum above); a sample counted but not written is an error.
if grep -q "could not be written\|missing from the stack map" "${tmpdir}/aggr.err"; then
	echo "FAIL: perf record --bpf-aggr did not write every sample:"
	cat "${tmpdir}/aggr.err"
	err=1
fi

# a timer and a size as the trigger, two threads running through the
# switches: 'cpu_split 2 2' runs two threads for 2 s, 'cpu_split 1 2' for 1 s
mkdir -p "${tmpdir}/sec" "${tmpdir}/size"
if perf record -v --bpf-aggr -g -e cpu-clock -F 999 --switch-output=1s \
	-o "${tmpdir}/sec/perf.data" -- perf test -w cpu_split 2 2 2> "${tmpdir}/sec.err"; then
	check_counted "--switch-output=1s" "${tmpdir}/sec.err" 2
	check_total "--switch-output=1s" "${tmpdir}/sec.err"
else
	echo "FAIL: perf record --bpf-aggr --switch-output=1s failed:"
	cat "${tmpdir}/sec.err"
	err=1
fi
if perf record -v --bpf-aggr -g -e cpu-clock -F 999 --switch-output=1B \
	-o "${tmpdir}/size/perf.data" -- perf test -w cpu_split 1 2 2> "${tmpdir}/size.err"; then
	check_counted "--switch-output=1B" "${tmpdir}/size.err" 2
	check_total "--switch-output=1B" "${tmpdir}/size.err"
else
	echo "FAIL: perf record --bpf-aggr --switch-output=1B failed:"
	cat "${tmpdir}/size.err"
	err=1
fi

# --switch-max-files=2: three files written, the first removed
if record_switch max 3 1 1 --switch-max-files=2; then
	expect_count "--switch-max-files=2: dumps" 3 \
		"$(grep -c "perf record: Dump" "${tmpdir}/max.err")"
	expect_count "--switch-max-files=2: files kept" 2 \
		"$(find "${tmpdir}/max" -name 'perf.data.*' | wc -l)"
	# the two kept are the last two written
	expect_count "--switch-max-files=2: the last two kept" 2 \
		"$(awk '/perf record: Dump/ { print $5 }' "${tmpdir}/max.err" | tail -2 |
		   while read -r f; do [ -e "$f" ] && echo "$f"; done | wc -l)"
fi
check_exit
