/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Types shared by syscall_summary.bpf.c and util/bpf-trace-summary.c */
#ifndef __PERF_BPF_SKEL_SYSCALL_SUMMARY_H
#define __PERF_BPF_SKEL_SYSCALL_SUMMARY_H

/* How 'perf trace -s|-S' groups its syscall statistics (--summary-mode) */
enum trace_summary_mode {
	TRACE_SUMMARY_MODE__THREAD,
	TRACE_SUMMARY_MODE__TOTAL,
	TRACE_SUMMARY_MODE__CGROUP,	/* --bpf-summary only */
};

/* Which tasks are counted */
enum syscall_summary_task_filter {
	SYSCALL_SUMMARY_TASKS_ALL,
	SYSCALL_SUMMARY_TASKS_TGID,	/* processes in task_filter, and their children */
	SYSCALL_SUMMARY_TASKS_TID,	/* threads in task_filter */
};

/* ABI of a syscall, recorded at sys_enter */
enum syscall_summary_abi {
	SYSCALL_SUMMARY_ABI_NATIVE,
	SYSCALL_SUMMARY_ABI_COMPAT,	/* e.g. i386 on x86_64 */
	SYSCALL_SUMMARY_ABI_MAX,
};

#ifndef TASK_COMM_LEN
#define TASK_COMM_LEN	16	/* size of the thread names kept for thread mode */
#endif

/* Syscall numbers at or above this are not counted (and are reported) */
#define SYSCALL_SUMMARY_MAX_NR	1024

struct syscall_summary_key {
	__u64 group;	/* tid, cgroup id or 0 for the total */
	__u32 nr;	/* syscall number in the table of the ABI */
	__u32 abi;	/* enum syscall_summary_abi */
};

/* Per-CPU statistics of one key; durations in nsec */
struct syscall_summary_value {
	__u64 calls;
	__u64 errors;
	__u64 total_ns;
	__u64 min_ns;		/* only valid when calls > 0 */
	__u64 max_ns;
	__u64 squares_lo;	/* sum of duration^2, 128-bit */
	__u64 squares_hi;
};

/* --errno-summary: per-CPU count of the failures of one key with one errno */
struct syscall_summary_errno_key {
	struct syscall_summary_key call;
	__u32 err;	/* the positive errno */
	__u32 pad;
};

#endif /* __PERF_BPF_SKEL_SYSCALL_SUMMARY_H */
