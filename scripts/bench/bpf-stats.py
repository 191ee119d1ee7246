#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Usage: bpf-stats.py ROOT_PID OUT
#
# While ROOT_PID runs, every 0.3 s: find the BPF programs its process tree
# holds (bpf-prog and bpf_link fds, /proc/PID/fdinfo) and keep, per
# program, the last run_time_ns and run_cnt bpftool reports
# (kernel.bpf_stats_enabled=1).
# Both only grow, so the last reading before the program goes away gives
# its ns per run.  Writes "name run_cnt run_time_ns" lines to OUT, in the
# order the programs were first seen.
import os, subprocess, sys, time, json

root, out = int(sys.argv[1]), sys.argv[2]
progs = {}			# prog_id -> [name, run_cnt, run_time_ns]


def tree(root):
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(p))
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += children.get(p, [])
    return seen


def poll():
    ids = set()
    for pid in tree(root):
        fddir = "/proc/%d/fd" % pid
        try:
            fds = os.listdir(fddir)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("%s/%s" % (fddir, fd)) not in ("anon_inode:bpf-prog",
                                                               "anon_inode:bpf_link"):
                    continue
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    for l in f:
                        if l.startswith("prog_id:"):
                            ids.add(int(l.split()[1]))
            except (OSError, ValueError, IndexError):
                continue
    if not ids:
        return
    try:
        r = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                           text=True, timeout=10)
        info = json.loads(r.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return
    for p in info:
        if p.get("id") in ids and p.get("run_cnt", 0) >= progs.get(p["id"], ["", 0])[1]:
            progs[p["id"]] = [p.get("name", "id%d" % p["id"]), p.get("run_cnt", 0),
                              p.get("run_time_ns", 0)]


while os.path.exists("/proc/%d" % root):
    poll()
    time.sleep(0.3)
seen = {}
with open(out, "w") as f:
    for name, cnt, ns in progs.values():
        # two programs of one name (bpftrace probes): name, name#2, ...
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name += "#%d" % seen[name]
        if cnt:
            f.write("%s %d %d\n" % (name, cnt, ns))
