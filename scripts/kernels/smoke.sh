#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's /init (busybox sh): mount what perf needs, smoke each feature
# with checks that hold under TCG (no PMU, slow timers), "smoke: PASS|FAIL|SKIP
# WHAT: DETAIL" each and a total, power off.  perf's one-line refusal naming
# the kernel feature it lacks and the first Linux with it passes; libbpf fails.

for m in proc:/proc sysfs:/sys devtmpfs:/dev bpf:/sys/fs/bpf tracefs:/sys/kernel/tracing \
	 debugfs:/sys/kernel/debug cgroup2:/sys/fs/cgroup; do
	mount -t "${m%%:*}" "${m%%:*}" "${m#*:}"
done
exec > /dev/console 2>&1
export PATH=/usr/bin:/bin HOME=/root
cd /tmp || poweroff -f
pass=0 fail=0 skip=0 out=/tmp/out
echo "smoke: Linux $(uname -r), $(perf version)"

# result WHAT PASSED DETAIL: the line of check WHAT, whose perf commands
# wrote their messages to $out; PASSED (1 or not) decides unless perf
# refused or libbpf spoke
result()
{
	refusal=$(grep -m1 -E 'needs .*Linux [0-9.]+ or later' $out)
	libbpf=$(grep -m1 'libbpf:' $out)
	[ -z "$refusal" ] || set -- "$1" 1 "refused: $refusal"
	[ -z "$libbpf" ] || set -- "$1" 0 "$libbpf"
	if [ "$2" = 1 ]; then
		pass=$((pass + 1))
		echo "smoke: PASS $1: $3"
	else
		fail=$((fail + 1))
		echo "smoke: FAIL $1: $3"
		sed -n '1,40s/^/    /p' $out
	fi
}

# Exact for the workload, system-wide (-a) at least that many; or, where -s
# counts in user space (before 5.12) and the ring buffer of a slow guest
# overflows, fewer with at least as many more said lost (an event is half a
# syscall, so the sum overstates what was missed).  Before 5.12 (no task
# storage) one warning line says why the summary is collected in user space,
# from 5.12 none; it is taken out of $out, so that result() does not take
# it for a refusal.
kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
for a in -s -as; do
	perf trace $a --summary-mode=total -- perf test -w getppid_loop 100000 > $out 2>&1
	n=$(awk '$1 == "getppid" { print $2; exit }' $out)
	lost=$(awk '$1 == "LOST" && $3 == "events:" { print $2; exit }' $out)
	warn=$(grep -c 'the summary is collected in user space: needs BPF task storage' $out)
	sed -i '/the summary is collected in user space/d' $out
	ok=$({ [ -n "$lost" ] && [ $((${n:-0} + lost)) -ge 100000 ]; } ||
		[ "$n" = 100000 ] || { [ $a = -as ] && [ "${n:-0}" -ge 100000 ]; } && echo 1)
	[ "$warn" = "$([ "$kv" -lt 5012 ] && echo 1 || echo 0)" ] || ok=0
	result "trace $a" "$ok" "getppid_loop 100000: ${n:-no} getppid calls${lost:+, $lost events lost}, $warn line(s) saying the summary is in user space"
done

# 2000 sleeps of 1 ms counted by perf stat and by bperf: page faults within
# 10%, context switches (about one a sleep, 1996 to 2426 seen: a sleep whose
# timer fired before it slept switches nothing) at least 1000 and within
# 30%, task-clock within a factor of 3
ev=task-clock,page-faults,context-switches
perf stat -x, -o plain.csv -e $ev -- perf test -w sleeper 1 2000 > $out 2>&1
perf stat -x, -o bperf.csv --bpf-counters --bpf-attr-map /sys/fs/bpf/smoke_attr_map -e $ev \
	-- perf test -w sleeper 1 2000 >> $out 2>&1
