#!/bin/bash
# perf stat --bpf-counters of tasks (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Each event is counted twice in one session, plainly and with BPF (the b
# modifier), so that both count the same tasks over the same interval.

# err, tmpdir and target are set by lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

if bpf_skel_missing "--bpf-counters of tasks"; then
	exit 2
fi
if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
	echo "Skip: no bpf filesystem on /sys/fs/bpf"
	exit 2
fi

check_setup stat_bpf_counters_tasks
attr_map=/sys/fs/bpf/perf_test_tasks_attr_map_$$
check_more_cleanup() {
	rm -f "${attr_map}"
}

# tasks need bpf_loop() (Linux 5.17): perf says so in one line before 5.17
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -e task-clock -- true 2>&1)
if echo "${out}" | grep -q "needs the bpf_loop() BPF helper, Linux 5.17 or later"; then
	echo "Skip: ${out}"
	exit 2
fi

# value of the event named $2 in the perf stat -x, output $1
value() {
	awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"
}

# expect_near WHAT PLAIN BPF PCT [SLACK]: BPF is within PCT percent, or
# SLACK, of PLAIN, which must count something
expect_near() {
	local what=$1 plain=${2%.*} bpf=${3%.*}

	expect_min_count "${what}, plain" 1 "${plain}" || return
	if awk -v a="${plain}" -v b="$bpf" -v p="$4" -v s="${5:-0}" \
	       'BEGIN { d = a - b; if (d < 0) d = -d; t = a * p / 100;
			if (t < s) t = s; exit !(b ~ /^[0-9]+$/ && d <= t) }'; then
		echo "ok: ${what}: ${bpf} with BPF, ${plain} plain"
	else
		echo "FAIL: ${what}: ${bpf} with BPF, ${plain} plain, more than $4% apart"
		err=1
	fi
}

events="task-clock,task-clock/name=btc/b,context-switches,context-switches/name=bcs/b"
events="${events},page-faults,page-faults/name=bpf/b"

# stat_both NAME ARGS...: perf stat of both counts into $tmpdir/NAME
stat_both() {
	local name=$1

	shift
	perf stat --bpf-attr-map "${attr_map}" -x, -o "${tmpdir}/${name}" -e "${events}" \
		"$@" > /dev/null 2>&1
}

# compare NAME TC_PCT CS_SLACK PF_SLACK
compare() {
	local f="${tmpdir}/$1"

	expect_near "$1 task-clock" "$(value "$f" task-clock)" "$(value "$f" btc)" "$2"
	expect_near "$1 context-switches" "$(value "$f" context-switches)" \
		"$(value "$f" bcs)" 2 "$3"
	expect_near "$1 page-faults" "$(value "$f" page-faults)" "$(value "$f" bpf)" 1 "$4"
}

# a workload: counted from its exec, children included.  A CPU-bound task
# preempted under load may read a few context switches more with BPF (up
# to 6 of 49 seen): noploop has a slack of 10
stat_both noploop -- perf test -w noploop 1
compare noploop 2 10 0
stat_both thloop -- perf test -w thloop 1
compare thloop 2 3 0
# the thread thloop creates is not counted
stat_both thloop_no_inherit --no-inherit -- perf test -w thloop 1
compare thloop_no_inherit 2 3 0
stat_both switches -- perf test -w context_switch_loop 4000
compare switches 10 2 0
# 10 groups of 40 processes forked
stat_both forks -- perf bench sched messaging -l 5
compare forks 5 10 10
# without inherit, the first process alone
stat_both no_inherit --no-inherit -- perf bench sched messaging -l 5
compare no_inherit 5 3 0

# -p and -t of a target stopped until both sessions count it
for opt in -p -t; do
	start_stopped noploop 1 || break
	stat_both "target${opt}" -I 100 "${opt}" "${target}" &
	session=$!
	wait_log_line "${session}" "${tmpdir}/target${opt}" "[0-9]" || break
	kill -CONT "${target}"
	wait "${session}"
	# -I lines: time,value,unit,event,...
	tc=$(awk -F, '$4 == "task-clock" { s += $2 } END { print s }' "${tmpdir}/target${opt}")
	btc=$(awk -F, '$4 == "btc" { s += $2 } END { print s }' "${tmpdir}/target${opt}")
	expect_near "${opt} task-clock" "${tc}" "${btc}" 2
done

# the switch bound is said where it matters: 13 us a switch, not 1 s
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -e task-clock \
	-- perf test -w context_switch_loop 2000 2>&1 >/dev/null)
if echo "${out}" | grep -q "^task-clock: counted across [0-9]* context switches of the target"; then
	echo "ok: the switch bound is said for a task switching every few us"
else
	echo "FAIL: no switch bound line for context_switch_loop: ${out}"
	err=1
