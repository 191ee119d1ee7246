// SPDX-License-Identifier: GPL-2.0
/*
 * The user stack walk alone, as perf record --off-cpu does it when a task
 * goes to sleep: on sched_switch, if the task leaving the CPU sleeps
 * (prev_state TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE), bpf_get_stack()
 * of up to 32 user frames into a per-CPU buffer.  No task storage, no
 * filter, no map keyed by the stack: what off-cpu adds over this is the
 * rest of its bookkeeping.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define USTACK_DEPTH 32

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, USTACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);
} ustack_buf SEC(".maps");

/* sched_switch(bool preempt, prev, next, unsigned int prev_state) */
SEC("tp_btf/sched_switch")
int floor_ustack(unsigned long long *ctx)
{
	unsigned int state = ctx[3] & 0xff;
	__u32 key = 0;
	void *buf;

	if (state != 1 && state != 2)
		return 0;
	buf = bpf_map_lookup_elem(&ustack_buf, &key);
	if (buf)
		bpf_get_stack(ctx, buf, USTACK_DEPTH * sizeof(__u64), BPF_F_USER_STACK);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