v=$(awk -F, 'FILENAME == "plain.csv" { p[$3] = $1; next } { b[$3] = $1 }
	function near(e, r) { return p[e] > 0 && b[e] > 0 && p[e] <= r * b[e] && b[e] <= r * p[e] }
	END { pf = "page-faults"; cs = "context-switches"; tc = "task-clock"
	      ok = near(pf, 1.1) && near(cs, 1.3) && near(tc, 3) && p[cs] >= 1000 && b[cs] >= 1000
	      printf "%d %s %d/%d, %s %d/%d, %s %.1f/%.1f ms (bperf/plain)\n", ok,
		pf, b[pf], p[pf], cs, b[cs], p[cs], tc, b[tc], p[tc] }' plain.csv bperf.csv)
result "stat --bpf-counters" "${v%% *}" "${v#* }"

# -a needs only the leader, which counts from 5.10 on: context switches of
# 2000 sleeps, system-wide, plainly and with BPF in one session, at least
# 1000 and within 10%; no refusal passes
perf stat -x, -o cpus.csv --bpf-attr-map /sys/fs/bpf/smoke_attr_map -a \
	-e context-switches,context-switches/name=bcs/b -- perf test -w sleeper 1 2000 > $out 2>&1
v=$(awk -F, '$3 == "context-switches" { p = $1 } $3 == "bcs" { b = $1 }
	END { ok = p >= 1000 && b >= 1000 && p <= 1.1 * b && b <= 1.1 * p
	      printf "%d context-switches %d/%d (bperf/plain)\n", ok, b, p }' cpus.csv)
sed -i 's/Linux \([0-9.]*\) or later/Linux \1+ (-a must count)/' $out
result "stat --bpf-counters -a" "${v%% *}" "${v#* }"

# coreutils' sleep (libc has symbols): its direct sample (the ones written
# at the end have times from 18446744069 s on), pid = tid, a user symbol
perf record -o offcpu.data --off-cpu --off-cpu-thresh 100 -e dummy -- \
	sh -c 'echo $$ > pid; exec /usr/bin/sleep 0.2' > $out 2>&1
perf script -i offcpu.data --time 0,18446744069 -F pid,tid,period,event,ip,sym \
	> script.txt 2>> $out
pid=$(cat pid 2>/dev/null)
v=$(awk -v pid="$pid" 'END { print ms && sym != "", ms + 0 " ms, user symbol " sym }
	/offcpu-time/ { s = $1 == pid "/" pid && $2 >= 190000000; if (s) ms = int($2 / 1e6) }
	s && !/offcpu-time/ && $1 !~ /^ffff/ && $2 != "[unknown]" && sym == "" { sym = $2 }
	' script.txt)
result "record --off-cpu" "${v%% *}" "sleep 0.2, pid = tid = ${pid:-none}: ${v#* }"

perf record -o aggr.data --bpf-aggr -g -e cpu-clock -F 999 -- perf test -w cpu_split 1 \
	> $out 2>&1
perf report -i aggr.data --stdio > report.txt 2>> $out
n=$(awk '/^# Samples:/ { print $3; exit }' report.txt)
grep -q split_heavy report.txt && heavy=in || heavy="not in"
result "record --bpf-aggr" "$([ "${n:-0}" != 0 ] && [ "$heavy" = in ] && echo 1)" \
	"cpu_split 1: ${n:-no} samples, split_heavy $heavy perf report"

if [ -s aggr.data ]; then
	perf data convert -i aggr.data --to-pprof out.pb.gz > $out 2>&1
	rc=$?
	result "data convert --to-pprof" "$([ $rc = 0 ] && [ -s out.pb.gz ] && echo 1)" \
		"exit $rc, $(wc -c 2>/dev/null < out.pb.gz || echo no) bytes written"
else
	skip=$((skip + 1))
	echo "smoke: SKIP data convert --to-pprof: no --bpf-aggr recording to convert"
fi
echo "smoke: $pass passed, $fail failed, $skip skipped"
poweroff -f
