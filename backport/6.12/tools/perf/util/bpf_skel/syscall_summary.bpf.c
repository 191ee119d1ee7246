// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Syscall statistics for 'perf trace -s --bpf-summary'.
 *
 * sys_enter remembers in task storage when a selected task entered which
 * syscall and with which ABI; sys_exit adds the duration to per-CPU
 * statistics keyed by (thread, cgroup or nothing, syscall, ABI).  Nothing is
 * copied to user space per syscall: perf reads the maps once at the end.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "syscall_summary.h"
#include "task_cgroup_id.h"

struct syscall_start {
	__u64 start_ns;
	__u32 nr;
	__u32 abi;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct syscall_start);
} syscall_start SEC(".maps");

/*
 * The hashes are allocated as their keys appear (BPF_F_NO_PREALLOC): their
 * max_entries bound them, but a session holds only what it counts.
 */

/* tgids or tids to count, see task_filter_type */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} task_filter SEC(".maps");

/* processes not to count: --filter-pids, and perf itself when tracing all */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, bool);
	__uint(max_entries, 1);
} pids_excluded SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} cpu_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u8);
	__uint(max_entries, 1);
} cgroup_filter SEC(".maps");

/* thread and cgroup modes */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct syscall_summary_key);
	__type(value, struct syscall_summary_value);
	__uint(max_entries, 1);
} syscall_stats SEC(".maps");

/* total mode: indexed by abi * SYSCALL_SUMMARY_MAX_NR + nr, no hashing */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct syscall_summary_value);
	__uint(max_entries, 1);
} syscall_stats_total SEC(".maps");

/* --errno-summary: failures per key and errno, touched only by failed calls */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct syscall_summary_errno_key);
	__type(value, __u64);
	__uint(max_entries, 1);
} syscall_errnos SEC(".maps");

/* thread mode: the latest command name of each counted thread */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, char[TASK_COMM_LEN]);
	__uint(max_entries, 1);
} thread_comm SEC(".maps");

const volatile int group_by = TRACE_SUMMARY_MODE__THREAD;
const volatile int task_filter_type = SYSCALL_SUMMARY_TASKS_ALL;
const volatile bool has_cpu_filter;
const volatile bool has_cgroup_filter;
const volatile bool uses_cgroup_v1;
const volatile bool count_errnos;

/* Calls that could not be counted because a map was full, or nr too big */
__u64 nr_not_counted;
/* Children of counted processes that could not be added to task_filter */
__u64 nr_tasks_not_followed;
/* Failures whose errno could not be counted because syscall_errnos was full */
__u64 nr_errnos_not_counted;

#if defined(__TARGET_ARCH_x86)
#define TS_COMPAT	0x0002	/* x86: 32-bit syscall active */
#define X32_SYSCALL_BIT	0x40000000

struct thread_info___x86 {
	__u32 status;
} __attribute__((preserve_access_index));

struct task_struct___x86 {
	struct thread_info___x86 thread_info;
} __attribute__((preserve_access_index));

/* x86_64 marks the syscall of a 32-bit task in its thread status */
static __u32 syscall_abi(struct task_struct *task)
{
	struct task_struct___x86 *t = (void *)task;

	/* a plain load: task is a trusted BTF pointer in tp_btf programs */
	if (bpf_core_field_exists(t->thread_info.status) &&
	    (t->thread_info.status & TS_COMPAT))
		return SYSCALL_SUMMARY_ABI_COMPAT;
	return SYSCALL_SUMMARY_ABI_NATIVE;
}

/* x32 syscalls are the x86_64 ones with a bit set */
static __u32 syscall_nr(long id)
{
	return id & ~X32_SYSCALL_BIT;
}
#else
/* compat syscalls are told apart on x86 only, elsewhere counted as native */
static __u32 syscall_abi(struct task_struct *task)
{
	return SYSCALL_SUMMARY_ABI_NATIVE;
}

static __u32 syscall_nr(long id)
{
	return id;
}
#endif

static bool cpu_selected(void)
{
	__u32 cpu;
	__u8 *ok;

	if (!has_cpu_filter)
		return true;

	cpu = bpf_get_smp_processor_id();
	ok = bpf_map_lookup_elem(&cpu_filter, &cpu);
	return ok && *ok;
}

static bool cgroup_selected(struct task_struct *task)
{
	__u64 cgrp_id;

	if (!has_cgroup_filter)
		return true;

	cgrp_id = task_cgroup_id(task, uses_cgroup_v1);
	return bpf_map_lookup_elem(&cgroup_filter, &cgrp_id);
}

