/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Types shared by record_aggr.bpf.c and util/bpf_record_aggr.c */
#ifndef __PERF_RECORD_AGGR_DATA_H
#define __PERF_RECORD_AGGR_DATA_H

/* stack id used when a sample has no kernel (or no user) stack */
#define RECORD_AGGR_NO_STACK	(-1)

/*
 * Frames per stack in the stack map: PERF_MAX_STACK_DEPTH, the default of
 * kernel.perf_event_max_stack. The BPF side sizes the map's values with it,
 * user space its buffers.
 */
#define RECORD_AGGR_STACK_DEPTH	127

/*
 * Stack map entries per key of the counts map: keeps hash collisions of
 * stack ids rare. The kernel refuses stack maps of more than 2^31 entries,
 * which bounds the number of keys (RECORD_AGGR_MAX_KEYS).
 */
#define RECORD_AGGR_STACKS_PER_KEY	4
#define RECORD_AGGR_MAX_STACKS		(1U << 31)
#define RECORD_AGGR_MAX_KEYS		(RECORD_AGGR_MAX_STACKS / RECORD_AGGR_STACKS_PER_KEY)

/*
 * The two sets of maps: the program counts into the one record_aggr_set
 * names, with --switch-output user space drains the other one.
 */
enum record_aggr_set {
	RECORD_AGGR_SET_MAIN,	/* record_aggr_counts, record_aggr_stacks */
	RECORD_AGGR_SET_ALT,	/* record_aggr_counts_alt, record_aggr_stacks_alt */
	RECORD_AGGR_NR_SETS,
};

/* one key per distinct sampled stack of a thread */
struct record_aggr_key {
	__u32 pid;
	__u32 tid;
	__s32 kernel_stack_id;
	__s32 user_stack_id;
	/* sampling CPU, or 0 when the event does not sample the CPU */
	__u32 cpu;
	__u32 pad;
};

struct record_aggr_value {
	/* sum of the sample periods counted for this key */
	__u64 period;
	/* number of samples counted for this key */
	__u64 nr_samples;
	/* CLOCK_MONOTONIC time of the last sample counted */
	__u64 last_time_ns;
};

/* indexes into the record_aggr_stats array */
enum record_aggr_stat {
	/* counted in the hash map, not written to the ring buffer */
	RECORD_AGGR_STAT_AGGREGATED,
	/* hash map full: the sample went to the ring buffer instead */
	RECORD_AGGR_STAT_MAP_FULL,
	/* stack map full or hash collision: sample went to the ring buffer */
	RECORD_AGGR_STAT_STACK_FAILED,
	/* hash map update failed otherwise (e.g. -EBUSY in NMI): ring buffer */
	RECORD_AGGR_STAT_UPDATE_FAILED,
	/*
	 * sum of the periods of all the samples the program ran for: the
	 * event's own count less this is what the kernel sampled without
	 * running the program (another tracing program was running)
	 */
	RECORD_AGGR_STAT_PERIOD,
	RECORD_AGGR_STAT_MAX,
};

#endif /* __PERF_RECORD_AGGR_DATA_H */
