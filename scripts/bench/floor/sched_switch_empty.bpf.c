// SPDX-License-Identifier: GPL-2.0
/* An empty tp_btf program on sched_switch: the least any switch hook costs */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tp_btf/sched_switch")
int floor_sched_switch(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
