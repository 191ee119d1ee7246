// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bperf task program: counts the tasks of the perf-stat --bpf-counters
 * sessions of one event (-p, -t, a workload), beside the event's leader.
 *
 * It reads the leader's perf_events (its events map is reused) at each
 * context switch, and adds the delta since the previous reading on that
 * CPU, counted while the task leaving the CPU ran, to each enabled session
 * slot whose filter holds that task.  User space runs it on each CPU with
 * BPF_PROG_TEST_RUN before reading, which credits the current tasks.
 *
 * bperf_on_fork adds the tasks forked by a counted task to the filters of
 * the sessions that inherit; exiting tasks leave the filters.
 * bperf_on_exit stops counting a task where perf stat stops, on kernels
 * that stop it before the task tears down its memory; bperf_on_exec starts
 * the sessions of a workload at its exec, as enable_on_exec does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <asm-generic/errno-base.h>
#include "bperf_u.h"

/* CO-RE view of the fields telling whether a task or its group exited */
struct signal_struct___bperf {
	struct {
		int counter;
	} live;
} __attribute__((preserve_access_index));

struct task_struct___bperf {
	unsigned int flags;
	int exit_state;
	struct signal_struct___bperf *signal;
	void *mm;
} __attribute__((preserve_access_index));

#define PF_EXITING	0x00000004	/* include/linux/sched.h */

/* the leader's, reused: one perf_event per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} events SEC(".maps");

/* the reading of this CPU's event at the previous run */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} tasks_prev SEC(".maps");

/*
 * Set on this CPU while bperf_on_exit or bperf_on_exec updates it: they run
 * with interrupts on and may be preempted, and a switch or a test run in
 * between would credit the same delta twice, or have its newer reading
 * overwritten.  Such a run leaves the delta to the next one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} tasks_busy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bperf_tasks_info));
	__uint(max_entries, 1);
} bperf_info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bperf_session));
	__uint(max_entries, BPERF_DEFAULT_SESSIONS);	/* set by user space */
} bperf_sessions SEC(".maps");

/* (slot, tid or tgid) -> index of the accumulator in that slot */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct bperf_filter_key));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);	/* set by user space */
} bperf_filter SEC(".maps");

/*
 * Every tid and tgid some slot's filter holds, with no slot: a task whose
 * tid and tgid are not here is counted by no session, and its switches
 * skip the loop over the slots.  An id enters before its filter entries
 * and leaves when its task or thread group exits, so it may stay after its
 * sessions ended, costing a loop, but is never missing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u8));
	__uint(max_entries, 1);	/* set by user space */
} bperf_ids SEC(".maps");

/* bperf_accum_key(slot, index) -> per-CPU accumulated readings */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);	/* set by user space */
} bperf_accum SEC(".maps");

/*
 * Tasks perf stat no longer counts, though exit_notify() has not set their
 * exit_state yet: on kernels that call perf_event_exit_task() before
 * exit_mm(), nothing is counted of a task tearing down its memory.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} bperf_stopped SEC(".maps");

/* set by user space before loading: the event counts context switches */
const volatile bool switch_event;
/* set by user space before loading: the entries of bperf_sessions */
const volatile __u32 max_slots = BPERF_DEFAULT_SESSIONS;

/* number of slots to scan, at most max_slots */
static __always_inline __u32 nr_slots(void)
{
	struct bperf_tasks_info *info;
	__u32 zero = 0;

	info = bpf_map_lookup_elem(&bperf_info, &zero);
	if (!info || info->nr_slots > max_slots)
		return 0;
	return info->nr_slots;
}

/* may a session count the task @pid_tgid? */
static __always_inline bool maybe_counted(__u64 pid_tgid)
{
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;

	return bpf_map_lookup_elem(&bperf_ids, &tid) ||
	       bpf_map_lookup_elem(&bperf_ids, &tgid);
}

/*
 * The filter entry of the task @pid_tgid in session slot @slot, if the
 * slot is counting and counts it; the slot's session in @sp.
 */
static __always_inline __u32 *slot_filter(__u32 slot, __u64 pid_tgid,
					  struct bperf_session **sp)
{
	struct bperf_filter_key fkey = { .slot = slot, };
	struct bperf_session *s;

