/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Types shared by record_aggr.bpf.c and util/bpf_record_aggr.c */
#ifndef __PERF_RECORD_AGGR_DATA_H
#define __PERF_RECORD_AGGR_DATA_H

/* stack id used when a sample has no kernel (or no user) stack */
#define RECORD_AGGR_NO_STACK	(-1)

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
	RECORD_AGGR_STAT_MAX,
};

#endif /* __PERF_RECORD_AGGR_DATA_H */
