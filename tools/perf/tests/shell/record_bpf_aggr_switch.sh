#!/bin/bash
# perf record --bpf-aggr writes each interval at --switch-output
# SPDX-License-Identifier: GPL-2.0
#
# cpu_split runs in four phases under 'perf record --bpf-aggr
# --switch-output=signal'. After each of the first three phases the
# workload itself sends SIGUSR2 to perf record and starts the next phase
# once perf says it wrote the file, so perf writes four files, one per
# phase, without the test sleeping. Each file must be a profile of its own, with
# the 3:1 split between split_heavy and split_light (expect_split), as a
# plain recording has it, and the periods of all files together must equal the
# task-clock of the workload within 2%: a count lost at a switch makes the
# sum smaller, a count written twice makes it larger. Then
# --switch-max-files=2 must leave the last two files only.  With a timer
# (--switch-output=1s) and a size (1B) as the trigger, each file must hold
# the samples its "--bpf-aggr counted" line says.

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
# is: 2 s of task-clock, about 2000 samples of 1 ms at 999 Hz, 3/4 in
# split_heavy, 1/4 in split_light.
nr_phases=4
min_phase_samples=1500
min_task_ns=$((nr_phases * 2000000000))
min_heavy=50
min_light=12

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
		perf record --bpf-aggr -g -e cpu-clock -F 999 --no-bpf-event \
		--switch-output=signal "$@" -o "${tmpdir}/${name}/perf.data" -- \
		"${tmpdir}/workload.sh" "$phases" "$sec" "$threads" "${tmpdir}/${name}.err" \
		2> "${tmpdir}/${name}.err"
}

# the plain reference
if ! perf record -g -e cpu-clock -F 999 --no-bpf-event -o "${tmpdir}/plain.data" -- \
	perf test -w cpu_split 1 2 cpu 2> "${tmpdir}/plain.err"; then
	echo "plain perf record failed:"
	cat "${tmpdir}/plain.err"
	exit 1
fi
{ read -r plain_heavy; read -r plain_light; } < \
	<(symbol_shares "${tmpdir}/plain.data" split_heavy split_light)
echo "plain: split_heavy ${plain_heavy}%, split_light ${plain_light}%"
expect_min "plain split_heavy share" $min_heavy "$plain_heavy"
expect_min "plain split_light share" $min_light "$plain_light"
expect_split plain "$plain_heavy" "$plain_light"

if ! record_switch aggr $nr_phases 1 2; then
	echo "perf record --bpf-aggr --switch-output=signal failed:"
	cat "${tmpdir}/aggr.err"
	exit 1
fi

files=$(ls "${tmpdir}"/aggr/perf.data.* 2>/dev/null)
nr_files=$(echo "$files" | grep -c .)
nr_dumps=$(grep -c "perf record: Dump" "${tmpdir}/aggr.err")
echo "aggr: ${nr_files} files, ${nr_dumps} dumps"
if [ "$nr_files" -ne $nr_phases ] || [ "$nr_dumps" -ne $nr_phases ]; then
	echo "FAIL: expected ${nr_phases} files, one per phase:"
	cat "${tmpdir}/aggr.err"
	err=1
fi

