// SPDX-License-Identifier: GPL-2.0
/*
 * An empty raw_tp program on sched_switch, the attach type of perf stat
 * --bpf-counters' leader program: the least its switch hook can cost.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("raw_tp/sched_switch")
int floor_raw_switch(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
