// SPDX-License-Identifier: GPL-2.0
/*
 * The floor plus the two clock reads any syscall duration needs: sys_enter
 * keeps bpf_ktime_get_ns() in a per-CPU slot, sys_exit subtracts it from a
 * second reading.  Nothing is looked up per task and nothing is summed:
 * what this adds over the floor is the price of the clock.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
	__uint(max_entries, 2);
} clock_slot SEC(".maps");

SEC("tp_btf/sys_enter")
int clock_sys_enter(void *ctx)
{
	__u32 key = 0;
	__u64 *start = bpf_map_lookup_elem(&clock_slot, &key);

	if (start)
		*start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int clock_sys_exit(void *ctx)
{
	__u32 key = 0, sum_key = 1;
	__u64 *start = bpf_map_lookup_elem(&clock_slot, &key);
	__u64 *sum = bpf_map_lookup_elem(&clock_slot, &sum_key);

	if (start && sum)
		*sum += bpf_ktime_get_ns() - *start;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
