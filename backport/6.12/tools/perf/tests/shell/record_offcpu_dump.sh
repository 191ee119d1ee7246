#!/bin/bash
# perf record offcpu direct samples (--off-cpu-thresh)
# SPDX-License-Identifier: GPL-2.0

# 'perf test -w sleeper MSEC COUNT MSEC2 COUNT2' sleeps COUNT times MSEC ms,
# then COUNT2 times MSEC2 ms, in sleeper_nap().  Intervals at or above the
# threshold must be offcpu-time samples with their real time; the others
# are summed in the samples written at the end, which have a fake time
# above 2^64 - 2^32 ns (18446744069 s).

# err, tmpdir and target belong to lib/perf_check.sh
# shellcheck disable=SC2034,SC2154
# shellcheck source=lib/perf_check.sh
. "$(dirname "$0")"/lib/perf_check.sh
# shellcheck source=lib/bpf_skel.sh
. "$(dirname "$0")"/lib/bpf_skel.sh

if bpf_skel_missing --off-cpu; then
  exit 2
fi
check_setup offcpu_dump
perfdata="${tmpdir}/perf.data"
script_out="${tmpdir}/script"

# fake time of the samples written at the end, in seconds
end_time=18446744069

# perf record --off-cpu ARGS with its output to a file.  perf says at the end
# how many off-cpu intervals it could not record (the kernel ran no
# sched_switch tracepoint for the task, or no map had room): $missed, 0
# when it said nothing.  Every check below counts those as intervals that
# are not in perf.data; nothing else may be missing.
record_offcpu() {
  local rc

  perf record --off-cpu "$@" > "${tmpdir}/record.out" 2>&1
  rc=$?
  read_missed
  return $rc
}

# $missed from what perf record said in record.out
read_missed() {
  missed=$(sed -n 's/^off-cpu: \([0-9]*\) intervals not recorded.*/\1/p' "${tmpdir}/record.out")
  missed=${missed:-0}
  if [ "${missed}" != 0 ]; then
    grep '^off-cpu:' "${tmpdir}/record.out"
  fi
}

# print "direct|end pid time_ns period_ns nap|other" per offcpu-time
# sample: "nap" if sleeper_nap is in its callchain.  Off-cpu time includes
# the wait for a CPU after the wakeup, so on a loaded machine the task may
# also block elsewhere (exec, exit) and come back past the threshold.
# (%s and %.0f for ns: with %d mawk prints no value above 2^31 - 1.)
offcpu_samples() {
  perf script -i "${perfdata}" -F pid,time,period,event,ip,sym --ns 2> /dev/null | \
    awk -v end="${end_time}" '
      function flush() { if (line != "") print line, nap ? "nap" : "other"; line = "" }
      /^[^\t]/ { flush() }
      $4 == "offcpu-time:" {
        t = $2; sub(":", "", t); split(t, s, ".");
        kind = (s[1] + 0 >= end) ? "end" : "direct";
        line = sprintf("%s %d %s%09d %.0f", kind, $1, s[1], s[2], $3); nap = 0 }
      /^\t/ && $2 == "sleeper_nap" { nap = 1 }
      END { flush() }'
}