fi
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -e task-clock \
	-- perf test -w noploop 1 2>&1 >/dev/null)
if echo "${out}" | grep -q "context switches of the target"; then
	echo "FAIL: a switch bound line for noploop: ${out}"
	err=1
else
	echo "ok: no switch bound line for a task that hardly switches"
fi

# context switches happen in the kernel: none counted in user space
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -x, \
	-e context-switches:u -- perf test -w context_switch_loop 100 2>&1 >/dev/null)
expect_count "context-switches:u with BPF" 0 "$(echo "$out" | awk -F, '{ print $1 }')"

# Sessions of one event share one leader and one task program; a killed
# session's slot is reclaimed by the next one
start_stopped noploop 1
# in the background: its pid is perf's
bperf_stat() {
	exec perf stat -v --bpf-counters --bpf-attr-map "${attr_map}" -x, -e task-clock "$@"
}
rm -f "${attr_map}"
bperf_stat -I 100 -o "${tmpdir}/holder" -p "${target}" 2> "${tmpdir}/log" &
holder=$!
check_pids="${check_pids} ${holder}"
wait_log_line "${holder}" "${tmpdir}/holder" "[0-9]"
for i in 1 2 3; do
	bperf_stat -I 100 -o "${tmpdir}/killed$i" -p "${target}" 2>> "${tmpdir}/log" &
	killed=$!
	wait_log_line "${killed}" "${tmpdir}/killed$i" "[0-9]"
	kill -9 "${killed}"
	wait "${killed}" 2> /dev/null
done
bperf_stat -I 100 -o "${tmpdir}/last" -p "${target}" 2>> "${tmpdir}/log" &
last=$!
wait_log_line "${last}" "${tmpdir}/last" "[0-9]"
kill -CONT "${target}"
wait "${last}"
kill -INT "${holder}" 2> /dev/null
wait "${holder}"
expect_count "leaders loaded" 1 "$(grep -c 'bperf: loading a leader' "${tmpdir}/log")"
expect_count "task programs loaded" 1 "$(grep -c 'bperf: loading a task program' "${tmpdir}/log")"
expect_count "slots of killed sessions reclaimed" 3 \
	"$(grep -c 'bperf: reclaiming slot' "${tmpdir}/log")"
expect_near "task-clock of a session after the killed ones" \
	"$(awk -F, '$4 == "task-clock" { s += $2 } END { print s }' "${tmpdir}/holder")" \
	"$(awk -F, '$4 == "task-clock" { s += $2 } END { print s }' "${tmpdir}/last")" 2

# stat.bpf-counter-sessions=1: a second task session is refused, a CPU
# session counts; a value out of range is ignored, said
printf '[stat]\n\tbpf-counter-sessions = 1\n' > "${tmpdir}/config"
rm -f "${attr_map}"
start_stopped noploop 1
PERF_CONFIG="${tmpdir}/config" perf stat --bpf-counters --bpf-attr-map "${attr_map}" \
	-x, -I 100 -o "${tmpdir}/one" -e task-clock -p "${target}" &
one=$!
check_pids="${check_pids} ${one}"
wait_log_line "${one}" "${tmpdir}/one" "[0-9]"
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -e task-clock -- true 2>&1)
want="--bpf-counters: all 1 sessions counting tasks for this event are in use"
if echo "${out}" | grep -q "^${want}"; then
	echo "ok: a second task session is refused with stat.bpf-counter-sessions=1"
else
	echo "FAIL: a second task session with stat.bpf-counter-sessions=1: ${out}"
	err=1
fi
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -x, -e task-clock -a -- sleep 0.1 2>&1)
expect_min "task-clock of -a beside a full task program" 100 "${out%%,*}"
kill -INT "${one}"
wait "${one}"
printf '[stat]\n\tbpf-counter-sessions = 1025\n' > "${tmpdir}/config"
out=$(PERF_CONFIG="${tmpdir}/config" perf stat -e task-clock -- true 2>&1)
if echo "${out}" | grep -q "^stat.bpf-counter-sessions is 1025, not 1 to 1024: ignoring it"; then
	echo "ok: stat.bpf-counter-sessions=1025 is ignored, said"
else
	echo "FAIL: stat.bpf-counter-sessions=1025: ${out}"
	err=1
fi

# a target gone before counting starts is said to be
sleep 0.5 &
gone=$!
out=$(perf stat --bpf-counters --bpf-attr-map "${attr_map}" -D 1000 -e task-clock \
	-p "${gone}" 2>&1)
if echo "${out}" | grep -q "^--bpf-counters: ${gone} exited before it was counted"; then
	echo "ok: a target that exited before counting is named"
else
	echo "FAIL: no line for a target that exited before counting: ${out}"
	err=1
fi

check_exit
