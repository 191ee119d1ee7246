// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Count sampled stacks in the kernel for 'perf record --bpf-aggr'.
 *
 * This program runs as the overflow handler of each sampling event of the
 * session (BPF_PROG_TYPE_PERF_EVENT). For every sample it adds the sample
 * period to the (pid, tid, kernel stack, user stack[, cpu]) key of a hash
 * map and returns 0, so the kernel does not write the sample to the ring
 * buffer. perf writes one sample per key at the end of the session.
 *
 * When a sample cannot be counted (hash map or stack map full, or a map
 * update failing otherwise) the program returns 1 and the sample is written
 * to the ring buffer as usual, so that nothing is lost; the stats array says
 * how often that happened and why.
 *
 * With --switch-output there are two sets of maps: the program counts into
 * one while user space drains the other one into the file being closed.
 * Counting in place (an atomic add to a value found by lookup) races with a
 * delete of the same key, so user space never deletes from the set the
 * program may be using. The set in use is named by the inner map of
 * record_aggr_set: user space swaps that inner map, and the kernel returns
 * from the update of a map-in-map only when the programs that could still
 * be using the old inner map have finished (the program runs under
 * rcu_read_lock()), so the old set can then be drained.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <asm-generic/errno-base.h>

#include "record_aggr_data.h"

/*
 * The context of perf_event programs. Only the field used here is declared,
 * CO-RE finds its offset (after the arch's pt_regs) in the kernel's BTF.
 */
struct bpf_perf_event_data___record_aggr {
	__u64 sample_period;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, RECORD_AGGR_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);	/* resized by user space */
} record_aggr_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct record_aggr_key));
	__uint(value_size, sizeof(struct record_aggr_value));
	__uint(max_entries, 1);	/* resized by user space */
} record_aggr_counts SEC(".maps");

/* the second set of maps, used with --switch-output only */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, RECORD_AGGR_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);	/* resized by user space */
} record_aggr_stacks_alt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct record_aggr_key));
	__uint(value_size, sizeof(struct record_aggr_value));
	__uint(max_entries, 1);	/* resized by user space */
} record_aggr_counts_alt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
	__uint(max_entries, RECORD_AGGR_STAT_MAX);
} record_aggr_stats SEC(".maps");

/* the event samples PERF_SAMPLE_CPU: keep the CPU in the key */
const volatile bool key_has_cpu;

/*
 * The set of maps to count into: record_aggr_set's one slot holds
 * record_aggr_set_main, whose value is RECORD_AGGR_SET_MAIN, or
 * record_aggr_set_alt (RECORD_AGGR_SET_ALT). A slot holds one map and the
 * counts and stack maps of a set change together, so the slot holds a map
 * naming the set rather than the maps themselves.
 */
struct record_aggr_set_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} record_aggr_set_main SEC(".maps"), record_aggr_set_alt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct record_aggr_set_map);
} record_aggr_set SEC(".maps") = {
	.values = { &record_aggr_set_main },
};

static void record_aggr_stat_add(__u32 stat, __u64 n)
{
	/* cannot fail: stat < RECORD_AGGR_STAT_MAX, the array's size */
	__u64 *count = bpf_map_lookup_elem(&record_aggr_stats, &stat);

	if (count)
		*count += n;
}

static void record_aggr_stat_inc(__u32 stat)
{
	record_aggr_stat_add(stat, 1);
}

/* count one sample into the counts and stacks maps of one set */
static __always_inline int record_aggr_count(struct bpf_perf_event_data___record_aggr *ctx,
					     void *counts, void *stacks)
{
	struct record_aggr_key key = {};
	struct record_aggr_value *val;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 period = ctx->sample_period;
	__u64 now = bpf_ktime_get_ns();
	long err;

	key.pid = pid_tgid >> 32;
	key.tid = (__u32)pid_tgid;
	if (key_has_cpu)
		key.cpu = bpf_get_smp_processor_id();

	/* no kernel stack when the sample hit user mode: -EFAULT */
	key.kernel_stack_id = bpf_get_stackid(ctx, stacks, 0);
	if (key.kernel_stack_id == -EFAULT)
		key.kernel_stack_id = RECORD_AGGR_NO_STACK;
	/* kernel threads have no user stack either */
	key.user_stack_id = bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK);
	if (key.user_stack_id == -EFAULT)
		key.user_stack_id = RECORD_AGGR_NO_STACK;

	if (key.kernel_stack_id < RECORD_AGGR_NO_STACK ||
	    key.user_stack_id < RECORD_AGGR_NO_STACK) {
		record_aggr_stat_inc(RECORD_AGGR_STAT_STACK_FAILED);
		return 1;
	}

	val = bpf_map_lookup_elem(counts, &key);
	if (!val) {
		struct record_aggr_value init = {
			.period		= period,
			.nr_samples	= 1,
			.last_time_ns	= now,
		};

		err = bpf_map_update_elem(counts, &key, &init, BPF_NOEXIST);
		if (!err)
			goto counted;
		/* -EEXIST: another CPU added the key meanwhile */
		if (err == -EEXIST)
			val = bpf_map_lookup_elem(counts, &key);
		if (!val) {
			record_aggr_stat_inc(err == -E2BIG ? RECORD_AGGR_STAT_MAP_FULL :
					     RECORD_AGGR_STAT_UPDATE_FAILED);
			return 1;
		}
	}
	__sync_fetch_and_add(&val->period, period);
	__sync_fetch_and_add(&val->nr_samples, 1);
	val->last_time_ns = now;
counted:
	record_aggr_stat_inc(RECORD_AGGR_STAT_AGGREGATED);
	return 0;
}

SEC("perf_event")
int record_aggr_sample(struct bpf_perf_event_data___record_aggr *ctx)
{
	__u32 zero = 0, *set = NULL;
	void *set_map;

	record_aggr_stat_add(RECORD_AGGR_STAT_PERIOD, ctx->sample_period);
	set_map = bpf_map_lookup_elem(&record_aggr_set, &zero);
	if (set_map)
		set = bpf_map_lookup_elem(set_map, &zero);
	if (set && *set == RECORD_AGGR_SET_ALT)
		return record_aggr_count(ctx, &record_aggr_counts_alt, &record_aggr_stacks_alt);
	return record_aggr_count(ctx, &record_aggr_counts, &record_aggr_stacks);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