test_thresh() {
  echo "Off-cpu threshold test"

  if ! record_offcpu --off-cpu-thresh=500 -e dummy -o "${perfdata}" \
       -- perf test -w sleeper 600 3 1 100
  then
    echo "Off-cpu threshold test [Failed record]"
    err=1
    return
  fi
  offcpu_samples > "${script_out}"
  # the workload's exec and exit, in ns
  read -r exec_ns exit_ns <<< "$(perf script -i "${perfdata}" --show-task-events \
      -F time --ns 2> /dev/null | awk '
      function ns(t) { sub(":", "", t); split(t, s, "."); return s[1] * 1e9 + s[2] }
      /PERF_RECORD_COMM exec/ { start = ns($1) }
      /PERF_RECORD_EXIT/ { stop = ns($1) }
      END { printf "%.0f %.0f\n", start, stop }')"

  # three direct samples of the 600 ms sleeps in sleeper_nap, at least
  # 570 ms each (less those perf could not record); a 1 ms sleep that
  # waited 500 ms for a CPU would be a fourth and fail the test.  A sample is written when the task comes back
  # on a CPU, so its period cannot be longer than the time since the
  # previous one came back, or since the exec for the first: how much
  # longer than 600 ms a sleep lasts depends on the load, this does not.
  # 1 ms of slack: the period is in bpf_ktime_get_ns()'s clock, the time
  # in perf's.
  if ! awk -v m="${missed}" -v prev="${exec_ns}" '$1 == "direct" {
      if ($5 == "nap") n++
      else print "also off CPU for", $4, "ns outside sleeper_nap"
      if ($5 == "nap" && $4 < 570000000) { print "bad period", $4; bad = 1 }
      if ($4 > $3 - prev + 1000000) {
        print "period", $4, "longer than the", $3 - prev, "ns before it"; bad = 1
      }
      prev = $3 }
    END { if (n != 3) print "direct samples in sleeper_nap:", n;
          exit (n > 3 || n + m < 3 || bad || prev == 0) }' \
    "${script_out}"
  then
    echo "Off-cpu threshold test [Failed direct samples]"
    err=1
    return
  fi

  # inside the recording window: after the exec, before the exit
  if ! awk -v start="${exec_ns}" -v stop="${exit_ns}" '$1 == "direct" {
      if ($3 < start || $3 > stop) bad = 1 }
    END { exit (bad || start == 0 || stop == 0) }' "${script_out}"
  then
    echo "Off-cpu threshold test [Failed sample time outside the recording]"
    err=1
    return
  fi

  # 100 sleeps of 1 ms only at the end: at least 100 ms.  Each may
  # oversleep on a loaded machine, but the single-threaded workload cannot
  # be off CPU for longer than it lived: with a 600 ms one among them the
  # sum would not fit.
  if ! awk -v life=$((exit_ns - exec_ns)) '{ all += $4 } $1 == "end" { sum += $4 }
    END { printf "end samples: %d ms, all: %d ms of a life of %d ms\n",
                 sum / 1e6, all / 1e6, life / 1e6;
          exit (sum < 100000000 || all > life) }' "${script_out}"
  then
    echo "Off-cpu threshold test [Failed short intervals]"
    err=1
    return
  fi

  # samples are in user space, in perf report too
  if perf report -i "${perfdata}" -q --stdio --no-children --sort sym -g none \
       2> /dev/null | grep -q '\[k\]'
  then
    echo "Off-cpu threshold test [Failed: kernel samples in perf report]"
    err=1
    return
  fi
  echo "Off-cpu threshold test [Success]"
}

