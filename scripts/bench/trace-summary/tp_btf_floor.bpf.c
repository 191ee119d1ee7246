// SPDX-License-Identifier: GPL-2.0
/* Two empty tp_btf programs: the least any in-kernel syscall counter costs */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tp_btf/sys_enter")
int floor_sys_enter(void *ctx)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int floor_sys_exit(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
