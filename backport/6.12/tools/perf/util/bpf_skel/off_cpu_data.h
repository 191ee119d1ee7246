/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Data shared by the off-cpu BPF program and perf */
#ifndef __PERF_OFF_CPU_DATA_H
#define __PERF_OFF_CPU_DATA_H

/* user stack entries kept per off-cpu interval */
#define OFF_CPU_MAX_STACK  32

/*
 * Where a task went off CPU.  It is the key of the map aggregating the
 * intervals shorter than the threshold.  The callchain is laid out as in a
 * PERF_RECORD_SAMPLE: ips[0] is PERF_CONTEXT_USER, nr counts it, and the
 * unused entries are zero so that equal stacks make equal keys.
 */
struct off_cpu_key {
	__u32 pid;		/* process (tgid) */
	__u32 tid;
	__u64 cgroup_id;	/* zero unless cgroups are recorded */
	__u32 state;		/* TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE */
	__u32 reserved;
	__u64 nr;
	__u64 ips[OFF_CPU_MAX_STACK + 1];
};

/*
 * Intervals below the threshold whose stack has at most OFF_CPU_SHORT_STACK
 * user entries are summed in a second map, whose key is the start of
 * struct off_cpu_key up to and including ips[OFF_CPU_SHORT_STACK]: 104
 * bytes instead of 296.  The kernel hashes and compares the whole key at
 * each interval, and most stacks are short.
 */
#define OFF_CPU_SHORT_STACK  8
#define OFF_CPU_SHORT_KEY_SIZE \
	(sizeof(struct off_cpu_key) - (OFF_CPU_MAX_STACK - OFF_CPU_SHORT_STACK) * sizeof(__u64))

/*
 * An offcpu-time sample for an interval at or above the threshold is written
 * by the BPF program when the task comes back on a CPU.  The kernel fills the
 * time, cpu and id fields of the sample: they are the ones of the context
 * switch putting the task back on the CPU.  The fields describing the task
 * are in the PERF_SAMPLE_RAW data: a u32 (zero) after the u32 size, so that
 * what follows is 8-byte aligned, then this struct with only the used
 * callchain entries.  evsel__parse_sample() moves them into the sample.
 */
struct off_cpu_dump {
	__u64 period;		/* nanoseconds off CPU */
	struct off_cpu_key key;
};

/*
 * Off-cpu intervals of recorded tasks that are in no sample, by cause: the
 * index of the BPF program's per-CPU off_cpu_stats array.
 */
enum off_cpu_stat {
	OFF_CPU_STAT_MAP_FULL,		/* short interval, its off_cpu map was full */
	OFF_CPU_STAT_NO_STORAGE,	/* no task storage for the task */
	OFF_CPU_STAT_UNSEEN_IN,		/* it came back without a sched_switch seen */
	OFF_CPU_STAT_MAX,
};

#endif /* __PERF_OFF_CPU_DATA_H */
