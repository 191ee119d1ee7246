// SPDX-License-Identifier: GPL-2.0
/*
 * An empty perf_event program: attached to the sampling event it runs on
 * every sample and returns 0, so no sample reaches the ring buffer.  The
 * least perf record --bpf-aggr's overflow handler can cost.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("perf_event")
int floor_sample(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