stat_pid=$(cat "${tmpdir}/stat.pid")
sum_period=0
for f in $files; do
	counted=$(perf script -i "$f" -F pid,period 2>/dev/null |
		awk -v stat="$stat_pid" 'NF == 2 && $1 != stat { n++; sum += $2 }
					  END { printf "%d %.0f\n", n, sum }')
	stacks=${counted% *}
	period=${counted#* }
	{ read -r heavy; read -r light; } < <(symbol_shares "$f" split_heavy split_light)
	echo "$(basename "$f"): ${stacks} stacks, period ${period} ns," \
	     "split_heavy ${heavy}%, split_light ${light}%"
	expect_min "stacks in $(basename "$f")" 2 "$stacks"
	# a phase of 2 s of CPU time has 1500 samples of 1 ms at least
	expect_min "period in $(basename "$f")" $((min_phase_samples * 1000000)) "$period"
	expect_min "split_heavy share in $(basename "$f")" $min_heavy "$heavy" &&
		expect_min "split_light share in $(basename "$f")" $min_light "$light" &&
		expect_split "$(basename "$f")" "$heavy" "$light"
	sum_period=$(awk -v s="$sum_period" -v p="$period" 'BEGIN { printf "%.0f\n", s + p }')
done

task_ns=$(awk -F, '/task-clock/ { printf "%.0f\n", $1 * 1000000 }' "${tmpdir}/stat")
echo "all files: period ${sum_period} ns, task-clock ${task_ns} ns"
if expect_min "task-clock" $min_task_ns "$task_ns" &&
   expect_min "sum of periods" $((min_task_ns * 95 / 100)) "$sum_period" &&
   ! awk -v s="$sum_period" -v t="$task_ns" \
	'BEGIN { d = s / t - 1
		 printf "sum of periods / task-clock: %+.2f%%\n", 100 * d
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

# counted_lines ERRFILE: "SAMPLES FILE" for each file written, from the
# "--bpf-aggr counted" line perf prints before its "Dump" line
counted_lines() {
	awk '/--bpf-aggr counted/ { n = $6 } /perf record: Dump/ { print n, $5 }' "$1"
}

# check_counted WHAT ERRFILE MIN_FILES: each file holds the samples its line
# says it counted (the weights of its samples add up to the number), and
# there are MIN_FILES files at least.  The line used to give what the
# program had counted by the time perf printed it, samples of the next
# interval included: "counted 294" for a file of 287.
check_counted() {
	local n=0 total=0 want file got

	while read -r want file; do
		got=$(perf script -i "$file" -F weight 2>/dev/null |
			awk '{ s += $1 } END { print s + 0 }')
		n=$((n + 1))
		total=$((total + got))
		if [ "$got" != "$want" ]; then
			echo "FAIL: $1: $(basename "$file") holds ${got} samples, its line says ${want}"
			err=1
		fi
	done < <(counted_lines "$2")
	echo "$1: ${n} files, ${total} samples, each as its line says"
	expect_min "$1: files" "$3" "$n"
}

# a timer and a size as the trigger: cpu_split runs 3 s of CPU time
mkdir -p "${tmpdir}/sec" "${tmpdir}/size"
if perf record --bpf-aggr -g -e cpu-clock -F 999 --switch-output=1s \
	-o "${tmpdir}/sec/perf.data" -- perf test -w cpu_split 3 1 2> "${tmpdir}/sec.err"; then
	check_counted "--switch-output=1s" "${tmpdir}/sec.err" 3
else
	echo "FAIL: perf record --bpf-aggr --switch-output=1s failed:"
	cat "${tmpdir}/sec.err"
	err=1
fi
if perf record --bpf-aggr -g -e cpu-clock -F 999 --switch-output=1B \
	-o "${tmpdir}/size/perf.data" -- perf test -w cpu_split 1 1 2> "${tmpdir}/size.err"; then
	check_counted "--switch-output=1B" "${tmpdir}/size.err" 2
else
	echo "FAIL: perf record --bpf-aggr --switch-output=1B failed:"
	cat "${tmpdir}/size.err"
	err=1
fi

# --switch-max-files=2: four files written, the first two removed
if record_switch max 4 1 1 --switch-max-files=2; then
	nr_files=$(find "${tmpdir}/max" -name "perf.data.*" | wc -l)
	nr_dumps=$(grep -c "perf record: Dump" "${tmpdir}/max.err")
	echo "--switch-max-files=2: ${nr_dumps} dumps, ${nr_files} files kept"
	if [ "$nr_dumps" -ne 4 ] || [ "$nr_files" -ne 2 ]; then
		echo "FAIL: expected 4 dumps and 2 files"
		err=1
	fi
	# each kept file is a profile of cpu_split: split_heavy 3/4 of the two
	for f in "${tmpdir}"/max/perf.data.*; do
		{ read -r heavy; read -r light; } < <(symbol_shares "$f" split_heavy split_light)
		part=$(split_part "$heavy" "$light")
		expect_min "split_heavy part in $(basename "$f")" 60 "$part"
	done
else
	echo "FAIL: perf record --bpf-aggr --switch-max-files=2 failed:"
	cat "${tmpdir}/max.err"
	err=1
fi
exit $err
