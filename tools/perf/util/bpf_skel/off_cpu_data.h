/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Data shared by the off-cpu BPF program and perf */
#ifndef __PERF_OFF_CPU_DATA_H
#define __PERF_OFF_CPU_DATA_H

/* user stack entries kept per off-cpu interval */
#define OFF_CPU_MAX_STACK  32

/*
 * A task that went off CPU, and the key of the off_cpu map that sums the
 * intervals not written as samples.  ips holds its user stack, walked once
 * when it left the CPU; the entries after the nr walked ones are zero.
 */
struct off_cpu_key {
	__u32 pid;		/* thread (task->pid) */
	__u32 tgid;
	__u32 state;		/* TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE */
	__u32 nr;		/* entries of ips */
	__u64 cgroup_id;	/* zero unless cgroups are recorded */
	__u64 ips[OFF_CPU_MAX_STACK];
};

/*
 * Off-cpu intervals of recorded tasks that are in no sample, by cause: the
 * index of the BPF program's per-CPU off_cpu_stats array.
 */
enum off_cpu_stat {
	OFF_CPU_STAT_MAP_FULL,		/* below the threshold, no room in the off_cpu map */
	OFF_CPU_STAT_NO_STORAGE,	/* no task storage for the task going off CPU */
	OFF_CPU_STAT_UNSEEN_IN,		/* back on a CPU without a sched_switch seen */
	OFF_CPU_STAT_MAX,
};

#endif /* __PERF_OFF_CPU_DATA_H */