# total off-cpu time of the workload with every interval dumped (thresh 0)
# and with every interval aggregated (huge threshold, the former behaviour)
total_offcpu() {
  if ! record_offcpu --off-cpu-thresh="$1" -e dummy -o "${perfdata}" \
       -- perf test -w sleeper 200 5 1 20 > /dev/null
  then
    echo "record failed"
    return
  fi
  # the workload's life, from its exec to its exit, in ns
  life=$(perf script -i "${perfdata}" --show-task-events -F time --ns 2> /dev/null | awk '
      function ns(t) { sub(":", "", t); split(t, s, "."); return s[1] * 1e9 + s[2] }
      /PERF_RECORD_COMM exec/ { start = ns($1) }
      /PERF_RECORD_EXIT/ { stop = ns($1) }
      END { printf "%.0f\n", start && stop ? stop - start : 0 }')
  offcpu_samples | awk -v m="${missed}" -v life="${life}" '{ n[$1]++; sum += $4 }
    END { printf "%.0f %d %d %d %.0f\n", sum, n["direct"], n["end"], m, life }'
}

test_total() {
  echo "Off-cpu total time test"

  read -r all_direct n_direct n_end0 m0 life0 <<< "$(total_offcpu 0)"
  read -r all_end n_direct1 n_end m1 life1 <<< "$(total_offcpu 1000000000)"
  echo "thresh 0: ${all_direct} ns in ${n_direct} direct + ${n_end0:-?} end samples," \
       "${m0:-?} not recorded, workload lived ${life0:-?} ns"
  echo "huge thresh: ${all_end} ns in ${n_direct1:-?} direct + ${n_end} end samples," \
       "${m1:-?} not recorded, workload lived ${life1:-?} ns"

  # 5 x 200 ms + 20 x 1 ms at least, less what perf said it could not
  # record (at most 200 ms each)
  m0=${m0:-0} m1=${m1:-0}
  if [ $((${n_direct:-0} + m0)) -lt 25 ] || [ "${n_end0:-1}" != 0 ] || \
     [ "${n_direct1:-1}" != 0 ] || [ "${n_end:-0}" -lt 1 ] || \
     [ "${all_direct:-0}" -lt $((1020000000 - m0 * 200000000)) ] || \
     [ "${all_end:-0}" -lt $((1020000000 - m1 * 200000000)) ]
  then
    echo "Off-cpu total time test [Failed samples]"
    err=1
    return
  fi
  # the single-threaded workload cannot be off CPU longer than it lives;
  # how much it oversleeps depends on the load, so the two runs' totals
  # are each bounded by their own workload's life, not compared
  if [ "${all_direct}" -gt "${life0:-0}" ] || [ "${all_end}" -gt "${life1:-0}" ]
  then
    echo "Off-cpu total time test [Failed: more off-cpu time than the workload lived]"
    err=1
    return
  fi
  echo "Off-cpu total time test [Success]"
}

# Intervals below the threshold are summed by task and stack, stacks of up
# to 8 user entries in a map with a smaller key than longer ones.  Ten
# sleeps of 20 ms in sleeper_nap, then ten under 16 frames of sleeper_deep:
# two sums of 200 ms at least (less what perf could not record), each with
# its whole callchain, and perf -v says which map each came from.  The
# first stack has 8 entries in the usual build (perf's main() to
# clock_nanosleep()), short enough for the small key; a build whose own
# frames make it longer cannot check that map here and says so.  Read with
# perf report: the sums are written after the workload exited, and perf
# script does not resolve their symbols then (nor does the base's).
test_stack_depths() {
  local res short_sums long_sums depth

  echo "Off-cpu short and long stacks test"

  if ! record_offcpu -v --off-cpu-thresh=1000000 -e dummy -o "${perfdata}" \
       -- perf test -w sleeper 20 10 20 10 16
  then
    echo "Off-cpu short and long stacks test [Failed record]"
    err=1
    return
  fi
  # per sum in sleeper_nap: ms, entries, sleeper_deep frames ('folded'
  # puts the period, a space, then the callchain; --no-inline keeps
  # " (inlined)" out of the frame names)
  if ! res=$(perf report -i "${perfdata}" --stdio --no-children --no-inline --sort sym \
             -g folded,0,caller,period 2> /dev/null | awk -v m="${missed}" '
      /^[0-9]+ .*;sleeper_nap;/ {
        chain = $0; sub(/^[0-9]+ /, "", chain)
        n = split(chain, f, ";"); deep = 0
        for (i = 1; i <= n; i++) if (f[i] == "sleeper_deep") deep++
        if (deep == 0) { short += $1; depth = n }
        else if (deep == 16) long += $1
        else odd = odd " " deep }
      END { printf "%d %d ms with no sleeper_deep frame (%d entries), %d ms under 16%s\n",
                   depth, short / 1e6, depth, long / 1e6,
                   odd != "" ? ", other depths:" odd : ""
            exit (odd != "" || short == 0 || long == 0 ||
                  short < (10 - m) * 20e6 || long < (10 - m) * 20e6 ||
                  short + long < (20 - m) * 20e6) }')
  then
    echo "Off-cpu short and long stacks test [Failed: ${res#* }]"
    err=1
    return
  fi
  depth=${res%% *}
  res=${res#* }
  read -r short_sums long_sums <<< "$(sed -n \
      's/^off-cpu: \([0-9]*\) sums of stacks of up to 8 entries, \([0-9]*\) of longer.*/\1 \2/p' \
      "${tmpdir}/record.out")"
  if [ "${long_sums:-0}" -lt 1 ]; then
    echo "Off-cpu short and long stacks test [Failed: ${long_sums:-no} long stack" \
         "sums, expected one at least: ${res}]"
    err=1
    return
  fi
  if [ "${depth}" -gt 8 ]; then
    skip_check "off-cpu short stack map" "sleeper_nap's stack has ${depth} entries in this build"
    echo "Off-cpu short and long stacks test [Success: ${res}; ${long_sums} long" \
         "stack sums, the short map not checked]"
    return
  fi
  if [ "${short_sums:-0}" -lt 1 ]; then
    echo "Off-cpu short and long stacks test [Failed: ${short_sums:-no} short stack" \
         "sums, expected one at least: ${res}]"
    err=1
    return
  fi
  echo "Off-cpu short and long stacks test [Success: ${res}; ${short_sums} short and" \
       "${long_sums} long stack sums]"
}

test_order() {
  echo "Off-cpu time order test"

  if ! record_offcpu --off-cpu-thresh=50 -e cpu-clock -F 1000 \
       -o "${perfdata}" -- perf test -w sleeper 100 3 1 20
  then
    echo "Off-cpu time order test [Failed record]"
    err=1
    return
  fi
  # the three sleeps of 100 ms as direct samples (less those perf could
  # not record), some cpu-clock samples, and no sample earlier than the
  # one before it
  if ! res=$(perf script -i "${perfdata}" -F time,event --ns 2> /dev/null | awk -v m="${missed}" '
      { t = $1; sub(":", "", t); split(t, s, ".");
        if (s[1] < prev_s || (s[1] == prev_s && s[2] < prev_ns)) {
          if (!bad) first = prev_s "." prev_ns " then " t;
          bad++;
        }
        prev_s = s[1] + 0; prev_ns = s[2] + 0;
        if ($2 == "offcpu-time:" && s[1] < 18446744069) off++;
        if ($2 == "cpu-clock:") clk++ }
      END { printf "%d direct off-cpu, %d cpu-clock samples, %d out of order%s\n",
                   off, clk, bad, bad ? " (first: " first ")" : "";
            exit (bad || off > 3 || off + m < 3 || clk < 1) }')
  then
    echo "Off-cpu time order test [Failed: ${res}]"
    err=1
    return
  fi
  echo "Off-cpu time order test [Success: ${res}]"
}

# A workload that sleeps at once is seen too: the BPF program starts before
# the workload runs.  Started after it, it missed the first sleep of
# 'sleep 0.3' in about half of the runs on a busy machine, so five runs
# must all have it.
test_start() {
  echo "Off-cpu workload start test"

  for run in 1 2 3 4 5
  do
    if ! record_offcpu --off-cpu-thresh=100 -e dummy -o "${perfdata}" \
         -- sleep 0.3
    then
      echo "Off-cpu workload start test [Failed record]"
      err=1
      return
    fi
    n=$(offcpu_samples | awk '$1 == "direct" && $4 >= 290000000 { n++ } END { print n + 0 }')
    if [ "${n}" -gt 1 ] || [ $((n + missed)) -lt 1 ]
    then
      echo "Off-cpu workload start test [Failed: run ${run} has ${n} samples of the sleep]"
      err=1
      return
    fi
  done
  echo "Off-cpu workload start test [Success]"
}

# an existing process (-p), system wide (-a), parallel threads and compression
test_targets() {
  echo "Off-cpu targets test"

  # perf record -p ends when the process exits; the process sleeps only
  # once the BPF programs are attached
  start_stopped sleeper 300 6 || return
  pid=${target}
  # perf attaches the BPF programs before it enables them: it is
  # recording once it says so (-vvv)
  perf record -vvv --off-cpu --off-cpu-thresh=200 -e dummy -p "${pid}" \
       -o "${perfdata}" > "${tmpdir}/record.out" 2>&1 &
  rec=$!
  wait_log_line "${rec}" "${tmpdir}/record.out" "perf record has started"
  kill -CONT "${pid}"
  if ! wait "${rec}"
  then
    echo "Off-cpu targets test [Failed record -p]"
    err=1
    return
  fi
  read_missed
  # six sleeps of 300 ms in sleeper_nap (less those perf could not
  # record), each at most as long as the time since the previous sample
  # (1 ms of slack between the two clocks): how long a sleep lasts on a
  # loaded machine is not known
  if ! offcpu_samples | awk -v pid="${pid}" -v m="${missed}" '$1 == "direct" {
        if ($2 != pid || ($5 == "nap" && $4 < 285000000) ||
            (prev && $4 > $3 - prev + 1000000)) {
          print "bad sample:", $0, prev ? "(" $3 - prev " ns after the one before)" : ""
          bad++
        }
        if ($5 == "nap") n++
        prev = $3 }
      END { if (n != 6) print "direct samples in sleeper_nap:", n
            exit (bad || n > 6 || n + m < 6) }'
  then
    echo "Off-cpu targets test [Failed -p]"
    err=1
    return
  fi

  for opts in "-a" "--threads -z"
  do
    # shellcheck disable=SC2016,SC2086
    if ! record_offcpu --off-cpu-thresh=200 -e dummy ${opts} \
	 -o "${perfdata}" -- sh -c 'echo $$ > "$0"; exec perf test -w sleeper 300 3' \
	 "${tmpdir}/workload.pid"
    then
      echo "Off-cpu targets test [Failed record ${opts}]"
      err=1
      return
    fi
    # The three sleeps of the workload, less those perf could not record.
    # With -a, what perf could not record is of any task: one sleep at
    # least must be there.
    pid=$(cat "${tmpdir}/workload.pid")
    n=$(offcpu_samples | awk -v pid="${pid}" '$1 == "direct" && $2 == pid && $5 == "nap" { n++ }
                                            END { print n + 0 }')
    if [ "${n}" -gt 3 ] || [ "${n}" -lt 1 ] || [ $((n + missed)) -lt 3 ]
    then
      echo "Off-cpu targets test [Failed ${opts}: ${n} samples of the 3 sleeps]"
      err=1
      return
    fi
  done
  echo "Off-cpu targets test [Success]"
}

test_bad_thresh() {
  echo "Off-cpu bad threshold test"

  for thresh in -1 abc 1.5 18446744073709552
  do
    if perf record --off-cpu --off-cpu-thresh="${thresh}" -o "${perfdata}" \
       true > "${script_out}" 2>&1 || \
       ! grep -q "^Invalid --off-cpu-thresh '${thresh}'" "${script_out}"
    then
      echo "Off-cpu bad threshold test [Failed to reject ${thresh}]"
      err=1
      return
    fi
  done
  echo "Off-cpu bad threshold test [Success]"
}

# An event that cannot be opened fails the session with perf's message,
# without a crash in the off-cpu code that runs at the end.
test_open_failure() {
  echo "Off-cpu open failure test"

  perf record --off-cpu -e software/config=99/ -o "${perfdata}" -- true \
    > "${script_out}" 2>&1
  rc=$?
  # 130-159: killed by a signal (perf exits 129 for a usage error, 255 here)
  if [ "${rc}" = 0 ] || { [ "${rc}" -ge 130 ] && [ "${rc}" -le 159 ]; } || \
     ! grep -q "event is not supported" "${script_out}"
  then
    echo "Off-cpu open failure test [Failed: exit ${rc}]"
    cat "${script_out}"
    err=1
    return
  fi
  echo "Off-cpu open failure test [Success]"
}

# A user who may not load BPF programs is told so in the first line.
test_unprivileged() {
  echo "Off-cpu unprivileged test"

  (cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups \
    perf record --off-cpu -o /dev/null -- true) > "${script_out}" 2>&1
  rc=$?
  if [ "${rc}" = 0 ] || [ "$(head -1 "${script_out}")" != \
     "--off-cpu: loading BPF programs needs root, or CAP_BPF and CAP_PERFMON" ]
  then
    echo "Off-cpu unprivileged test [Failed: exit ${rc}]"
    cat "${script_out}"
    err=1
    return
  fi
  echo "Off-cpu unprivileged test [Success]"
}

test_thresh
test_total
test_stack_depths
test_order
test_start
test_targets
test_bad_thresh
test_open_failure
test_unprivileged

check_exit