	s = bpf_map_lookup_elem(&bperf_sessions, &slot);
	if (!s || s->state != BPERF_SESSION_ENABLED)
		return NULL;

	/*
	 * Without inherit, a process is counted by its threads at the start,
	 * not by the threads it creates later, as perf stat --no-inherit does
	 */
	if (s->filter_type == BPERF_FILTER_PID ||
	    (s->filter_type == BPERF_FILTER_TGID && !s->inherit))
		fkey.id = (__u32)pid_tgid;
	else if (s->filter_type == BPERF_FILTER_TGID)
		fkey.id = pid_tgid >> 32;
	else
		return NULL;
	*sp = s;
	return bpf_map_lookup_elem(&bperf_filter, &fkey);
}

struct switch_ctx {
	struct bpf_perf_event_value diff;
	__u64 pid_tgid;
	bool switching;
};

/* bpf_loop() callback: add the delta to session slot @slot if it matches */
static int account_slot(__u32 slot, void *data)
{
	struct bpf_perf_event_value *accum_val;
	struct switch_ctx *ctx = data;
	struct bperf_session *s;
	__u32 *idxp;
	__u64 akey;

	idxp = slot_filter(slot, ctx->pid_tgid, &s);
	if (!idxp)
		return 0;
	akey = bperf_accum_key(slot, *idxp);
	accum_val = bpf_map_lookup_elem(&bperf_accum, &akey);
	if (!accum_val)
		return 0;
	accum_val->counter += ctx->diff.counter;
	accum_val->enabled += ctx->diff.enabled;
	accum_val->running += ctx->diff.running;
	if (ctx->switching)
		__sync_fetch_and_add(&s->nr_switches, 1);
	return 0;
}

struct exit_ctx {
	__u32 pid;
	__u32 tgid;
	bool group_dead;
};

/*
 * bpf_loop() callback: an exiting task leaves the filter of slot @slot, so
 * that inherited entries do not pile up and a reused pid is not counted.
 */
static int forget_slot(__u32 slot, void *data)
{
	struct exit_ctx *ctx = data;
	struct bperf_filter_key key = { .slot = slot, };
	struct bperf_session *s;

	s = bpf_map_lookup_elem(&bperf_sessions, &slot);
	if (!s || s->state == BPERF_SESSION_FREE)
		return 0;

	if (s->filter_type == BPERF_FILTER_PID ||
	    (s->filter_type == BPERF_FILTER_TGID && !s->inherit))
		key.id = ctx->pid;
	else if (s->filter_type == BPERF_FILTER_TGID && ctx->group_dead)
		key.id = ctx->tgid;
	else
		return 0;
	bpf_map_delete_elem(&bperf_filter, &key);
	return 0;
}

/* @task is exiting: it leaves the filters of all slots */
static __always_inline void forget_task(struct task_struct *task, __u32 nr)
{
	struct exit_ctx ectx = {
		.pid = task->pid,
		.tgid = task->tgid,
		.group_dead = BPF_CORE_READ((struct task_struct___bperf *)task,
					    signal, live.counter) == 0,
	};

	if (!maybe_counted((__u64)ectx.tgid << 32 | ectx.pid))
		return;
	bpf_loop(nr, forget_slot, &ectx, 0);
	/* a group leader's tid is its tgid, which its threads still need */
	if (ectx.pid != ectx.tgid)
		bpf_map_delete_elem(&bperf_ids, &ectx.pid);
	if (ectx.group_dead)
		bpf_map_delete_elem(&bperf_ids, &ectx.tgid);
}

/* bperf_on_exit marked @task: perf no longer counts it */
static __always_inline bool perf_stopped_counting(struct task_struct *task)
{
	if (!(BPF_CORE_READ((struct task_struct___bperf *)task, flags) & PF_EXITING))
		return false;
	return bpf_task_storage_get(&bperf_stopped, task, NULL, 0);
}

/*
 * Credit the task leaving the CPU (@switching), or the current one, with
 * what was counted on this CPU since the previous reading, to the slots
 * counting it.
 */
