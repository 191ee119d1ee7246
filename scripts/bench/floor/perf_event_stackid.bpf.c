// SPDX-License-Identifier: GPL-2.0
/*
 * The two stack walks of perf record --bpf-aggr alone: on every sample,
 * bpf_get_stackid() of the kernel stack and of the user stack into a stack
 * map of PERF_MAX_STACK_DEPTH (127) frames an entry, 32768 entries (what
 * --bpf-aggr's default 8192 keys get, see record_aggr_data.h), then return
 * 0 so that no sample reaches the ring buffer.  No map keyed by the pair of
 * stack ids, no counts: what --bpf-aggr adds over this is that bookkeeping.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STACK_DEPTH 127

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 32768);
} floor_stacks SEC(".maps");

SEC("perf_event")
int floor_stackid(void *ctx)
{
	bpf_get_stackid(ctx, &floor_stacks, 0);
	bpf_get_stackid(ctx, &floor_stacks, BPF_F_USER_STACK);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
