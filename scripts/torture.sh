#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Faults and bad input for each feature of the series: --bpf-summary,
# --bpf-counters, --off-cpu/--off-cpu-thresh and --bpf-aggr.
#
#   bad input      every bad value and refused combination: one clear line,
#                  a non-zero exit, no crash, BPF state unchanged
#   unprivileged   as user nobody: one line saying what is missing
#   SIGKILL        sessions killed mid-run: BPF programs, maps and links go
#                  back to what they were, and the next session counts
#                  exactly
#   SIGINT         sessions stopped with ^C: the summary, the counts, or a
#                  perf.data that perf report and perf script read
#   concurrent     sessions started at one instant on different targets:
#                  each counts its own
#
# Ends with a table and "N passed, N failed".  Waits are on state (a
# stopped workload, BPF links in perf's fds, objects freed), polled with a
# bound, never a fixed sleep.
# Usage: torture.sh [--quick]   (--quick: 3 kills and 4 sessions instead of
#                                20 and 8; what CI runs)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# the features are not on the 7.2 series yet
if [ "$BASE" = 7.2 ]; then
	note "the series' features are not on the 7.2 series yet: running on the 6.12 backport"
	BASE=6.12 exec "$0" "$@"
fi

kills=20 conc=8
if [ "${1:-}" = --quick ]; then
	kills=3 conc=4
fi
id=$(series_id "$0" "$ROOT/scripts/lib.sh" "$ROOT/scripts/build.sh")
mode=${1:-}
! guard_skip "torture${mode}" "$id" || exit 0
[ "$(id -u)" = 0 ] || die "needs root: it loads BPF programs and runs as user nobody too"
"$ROOT/scripts/build.sh" >/dev/null || die "build failed"
deps test
mount_fs
export PATH=$OBJ:$PATH

tmp=$(mktemp -d /tmp/perf-torture.XXXXX)
chmod 755 "$tmp"
cleanup()
{
	local p

	for p in $(jobs -p); do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
	rm -f /sys/fs/bpf/torture_wrong_map
	[ -z "${attr_map:-}" ] || rm -f "$attr_map"
}
trap cleanup EXIT
trap "exit 1" TERM INT

pass=0 fail=0
declare -A tried clear faults survived leaks
for k in trace stat offcpu aggr; do
	tried[$k]=0 clear[$k]=0 faults[$k]=0 survived[$k]=0 leaks[$k]=0
done

ok()
{
	pass=$((pass + 1))
}