static __always_inline void credit_current(struct bpf_perf_event_value *prev_val,
					   bool switching, __u32 nr)
{
	struct bpf_perf_event_value val;
	struct switch_ctx sctx = {};
	struct task_struct *task;
	bool exited = false, counted = true;

	if (bpf_perf_event_read_value(&events, bpf_get_smp_processor_id(), &val, sizeof(val)))
		return;

	sctx.diff.counter = val.counter - prev_val->counter;
	sctx.diff.enabled = val.enabled - prev_val->enabled;
	sctx.diff.running = val.running - prev_val->running;
	*prev_val = val;

	/*
	 * perf stat counts a task until perf_event_exit_task(), which on some
	 * kernels comes right before exit_notify() sets exit_state: the slice
	 * of a dying task is counted for it (a short-lived child may do all
	 * its work in it), and then the task leaves the filters.  Kernels
	 * that call perf_event_exit_task() earlier have it marked by
	 * bperf_on_exit.
	 */
	task = bpf_get_current_task_btf();
	if (switching) {
		exited = BPF_CORE_READ((struct task_struct___bperf *)task,
				       exit_state) != 0;
		counted = !perf_stopped_counting(task);
	}

	/*
	 * perf_event_task_sched_out() counts this switch after the
	 * tracepoint, and perf stat counts it for the task leaving the CPU:
	 * credit it to that task now instead of to the next one, unless its
	 * counters are already gone.
	 */
	if (switch_event && switching) {
		prev_val->counter++;
		if (!exited && counted)
			sctx.diff.counter++;
	}

	sctx.pid_tgid = bpf_get_current_pid_tgid();
	sctx.switching = switching;
	if (counted && maybe_counted(sctx.pid_tgid))
		bpf_loop(nr, account_slot, &sctx, 0);

	if (exited)
		forget_task(task, nr);
}

/*
 * Bring this CPU's reading up to date and credit what was counted since
 * the previous run.  @switching is false when user space runs the program
 * through BPF_PROG_TEST_RUN to read the counters, and when the current
 * task stops being counted (@in_task).
 *
 * bperf_on_exit and bperf_on_exec run with interrupts on and may be
 * preempted: they mark the CPU busy, and a switch or a test run meanwhile
 * leaves the delta to the next run rather than credit it twice or have
 * its newer reading overwritten.
 */