/* A task keeps its tgid and tid: checked once, when its storage is created */
static bool task_selected(struct task_struct *task)
{
	__u32 id = task->tgid;

	if (bpf_map_lookup_elem(&pids_excluded, &id))
		return false;

	if (task_filter_type == SYSCALL_SUMMARY_TASKS_ALL)
		return true;

	id = task_filter_type == SYSCALL_SUMMARY_TASKS_TGID ? task->tgid : task->pid;
	return bpf_map_lookup_elem(&task_filter, &id);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct syscall_start *start;

	if (!cpu_selected() || !cgroup_selected(task))
		return 0;

	/* Only selected tasks have storage: no filter lookup on the fast path */
	start = bpf_task_storage_get(&syscall_start, task, NULL, 0);
	if (!start) {
		if (!task_selected(task))
			return 0;
		start = bpf_task_storage_get(&syscall_start, task, NULL,
					     BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!start)
			return 0;
	}

	start->nr = syscall_nr(id);
	start->abi = syscall_abi(task);
	start->start_ns = bpf_ktime_get_ns();
	return 0;
}

/* Adds duration^2 to the 128-bit sum of squares without a 128-bit multiply */
static void add_square(struct syscall_summary_value *val, __u64 duration)
{
	__u64 hi = duration >> 32, lo = duration & 0xffffffff;
	__u64 cross = hi * lo;	/* counted twice, shifted by 32 */
	__u64 sq_lo = lo * lo, sq_hi = hi * hi + (cross >> 31);
	__u64 t = sq_lo + (cross << 33);

	sq_hi += t < sq_lo;
	val->squares_lo += t;
	val->squares_hi += sq_hi + (val->squares_lo < t);
}

static void update_value(struct syscall_summary_value *val, __u64 duration, long ret)
{
	if (val->calls == 0 || duration < val->min_ns)
		val->min_ns = duration;
	if (duration > val->max_ns)
		val->max_ns = duration;
	val->calls++;
	val->total_ns += duration;
	if (ret < 0)
		val->errors++;
	add_square(val, duration);
}

static void count_errno(const struct syscall_summary_key *call, long ret)
{
	struct syscall_summary_errno_key key = {
		.call = *call,
		.err = -ret,
	};
	__u64 *count, zero = 0;

	count = bpf_map_lookup_elem(&syscall_errnos, &key);
	if (!count) {
		bpf_map_update_elem(&syscall_errnos, &key, &zero, BPF_NOEXIST);
		count = bpf_map_lookup_elem(&syscall_errnos, &key);
	}
	if (!count) {
		__sync_fetch_and_add(&nr_errnos_not_counted, 1);
		return;
	}
	(*count)++;
}

static void count_syscall(struct task_struct *task, struct syscall_start *start,
			  __u64 duration, long ret)
{
	struct syscall_summary_value *val, zero = {};
	struct syscall_summary_key key = {
		.nr = start->nr,
		.abi = start->abi,
	};

	if (group_by == TRACE_SUMMARY_MODE__TOTAL) {
		__u32 idx = start->abi * SYSCALL_SUMMARY_MAX_NR + start->nr;

		val = start->nr < SYSCALL_SUMMARY_MAX_NR ?
			bpf_map_lookup_elem(&syscall_stats_total, &idx) : NULL;
		goto update;
	}

	if (group_by == TRACE_SUMMARY_MODE__THREAD)
		key.group = task->pid;
	else
		key.group = task_cgroup_id(task, uses_cgroup_v1);

	val = bpf_map_lookup_elem(&syscall_stats, &key);
	if (!val) {
		if (group_by == TRACE_SUMMARY_MODE__THREAD) {
			char comm[TASK_COMM_LEN];
			__u32 tid = task->pid;

			bpf_get_current_comm(comm, sizeof(comm));
			bpf_map_update_elem(&thread_comm, &tid, comm, BPF_ANY);
		}
		bpf_map_update_elem(&syscall_stats, &key, &zero, BPF_NOEXIST);
		val = bpf_map_lookup_elem(&syscall_stats, &key);
	}
update:
	if (!val) {
		__sync_fetch_and_add(&nr_not_counted, 1);
		return;
	}
	update_value(val, duration, ret);
	if (count_errnos && ret < 0)
		count_errno(&key, ret);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct syscall_start *start;
	__u64 now = bpf_ktime_get_ns();

	start = bpf_task_storage_get(&syscall_start, task, NULL, 0);
	if (!start || !start->start_ns)
		return 0;

	count_syscall(task, start, now - start->start_ns, ret);
	start->start_ns = 0;
	return 0;
}

/* Children of a counted process are counted too, as 'perf trace' does */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ptgid == ctgid || !bpf_map_lookup_elem(&task_filter, &ptgid))
		return 0;

	if (bpf_map_update_elem(&task_filter, &ctgid, &one, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&task_filter, &ctgid))
		__sync_fetch_and_add(&nr_tasks_not_followed, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