failed()
{
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# bpf_state: the BPF programs, maps and links that nothing holds, and what
# perf pins.  An object is held when a process has an fd on it (its fdinfo
# names it; a link's names its program too), when it is pinned, or when a
# held program uses it (a map), or when a perf event has it (a program).
# What other processes on the machine load and hold, other perf sessions
# included, is not counted: only what stays behind without an owner, or
# pinned under perf_*, is.  Objects that the
# kernel keeps without an fd (programs attached to cgroups) are in the
# baseline; within() compares with it.
bpf_state()
{
	grep -hsE '^(prog_id|map_id|link_id):' /proc/[0-9]*/fdinfo/* |
	python3 -c '
import json, subprocess, sys

def show(kind):
	r = subprocess.run(["bpftool", "-f", "-j", kind, "show"],
			   capture_output=True, text=True)
	# a failing bpftool must not pass for a system with no BPF objects
	if r.returncode:
		sys.exit("bpftool %s show failed: %s" % (kind, r.stderr.strip()))
	return json.loads(r.stdout or "[]")

held = {"prog": set(), "map": set(), "link": set()}
for line in sys.stdin:
	key, _, val = line.partition(":")
	held[key[:-3]].add(int(val))
progs, maps, links = show("prog"), show("map"), show("link")
pinned = []
for kind, objs in (("prog", progs), ("map", maps), ("link", links)):
	for o in objs:
		if o.get("pinned"):
			held[kind].add(o["id"])
			pinned += [p for p in o["pinned"] if p.split("/")[-1].startswith("perf_")]
for e in show("perf"):
	if "prog_id" in e:
		held["prog"].add(e["prog_id"])
for l in links:
	if l["id"] in held["link"] and "prog_id" in l:
		held["prog"].add(l["prog_id"])
for p in progs:
	if p["id"] in held["prog"]:
		held["map"].update(p.get("map_ids", []))
free = {}
for kind, objs in (("progs", progs), ("maps", maps), ("links", links)):
	free[kind] = sorted(o["id"] for o in objs if o["id"] not in held[kind[:-1]])
print(" ".join("%s=%d%s" % (k, len(v), "" if not v else "(" + ",".join(map(str, v)) + ")")
	       for k, v in free.items()), "pinned=" + ",".join(sorted(pinned)))
'
}

# settled BASELINE: wait until the BPF state is BASELINE again (objects of
# a dead process are freed after it is reaped, by RCU); 0 if it is
settled()
{
	local end=$((SECONDS + 10)) n=0

	# at least 10 readings: a reading can take seconds on a loaded machine
	while [ $SECONDS -le $end ] || [ $n -lt 10 ]; do
		within "$(bpf_state)" "$1" && return 0
		n=$((n + 1))
		sleep 0.05
	done
	return 1
}

# within STATE BASELINE: STATE has no object without an owner that BASELINE
# has not (objects freed since, other processes' among them, do not
# count), and the same perf_* pins
within()
{
	awk -v cur="$1" -v base="$2" 'BEGIN {
		n = split(base, b, " ")
		for (i = 1; i <= n; i++) {
			if (b[i] ~ /^pinned=/) { pin = b[i]; continue }
			m = split(b[i], ids, /[=(),]/)
			for (j = 3; j <= m; j++) if (ids[j] != "") old[ids[1] ":" ids[j]] = 1
		}
		n = split(cur, c, " ")
		for (i = 1; i <= n; i++) {
			if (c[i] ~ /^pinned=/) { if (c[i] != pin) exit 1; continue }
			m = split(c[i], ids, /[=(),]/)
			for (j = 3; j <= m; j++) if (ids[j] != "" && !((ids[1] ":" ids[j]) in old)) exit 1
		}
	}'
}

# a pid and a CPU that do not exist
nopid=$(($(cat /proc/sys/kernel/pid_max) - 1))
while [ -e /proc/$nopid ]; do
	nopid=$((nopid - 1))
done
nocpu=$(($(getconf _NPROCESSORS_CONF) + 7))

# start_stopped CMD...: start a workload stopped before its exec; sets $wpid
start_stopped()
{
	(kill -STOP "$BASHPID"; exec "$@") &
	wpid=$!
	while [ "$(awk '{ print $3 }' "/proc/$wpid/stat" 2>/dev/null)" != T ]; do
		sleep 0.01
	done
}

# ready PID KIND [LOG]: wait until perf (PID) counts: perf trace once it
# holds its two BPF links; perf stat once it says "Events enabled" in LOG
# (with -D it says so after its BPF counters and then its other events are
# on: its BPF link alone comes before the other events are enabled); perf
# record once it says so in LOG (-vvv: "perf record has started", the
# upstream tests' signal), which comes after its BPF program and events are on
ready()
{
	local i n

	for i in $(seq 1200); do
		case $2 in
		offcpu | aggr)
			grep -q "perf record has started" "$3" 2>/dev/null && return 0 ;;
		stat)
			grep -q "^Events enabled" "$3" 2>/dev/null && return 0 ;;
		*)
			n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -Ec 'anon_inode:bpf[-_]link')
			[ "$n" -ge 2 ] && return 0 ;;
		esac
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# crashed RC: the exit code of a command killed by a signal or by timeout
# (perf exits 129 for a usage error, which is SIGHUP's number too)
crashed()
{
	[ "$1" = 124 ] || { [ "$1" -gt 129 ] && [ "$1" -le 159 ]; }
}

# ---------------------------------------------------------------------------
# bad input: bad KIND REGEX ARGS...: perf ARGS fails with a first line
# matching REGEX, without a crash, and leaves the BPF state as it was
bad()
{
	local kind=$1 re=$2 rc first

	shift 2
	tried[$kind]=$((tried[$kind] + 1))
	(cd "$tmp" && timeout 60 perf "$@" < /dev/null > "$tmp/bad.out" 2>&1)
	rc=$?
	first=$(grep -v -e '^ *$' -e '^WARNING' "$tmp/bad.out" | head -1)
	if [ $rc = 0 ]; then
		failed "perf $*: exit 0, expected an error ($first)"
	elif crashed $rc; then
		failed "perf $*: exit $rc (crash or hang): $(tail -3 "$tmp/bad.out" | paste -sd' ')"
	elif ! echo "$first" | grep -Eq -- "$re"; then
		failed "perf $*: exit $rc, but the first line '$first' does not match /$re/"
	elif ! settled "$baseline"; then
		failed "perf $*: BPF state changed: before $baseline, after $(bpf_state)"
	else
		clear[$kind]=$((clear[$kind] + 1))
		ok
		return
	fi
}

# quiet: the BPF state once two readings in a row agree (objects of
# processes that just ended are freed by then)
quiet()
{
	local end=$((SECONDS + 10)) a b

	a=$(bpf_state)
	while [ $SECONDS -le $end ]; do
		sleep 0.2
		b=$(bpf_state)
		[ "$a" = "$b" ] && break
		a=$b
	done
	echo "$a"
}

# bperf pins its attr map by design the first time it runs: do it now, at
# a path of our own, so that a map another perf pinned at the default path
# (of another version, whose perf_event_attr has another size) is not in
# the way, and is left alone
attr_map=/sys/fs/bpf/perf_torture_attr_map_$$
perf stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -o /dev/null -- true ||
	failed "perf stat --bpf-counters -e cs -- true failed"
baseline=$(quiet)

regfile=$tmp/regular-file
touch "$regfile"
mkdir "$tmp/dir"

echo "== bad input"
# perf trace --bpf-summary
bad trace "no such process: $nopid" trace -s --bpf-summary -p $nopid
bad trace "no such thread: $nopid" trace -s --bpf-summary -t $nopid
bad trace "CPU $nocpu is not online" trace -s --bpf-summary -C $nocpu -- true
bad trace "abc|CPU" trace -s --bpf-summary -C abc -- true
bad trace "CPU" trace -s --bpf-summary -C -1 -- true
bad trace "cgroup.*perf-torture-none" trace -s --bpf-summary -a -G /perf-torture-none -- true
bad trace "cgroup.*perf-torture-none" trace -s --bpf-summary --summary-mode=cgroup -a -G perf-torture-none -- true
bad trace "summary mode" trace -s --bpf-summary --summary-mode=bogus -- true
bad trace "summary mode" trace -s --bpf-summary --summary-mode= -- true
bad trace "needs --bpf-summary" trace -s --no-bpf-summary --summary-mode=cgroup -- true
bad trace "needs -s or -S" trace --bpf-summary -- true

# perf stat --bpf-counters
bad stat "--bpf-counters: .*regular-file.*not a BPF map" stat --bpf-counters --bpf-attr-map="$regfile" -e cs -- true
bad stat "--bpf-counters: .*dir.*not a BPF map" stat --bpf-counters --bpf-attr-map="$tmp/dir" -e cs -- true
bad stat "--bpf-counters: .*perf-torture-none" stat --bpf-counters --bpf-attr-map=/perf-torture-none/map -e cs -- true
if bpftool map create /sys/fs/bpf/torture_wrong_map type array key 4 value 4 entries 1 \
	name torture_wrong 2>/dev/null; then
	bad stat "--bpf-counters: .*wrong shape" stat --bpf-counters --bpf-attr-map=/sys/fs/bpf/torture_wrong_map -e cs -- true
	rm -f /sys/fs/bpf/torture_wrong_map
else
	failed "bpftool cannot create a map to pass as a map of the wrong type"
fi
bad stat "no such process: $nopid" stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -p $nopid
bad stat "no such thread: $nopid" stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -t $nopid
bad stat "CPU $nocpu is not online" stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -C $nocpu -- true
bad stat "cgroup.*perf-torture-none" stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -a -G perf-torture-none -- true
bad stat "event syntax error|perf-torture-none" stat --bpf-counters --bpf-attr-map="$attr_map" -e perf-torture-none -- true
bad stat "bpf prog 1" stat --bpf-counters --bpf-attr-map="$attr_map" -b 1 -e cs -- true

# perf record --off-cpu, --off-cpu-thresh
for v in -1 abc 99999999999999999999 1e3 ""; do
	bad offcpu "off-cpu-thresh" record --off-cpu --off-cpu-thresh="$v" -o "$tmp/o.data" -- true
done
bad offcpu "needs --off-cpu" record --off-cpu-thresh=10 -o "$tmp/o.data" -- true
bad offcpu "no such process: $nopid" record --off-cpu -p $nopid -o "$tmp/o.data"
bad offcpu "no such thread: $nopid" record --off-cpu -t $nopid -o "$tmp/o.data"
bad offcpu "CPU $nocpu is not online" record --off-cpu -C $nocpu -o "$tmp/o.data" -- true
bad offcpu "cgroup.*perf-torture-none" record --off-cpu -a -e dummy -G perf-torture-none -o "$tmp/o.data" -- true

# perf record --bpf-aggr, --bpf-aggr-entries
for v in 0 -1 abc 1099511627776 18446744073709551616 ""; do
	bad aggr "bpf-aggr-entries" record --bpf-aggr --bpf-aggr-entries="$v" -o "$tmp/a.data" -- true
done
bad aggr "needs --bpf-aggr" record --bpf-aggr-entries=100 -o "$tmp/a.data" -- true
bad aggr "--bpf-aggr.*(dwarf|frame pointer)" record --bpf-aggr --call-graph dwarf -o "$tmp/a.data" -- true
bad aggr "--bpf-aggr.*(-d|--data)" record --bpf-aggr -d -o "$tmp/a.data" -- true
bad aggr "no such process: $nopid" record --bpf-aggr -p $nopid -o "$tmp/a.data"
bad aggr "no such thread: $nopid" record --bpf-aggr -t $nopid -o "$tmp/a.data"
bad aggr "CPU $nocpu is not online" record --bpf-aggr -C $nocpu -o "$tmp/a.data" -- true

# ---------------------------------------------------------------------------
echo "== unprivileged (user nobody)"
unpriv()
{
	local kind=$1 re=$2 rc first

	shift 2
	tried[$kind]=$((tried[$kind] + 1))
	(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 60 perf "$@" < /dev/null > "$tmp/unpriv.out" 2>&1)
	rc=$?
	first=$(grep -v -e '^ *$' -e '^WARNING' "$tmp/unpriv.out" | head -1)
	if [ $rc = 0 ] || crashed $rc || ! echo "$first" | grep -Eq -- "$re"; then
		failed "as nobody: perf $*: exit $rc, first line '$first', expected /$re/"
	else
		clear[$kind]=$((clear[$kind] + 1))
		ok
	fi
}
unpriv trace "--bpf-summary: .*(root|CAP_BPF)" trace -s --bpf-summary -- true
unpriv stat "--bpf-counters: needs CAP_SYS_ADMIN" stat --bpf-counters -e cs -- true
unpriv offcpu "off-cpu.*(root|CAP_BPF)|(root|CAP_BPF).*off-cpu" record --off-cpu -o "$tmp/nobody.data" -- true
unpriv aggr "--bpf-aggr: .*(root|CAP_BPF)" record --bpf-aggr -o "$tmp/nobody.data" -- true

# ---------------------------------------------------------------------------
# The exact checks after faults, one per kind; each prints why on failure
stat_config=$tmp/perfconfig
printf '[stat]\n\tbpf-counter-events = cs\n' > "$stat_config"

exact_trace()
{
	local got

	perf trace -s --bpf-summary --summary-mode=total -o "$tmp/exact.out" -- \
		perf test -w getppid_loop 1000 || { echo "perf trace failed"; return 1; }
	got=$(awk '$1 == "getppid" { print $2; exit }' "$tmp/exact.out")
	[ "$got" = 1000 ] || { echo "getppid calls: $got, expected 1000"; return 1; }
}

# context switches counted both ways in one session: cs through BPF,
# context-switches with a perf event; 200 sleeps make at least 200
exact_stat()
{
	local plain bpf

	PERF_CONFIG=$stat_config perf stat -x, --bpf-attr-map="$attr_map" -e context-switches,cs -o "$tmp/exact.out" -- \
		perf test -w sleeper 1 200 || { echo "perf stat failed"; return 1; }
	plain=$(awk -F, '$3 == "context-switches" { print $1 }' "$tmp/exact.out")
	bpf=$(awk -F, '$3 == "cs" { print $1 }' "$tmp/exact.out")
	if [ -z "$plain" ] || [ -z "$bpf" ] || [ "$plain" -lt 200 ] ||
	   [ "$bpf" -lt "$plain" ] || [ "$bpf" -gt $((plain + 2)) ]; then
		echo "context switches: perf event $plain, BPF $bpf (expected >= 200, BPF 0-2 above)"
		return 1
	fi
}

# 5 sleeps of 30 ms, threshold 10 ms: exactly 5 direct samples of >= 30 ms
exact_offcpu()
{
	local n

	perf record --off-cpu --off-cpu-thresh=10 -e dummy -o "$tmp/exact.data" -- \
		perf test -w sleeper 30 5 > /dev/null 2>&1 || { echo "perf record failed"; return 1; }
	n=$(perf script -i "$tmp/exact.data" -F comm,period,event 2>/dev/null |
		awk '$NF == "offcpu-time:" && $(NF - 1) >= 30000000 && $(NF - 1) < 1000000000 { n++ }
		     END { print n + 0 }')
	[ "$n" = 5 ] || { echo "direct off-cpu samples of >= 30 ms: $n, expected 5"; return 1; }
}

# A second of CPU work sampled every ms: the periods of the workload's
# samples add up to its task-clock, counted by perf stat around it, within
# 2% (a sample stands for the last ms of CPU before it)
exact_aggr()
{
	local wl clock ns

	perf record --bpf-aggr -e cpu-clock -c 1000000 -g -o "$tmp/exact.data" -- \
		perf stat -e task-clock -x, -o "$tmp/exact.stat" -- \
		sh -c "echo \$\$ > $tmp/exact.pid; exec perf test -w cpu_split 1" \
		> /dev/null 2>&1 || { echo "perf record failed"; return 1; }
	wl=$(cat "$tmp/exact.pid")
	clock=$(awk -F, '$3 == "task-clock" { printf "%d", $1 * 1000000 }' "$tmp/exact.stat")
	ns=$(perf script -i "$tmp/exact.data" -F pid,period 2>/dev/null |
		awk -v p="$wl" '$1 == p { s += $2 } END { printf "%d", s }')
	if [ -z "$clock" ] || [ "$clock" -lt 100000000 ] ||
	   [ $((ns * 100)) -lt $((clock * 98)) ] || [ $((ns * 100)) -gt $((clock * 102)) ]; then
		echo "sum of periods $ns ns, task-clock $clock ns: not within 2%"
		return 1
	fi
}

# session KIND OUT: start a long session of KIND in the background; $spid
session()
{
	case "$1" in
	trace)	perf trace -s --bpf-summary -a -o "$2" & ;;
	stat)	perf stat --bpf-counters --bpf-attr-map="$attr_map" -e cs -D 1 -p "$sleeper" -o "$2" 2> "$2.log" & ;;
	offcpu)	perf record -vvv --off-cpu -a -o "$2" 2> "$2.log" & ;;
	aggr)	perf record -vvv --bpf-aggr -g -a -o "$2" 2> "$2.log" & ;;
	esac
	spid=$!
}

echo "== warm-up: one exact session of each kind"
# the target of the perf stat sessions: 100 context switches a second, so
# that a session stopped by SIGINT has counts to print
perf test -w sleeper 10 1000000 &
sleeper=$!
for k in trace stat offcpu aggr; do
	if why=$(exact_$k); then ok; else failed "$k before any fault: $why"; fi
done
baseline=$(quiet)
echo "baseline: $baseline (pinned by design: bperf's attr map $attr_map)"

echo "== SIGKILL, $kills times each"
for k in trace stat offcpu aggr; do
	for i in $(seq "$kills"); do
		faults[$k]=$((faults[$k] + 1))
		session $k "$tmp/kill.out"
		if ! ready $spid $k "$tmp/kill.out.log"; then
			failed "$k: session $i did not attach its BPF programs"
			kill -9 $spid 2>/dev/null
			wait $spid 2>/dev/null
			continue
		fi
		kill -9 $spid
		wait $spid 2>/dev/null
		if settled "$baseline"; then
			survived[$k]=$((survived[$k] + 1))
			ok
		else
			leaks[$k]=$((leaks[$k] + 1))
			failed "$k: after SIGKILL $i: $(bpf_state), baseline $baseline"
			baseline=$(bpf_state)
		fi
	done
	if why=$(exact_$k); then ok; else failed "$k after $kills SIGKILLs: $why"; fi
done

echo "== SIGINT"
for k in trace stat offcpu aggr; do
	faults[$k]=$((faults[$k] + 1))
	session $k "$tmp/int.out"
	if ! ready $spid $k "$tmp/int.out.log"; then
		failed "$k: session did not attach its BPF programs"
		kill -9 $spid 2>/dev/null
		wait $spid 2>/dev/null
		continue
	fi
	# something to count: a task sleeping 20 times
	perf test -w sleeper 1 20
	kill -INT $spid
	wait $spid 2>/dev/null
	case $k in
	trace)	grep -Eq '^ +clock_nanosleep +[1-9][0-9]* ' "$tmp/int.out" ;;
	stat)	grep -Eq '^ +[1-9][0-9,]* +cs' "$tmp/int.out" ;;
	*)	# grep -q ends perf script early: not in a pipe (pipefail)
		perf report -i "$tmp/int.out" --stdio > "$tmp/int.report" 2>&1 &&
		grep -q '^# Samples: [1-9]' "$tmp/int.report" &&
		grep -q . < <(perf script -i "$tmp/int.out" 2>/dev/null) ;;
	esac
	if [ $? = 0 ] && settled "$baseline"; then
		survived[$k]=$((survived[$k] + 1))
		ok
	else
		failed "$k: after SIGINT the output is incomplete or BPF state changed ($(bpf_state))"
		case $k in
		trace | stat)	head -20 "$tmp/int.out" ;;
		*)		head -20 "$tmp/int.report" ;;
		esac
	fi
done
kill -9 $sleeper
wait $sleeper 2>/dev/null

echo "== $conc concurrent sessions of each kind, each on its own target"
# ctxt PID [voluntary]: the context switches of PID so far, as the kernel
# counts them; the voluntary ones only, its sleeps, if asked
ctxt()
{
	awk -v re="^${2-(non)?}voluntary_ctxt_switches:" '$0 ~ re { n += $2 } END { print n + 0 }' \
		"/proc/$1/status"
}

# concurrent KIND: start $conc stopped workloads, one session each, wait
# until all are attached, then release every workload at once.  The perf
# stat sessions end while their workloads sleep, not after they exit: a
# task counts until perf_event_exit_task() with perf stat and until
# exit_notify() with BPF, and recent kernels tear down its memory in
# between.  Their counts are then exact: the kernel's own count.
concurrent()
{
	local k=$1 i pids=() sess=() w
	local -a c0 v0

	for i in $(seq "$conc"); do
		case $k in
		trace)	start_stopped perf test -w getppid_loop $((100 * i)) ;;
		stat)	start_stopped perf test -w sleeper 1 $((50 * i)) 600000 1 ;;
		offcpu)	start_stopped perf test -w sleeper 20 "$i" ;;
		aggr)	start_stopped perf test -w cpu_split 1 ;;
		esac
		pids[i]=$wpid
		case $k in
		trace)	perf trace -s --bpf-summary --summary-mode=total -p "$wpid" -o "$tmp/c$i.out" & ;;
		stat)	PERF_CONFIG=$stat_config perf stat -x, --bpf-attr-map="$attr_map" -e context-switches,cs -D 1 -p "$wpid" \
				-o "$tmp/c$i.out" 2> "$tmp/c$i.log" & ;;
		offcpu)	perf record -vvv --off-cpu --off-cpu-thresh=10 -e dummy -p "$wpid" \
				-o "$tmp/c$i.out" 2> "$tmp/c$i.log" & ;;
		aggr)	perf record -vvv --bpf-aggr -e cpu-clock -c 1000000 -g -p "$wpid" \
				-o "$tmp/c$i.out" 2> "$tmp/c$i.log" & ;;
		esac
		sess[i]=$!
	done
	for i in $(seq "$conc"); do
		ready "${sess[i]}" $k "$tmp/c$i.log" || failed "$k: concurrent session $i did not attach"
	done
	if [ "$k" = stat ]; then
		for i in $(seq "$conc"); do
			c0[i]=$(ctxt "${pids[i]}")
			v0[i]=$(ctxt "${pids[i]}" "")
		done
	fi
	kill -CONT "${pids[@]}"
	if [ "$k" = stat ]; then
		# all 50 * i short sleeps done, and the long one begun
		for i in $(seq "$conc"); do
			for w in $(seq 1200); do
				[ $(($(ctxt "${pids[i]}" "") - v0[i])) -gt $((50 * i)) ] && break
				kill -0 "${pids[i]}" 2>/dev/null || break
				sleep 0.05
			done
		done
		kill -INT "${sess[@]}"
		for i in $(seq "$conc"); do
			wait "${sess[i]}" 2>/dev/null
			c0[i]=$(($(ctxt "${pids[i]}") - c0[i]))
		done
		kill -9 "${pids[@]}"
	fi
	for i in $(seq "$conc"); do
		wait "${pids[i]}" 2>/dev/null
	done
	# perf stat -p and perf trace -p end when their target is gone; the
	# records end at once too, their targets are gone
	for i in $(seq "$conc"); do
		wait "${sess[i]}" 2>/dev/null
	done
	for i in $(seq "$conc"); do
		w=""
		case $k in
		trace)	w=$(awk '$1 == "getppid" { print $2; exit }' "$tmp/c$i.out")
			[ "$w" = $((100 * i)) ] || w="bad:getppid calls $w, expected $((100 * i))" ;;
		stat)	w=$(awk -F, '$3 == "cs" { print $1 }' "$tmp/c$i.out")
			p=$(awk -F, '$3 == "context-switches" { print $1 }' "$tmp/c$i.out")
			[ -n "$w" ] && [ "$w" -gt $((50 * i)) ] && [ "$w" = "$p" ] && [ "$w" = "${c0[i]}" ] ||
				w="bad:cs $w through BPF, $p with a perf event, ${c0[i]} by the kernel, expected > $((50 * i)) and all equal" ;;
		offcpu)	w=$(perf script -i "$tmp/c$i.out" -F pid,period,event 2>/dev/null |
				awk -v p="${pids[i]}" '$NF == "offcpu-time:" && $1 == p && $2 >= 20000000 &&
					$2 < 1000000000 { n++ } END { print n + 0 }')
			[ "$w" = "$i" ] || w="bad:direct samples $w, expected $i" ;;
		aggr)	w=$(perf script -i "$tmp/c$i.out" -F pid 2>/dev/null | awk '{ print $1 }' | sort -u | paste -sd,)
			[ "$w" = "${pids[i]}" ] || w="bad:pids $w, expected ${pids[i]}" ;;
		esac
		case "$w" in
		bad:*)	failed "$k: concurrent session $i: ${w#bad:}" ;;
		*)	ok ;;
		esac
	done
}
for k in trace stat offcpu aggr; do
	concurrent $k
done
if settled "$baseline"; then ok; else failed "after the concurrent sessions: $(bpf_state), baseline $baseline"; fi

echo
printf '%-8s %10s %12s %15s %9s %6s\n' feature "bad inputs" "clear errors" "faults injected" survived leaks
for k in trace stat offcpu aggr; do
	printf '%-8s %10d %12d %15d %9d %6d\n' $k "${tried[$k]}" "${clear[$k]}" "${faults[$k]}" \
		"${survived[$k]}" "${leaks[$k]}"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ] || exit 1
guard_passed "torture${mode}" "$id" "$pass/$pass"