static __always_inline void bperf_update(bool switching, bool in_task)
{
	struct bpf_perf_event_value *prev_val;
	__u32 zero = 0, nr = nr_slots(), *busy;

	/*
	 * Without slots in use there is nothing to credit at a switch.  A
	 * session taking the first slot runs the program on every CPU after
	 * setting nr_slots, before it enables its slot, so no stale reading
	 * is credited from then on.
	 */
	if (switching && !nr)
		return;

	prev_val = bpf_map_lookup_elem(&tasks_prev, &zero);
	busy = bpf_map_lookup_elem(&tasks_busy, &zero);
	if (!prev_val || !busy || *busy)
		return;

	if (in_task)
		*busy = 1;
	credit_current(prev_val, switching, nr);
	if (in_task)
		*busy = 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(bperf_on_switch)
{
	/* a test run passes a context of zeros */
	bperf_update(ctx[1] != 0, false);
	return 0;
}

struct counted_ctx {
	__u64 pid_tgid;
	bool counted;
};

/* bpf_loop() callback: stop at the first slot counting @data's task */
static int counted_slot(__u32 slot, void *data)
{
	struct counted_ctx *ctx = data;
	struct bperf_session *s;

	if (!slot_filter(slot, ctx->pid_tgid, &s))
		return 0;
	ctx->counted = true;
	return 1;
}

/*
 * A task that reaches sched_process_exit with its memory still mapped runs
 * on a kernel that calls perf_event_exit_task() before exit_mm() (7.3 calls
 * it right after this tracepoint): credit the task what it counted up to
 * now and mark it, so that its switches and faults from here to
 * exit_notify() are not counted, as perf stat does not count them.  Where
 * exit_mm() comes first (6.12), perf counts the task until right before
 * exit_notify(), and so does bperf_on_switch.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(bperf_on_exit, struct task_struct *task)
{
	struct counted_ctx cctx = { .pid_tgid = bpf_get_current_pid_tgid(), };
	__u32 nr = nr_slots();

	if (!nr || !BPF_CORE_READ((struct task_struct___bperf *)task, mm) ||
	    !maybe_counted(cctx.pid_tgid))
		return 0;

	/* the tasks no session counts get no storage */
	bpf_loop(nr, counted_slot, &cctx, 0);
	if (!cctx.counted)
		return 0;

	bperf_update(false, true);
	bpf_task_storage_get(&bperf_stopped, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

struct fork_ctx {
	struct task_struct *parent;
	struct task_struct *child;
};

/* bpf_loop() callback: follow the child if slot @slot counts its parent */
static int inherit_slot(__u32 slot, void *data)
{
	struct bperf_filter_key pkey, ckey;
	struct fork_ctx *ctx = data;
	struct bperf_session *s;
	__u8 one = 1;
	__u32 *idxp;

	s = bpf_map_lookup_elem(&bperf_sessions, &slot);
	if (!s || s->state == BPERF_SESSION_FREE || !s->inherit)
		return 0;

	pkey.slot = slot;
	ckey.slot = slot;
	if (s->filter_type == BPERF_FILTER_PID) {
		pkey.id = ctx->parent->pid;
		ckey.id = ctx->child->pid;
	} else if (s->filter_type == BPERF_FILTER_TGID) {
		/* a new thread is already counted through its tgid */
		if (ctx->child->tgid == ctx->parent->tgid)
			return 0;
		pkey.id = ctx->parent->tgid;
		ckey.id = ctx->child->tgid;
	} else {
		return 0;
	}
	idxp = bpf_map_lookup_elem(&bperf_filter, &pkey);
	if (!idxp)
		return 0;
	/* a child missing from bperf_ids would not be counted: drop it, said */
	if (bpf_map_update_elem(&bperf_ids, &ckey.id, &one, BPF_ANY) ||
	    bpf_map_update_elem(&bperf_filter, &ckey, idxp, BPF_NOEXIST) == -E2BIG)
		__sync_fetch_and_add(&s->nr_dropped, 1);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(bperf_on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct fork_ctx fctx = { .parent = parent, .child = child, };

	if (!maybe_counted((__u64)parent->tgid << 32 | (__u32)parent->pid))
		return 0;
	bpf_loop(nr_slots(), inherit_slot, &fctx, 0);
	return 0;
}

struct exec_ctx {
	__u32 tgid;
	bool found;
	bool enable;
};

/*
 * bpf_loop() callback: find, or with @enable start, the slots waiting for
 * the exec of @tgid
 */
static int exec_slot(__u32 slot, void *data)
{
	struct exec_ctx *ctx = data;
	struct bperf_session *s;

	s = bpf_map_lookup_elem(&bperf_sessions, &slot);
	if (!s || s->state != BPERF_SESSION_EXEC || s->exec_tgid != ctx->tgid)
		return 0;
	ctx->found = true;
	if (!ctx->enable)
		return 1;
	s->state = BPERF_SESSION_ENABLED;
	return 0;
}

/*
 * perf stat counts its workload from its exec: the events have
 * enable_on_exec, which perf_event_exec() acts on in begin_new_exec(),
 * right before __set_task_comm() names the task after the new program.
 * sched_process_exec comes later, after the new program is mapped.
 * Sessions of a workload wait in BPERF_SESSION_EXEC until then: what the
 * workload counted before (perf's child waiting for the go signal, its
 * copy-on-write faults, the exec up to here) is not counted.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(bperf_on_exec, struct task_struct *task, const char *comm)
{
	struct exec_ctx ectx = { .tgid = task->tgid, };
	__u32 nr = nr_slots();

	if (!nr || task != bpf_get_current_task_btf())
		return 0;
	bpf_loop(nr, exec_slot, &ectx, 0);
	if (!ectx.found)
		return 0;
	/* credit what was counted up to the exec to the sessions counting */
	bperf_update(false, true);
	ectx.enable = true;
	bpf_loop(nr, exec_slot, &ectx, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
