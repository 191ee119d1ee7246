// SPDX-License-Identifier: GPL-2.0
/*
 * 'perf trace -s --bpf-summary': syscall statistics kept by BPF programs on
 * the raw syscall tracepoints (bpf_skel/syscall_summary.bpf.c), read once at
 * the end and printed like the user-space summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/err.h>
#include <linux/rbtree.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <perf/cpumap.h>

#include "cap.h"
#include "cgroup.h"
#include "cpumap.h"
#include "debug.h"
#include "intlist.h"
#include "syscalltbl.h"
#include "target.h"
#include "trace-summary.h"

#include "bpf_skel/syscall_summary.h"
#include "bpf_skel/syscall_summary.skel.h"

/*
 * Map sizes; a call that finds its map full is counted as not counted.
 * Threads are counted by the syscalls they make: all of a system's (-a,
 * -C), or those of a workload, -p or -t.
 */
#define SYSCALL_STATS_THREAD_ENTRIES	65536
#define SYSCALL_STATS_TASKS_ENTRIES	16384
#define SYSCALL_STATS_CGROUP_ENTRIES	16384
#define TASK_FILTER_ENTRIES		16384
#define SYSCALL_ERRNOS_ENTRIES		16384
/* room for perf and the terminal it runs in, see trace__set_filter_loop_pids() */
#define PIDS_EXCLUDED_LOOP		32

static struct syscall_summary_bpf *skel;
static enum trace_summary_mode summary_mode;
/* what trace_summary_bpf__load() was given, for __prepare() */
static struct trace_summary_bpf_target loaded;

/* With tgt->quiet the caller falls back to user space and says so itself */
static void __printf(2, 3) load_error(const struct trace_summary_bpf_target *tgt,
				      const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	veprintf(tgt->quiet ? 1 : 0, verbose, fmt, args);
	va_end(args);
}

/* -e: the syscalls printed, chosen when reading: nothing to do per call */
static struct {
	int	*ids;
	int	nr;
	bool	not;
} syscall_list;

int trace_summary_bpf__check(void)
{
	return perf_cap__check_bpf_skel("--bpf-summary");
}

static int add_task_filter(const char *list)
{
	struct intlist *ids = intlist__new(list);
	struct int_node *inode;
	int fd, err = 0;
	__u8 one = 1;

	if (!ids) {
		pr_err("--bpf-summary: cannot parse '%s'\n", list);
		return -EINVAL;
	}

	fd = bpf_map__fd(skel->maps.task_filter);
	intlist__for_each_entry(inode, ids) {
		__u32 id = inode->i;

		err = bpf_map_update_elem(fd, &id, &one, BPF_ANY);
		if (err)
			break;
	}
	intlist__delete(ids);
	return err;
}

static int count_list(const char *list)
{
	struct intlist *ids = intlist__new(list);
	int nr = ids ? intlist__nr_entries(ids) : 1;

	intlist__delete(ids);
	return nr ?: 1;
}

/* The tasks a target names, see enum syscall_summary_task_filter */
struct task_selection {
	int		type;
	const char	*ids;		/* tgids or tids, NULL for all tasks */
	int		max_entries;	/* of the task_filter map */
	char		workload_pid[16];
};

static int select_tasks(const struct trace_summary_bpf_target *tgt, pid_t workload_pid,
			struct task_selection *sel)
{
	struct target *target = tgt->target;

	sel->type = SYSCALL_SUMMARY_TASKS_ALL;
	sel->ids = NULL;
	sel->max_entries = 1;

	/* target__validate() sets target->tid to target->pid: check pid first */
	if (target->pid) {
		sel->type = SYSCALL_SUMMARY_TASKS_TGID;
		sel->ids = target->pid;
		sel->max_entries = TASK_FILTER_ENTRIES;
	} else if (target->tid) {
		sel->type = SYSCALL_SUMMARY_TASKS_TID;
		sel->ids = target->tid;
		sel->max_entries = count_list(sel->ids);
	} else if (target__none(target) && tgt->workload) {
		/*
		 * Only the workload and its children, or with --no-inherit its
		 * first thread; with -a or -C all tasks
		 */
		sel->type = tgt->no_inherit ? SYSCALL_SUMMARY_TASKS_TID :
					      SYSCALL_SUMMARY_TASKS_TGID;
		scnprintf(sel->workload_pid, sizeof(sel->workload_pid), "%d", workload_pid);
		sel->ids = sel->workload_pid;
		sel->max_entries = TASK_FILTER_ENTRIES;
	}
	return 0;
}

/* Before load: how statistics are grouped, and the size of their maps */
static void setup_stats(enum trace_summary_mode mode, const struct task_selection *tasks)
{
	int stats_entries = 1;

	summary_mode = mode;
	skel->rodata->group_by = mode;

	switch (mode) {
	case TRACE_SUMMARY_MODE__TOTAL:
		bpf_map__set_max_entries(skel->maps.syscall_stats_total,
					 SYSCALL_SUMMARY_ABI_MAX * SYSCALL_SUMMARY_MAX_NR);
		break;
	case TRACE_SUMMARY_MODE__THREAD:
		stats_entries = tasks->type == SYSCALL_SUMMARY_TASKS_ALL ?
				SYSCALL_STATS_THREAD_ENTRIES : SYSCALL_STATS_TASKS_ENTRIES;
		bpf_map__set_max_entries(skel->maps.thread_comm, stats_entries);
		break;
	case TRACE_SUMMARY_MODE__CGROUP:
	default:
		stats_entries = SYSCALL_STATS_CGROUP_ENTRIES;
		break;
	}
	bpf_map__set_max_entries(skel->maps.syscall_stats, stats_entries);
}

/* Before load: --errno-summary */
static void setup_errnos(bool errno_summary)
{
	skel->rodata->count_errnos = errno_summary;
	if (errno_summary)
		bpf_map__set_max_entries(skel->maps.syscall_errnos, SYSCALL_ERRNOS_ENTRIES);
}

/* Before load: which filters the programs apply */
static int setup_filters(const struct trace_summary_bpf_target *tgt,
			 const struct task_selection *tasks)
{
	skel->rodata->task_filter_type = tasks->type;
	bpf_map__set_max_entries(skel->maps.task_filter, tasks->max_entries);
	/* only processes are followed into their children */
	if (tasks->type != SYSCALL_SUMMARY_TASKS_TGID || tgt->no_inherit)
		bpf_program__set_autoload(skel->progs.sched_process_fork, false);
	bpf_map__set_max_entries(skel->maps.pids_excluded,
				 tgt->nr_filter_pids + PIDS_EXCLUDED_LOOP);

	if (tgt->target->cpu_list) {
		skel->rodata->has_cpu_filter = true;
		bpf_map__set_max_entries(skel->maps.cpu_filter, cpu__max_cpu().cpu);
	}

	if (tgt->cgroup) {
		if (read_cgroup_id(tgt->cgroup) < 0 || tgt->cgroup->id == -1ULL) {
			load_error(tgt, "--bpf-summary: cannot get the id of cgroup %s\n",
				   tgt->cgroup->name);
			return -EINVAL;
		}
		skel->rodata->has_cgroup_filter = true;
	}
	if (tgt->cgroup || tgt->mode == TRACE_SUMMARY_MODE__CGROUP)
		skel->rodata->uses_cgroup_v1 = !cgroup_is_v2("perf_event");
	return 0;
}

static int fill_cpu_filter(const char *cpu_list)
{
	struct perf_cpu_map *cpus = perf_cpu_map__new(cpu_list);
	int idx, err = 0, fd = bpf_map__fd(skel->maps.cpu_filter);
	struct perf_cpu cpu;
	__u8 one = 1;

	if (!cpus) {
		pr_err("--bpf-summary: cannot parse CPU list '%s'\n", cpu_list);
		return -EINVAL;
	}
	perf_cpu_map__for_each_cpu(cpu, idx, cpus) {
		err = bpf_map_update_elem(fd, &cpu.cpu, &one, BPF_ANY);
		if (err)
			break;
	}
	perf_cpu_map__put(cpus);
	return err;
}

/* After load: the tasks, CPUs and cgroup to count */
static int fill_filters(const struct trace_summary_bpf_target *tgt,
			const struct task_selection *tasks)
{
	int err = 0;

	if (tasks->ids)
		err = add_task_filter(tasks->ids);

	if (!err && tgt->target->cpu_list)
		err = fill_cpu_filter(tgt->target->cpu_list);

	if (!err && tgt->cgroup) {
		__u8 one = 1;

		err = bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_filter),
					  &tgt->cgroup->id, &one, BPF_ANY);
	}
	if (err)
		pr_err("--bpf-summary: cannot set up the filters: %s\n", strerror(-err));
	return err;
}

static int set_syscall_list(const struct trace_summary_bpf_target *tgt)
{
	if (!tgt->nr_syscall_ids)
		return 0;

	syscall_list.ids = memdup(tgt->syscall_ids, tgt->nr_syscall_ids * sizeof(int));
	if (!syscall_list.ids)
		return -ENOMEM;
	syscall_list.nr = tgt->nr_syscall_ids;
	syscall_list.not = tgt->not_syscall_ids;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* A compat syscall is in the list of -e when its native namesake is */
static bool syscall_listed(struct syscalltbl *sctbl, int key)
{
	int id = key;
	bool listed;

	if (!syscall_list.nr)
		return true;

	if (key & SYSCALL_STATS__COMPAT)
		id = syscalltbl__id(sctbl, syscall_stats__name(sctbl, key));
	listed = id >= 0 && bsearch(&id, syscall_list.ids, syscall_list.nr, sizeof(int), cmp_int);
	return listed != syscall_list.not;
}

const char *trace_summary_bpf__missing(void)
{
	return perf_cap__bpf_skel_missing();
}

int trace_summary_bpf__load(const struct trace_summary_bpf_target *tgt)
{
	struct task_selection tasks;
	int err;

	err = set_syscall_list(tgt);
	if (err)
		return err;

	/* the workload is not forked yet: only the kind of selection counts */
	err = select_tasks(tgt, /*workload_pid=*/0, &tasks);
	if (err)
		goto out_err;

	skel = syscall_summary_bpf__open();
	if (!skel) {
		load_error(tgt, "--bpf-summary: failed to open the BPF skeleton\n");
		err = -ENOMEM;
		goto out_err;
	}

	setup_stats(tgt->mode, &tasks);
	setup_errnos(tgt->errno_summary);
	err = setup_filters(tgt, &tasks);
	if (err)
		goto out_err;

	err = syscall_summary_bpf__load(skel);
	if (err) {
		load_error(tgt, "--bpf-summary: failed to load the BPF programs: %s\n",
			   strerror(-err));
		goto out_err;
	}
	loaded = *tgt;
	return 0;

out_err:
	trace_summary_bpf__cleanup();
	return err;
}

int trace_summary_bpf__prepare(pid_t workload_pid)
{
	struct task_selection tasks;
	int err;

	err = select_tasks(&loaded, workload_pid, &tasks);
	if (!err)
		err = fill_filters(&loaded, &tasks);
	return err;
}

int trace_summary_bpf__exclude_pids(size_t nr, const pid_t *pids)
{
	int fd = bpf_map__fd(skel->maps.pids_excluded);
	bool excluded = true;

	for (size_t i = 0; i < nr; i++) {
		__u32 pid = pids[i];
		int err = bpf_map_update_elem(fd, &pid, &excluded, BPF_ANY);

		if (err) {
			pr_err("--bpf-summary: cannot exclude pid %d: %s\n", pids[i],
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

int trace_summary_bpf__start(void)
{
	int err = syscall_summary_bpf__attach(skel);

	if (err)
		pr_err("--bpf-summary: failed to attach the BPF programs: %s\n", strerror(-err));
	return err;
}

void trace_summary_bpf__stop(void)
{
	if (skel)
		syscall_summary_bpf__detach(skel);
}

void trace_summary_bpf__cleanup(void)
{
	syscall_summary_bpf__destroy(skel);
	skel = NULL;
	zfree(&syscall_list.ids);
	syscall_list.nr = 0;
}

/* Sums the per-CPU values of one key into stats; CPUs without calls have no min */
static int syscall_stats__add_values(struct intlist *list, int key,
				     struct syscall_summary_value *values, int nr_cpus)
{
	long double squares = 0, total = 0;
	u64 calls = 0, errors = 0, min = UINT64_MAX, max = 0;
	struct syscall_stats *stats;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		struct syscall_summary_value *v = &values[cpu];

		if (v->calls == 0)
			continue;
		calls += v->calls;
		errors += v->errors;
		total += v->total_ns;
		squares += v->squares_hi * 18446744073709551616.0L + v->squares_lo;
		if (v->min_ns < min)
			min = v->min_ns;
		if (v->max_ns > max)
			max = v->max_ns;
	}
	if (calls == 0)
		return 0;

	stats = syscall_stats__findnew(list, key);
	if (!stats)
		return -ENOMEM;

	stats->stats.n = calls;
	stats->stats.mean = total / calls;
	/* M2 = sum(x^2) - sum(x)^2 / n, as perf stat's stddev expects */
	stats->stats.M2 = squares - total * total / calls;
	if (stats->stats.M2 < 0)
		stats->stats.M2 = 0;
	stats->stats.min = min;
	stats->stats.max = max;
	stats->nr_failures = errors;
	return 0;
}

static int stats_key(__u32 nr, __u32 abi)
{
	return abi == SYSCALL_SUMMARY_ABI_COMPAT ? (int)nr | SYSCALL_STATS__COMPAT : (int)nr;
}

struct summary_groups {
	struct syscall_summary_group	*entries;
	int				nr;
	struct intlist			*index;	/* group id -> entries[] index + 1 */
	struct rb_root			cgroups;
	struct syscalltbl		*sctbl;
};

static struct syscall_summary_group *summary_groups__findnew(struct summary_groups *groups,
							     u64 id)
{
	struct int_node *inode = intlist__findnew(groups->index, id);
	struct syscall_summary_group *group, *entries;
	char comm[TASK_COMM_LEN] = "";
	struct cgroup *cgrp;
	int ret;

	if (!inode)
		return NULL;
	if (inode->priv)
		return &groups->entries[(long)inode->priv - 1];

	entries = realloc(groups->entries, (groups->nr + 1) * sizeof(*entries));
	if (!entries)
		return NULL;
	groups->entries = entries;
	group = &entries[groups->nr];
	memset(group, 0, sizeof(*group));

	switch (summary_mode) {
	case TRACE_SUMMARY_MODE__THREAD: {
		__u32 tid = id;

		bpf_map_lookup_elem(bpf_map__fd(skel->maps.thread_comm), &tid, comm);
		ret = asprintf(&group->name, "%s (%u)", comm[0] ? comm : ":", tid);
		break;
	}
	case TRACE_SUMMARY_MODE__CGROUP:
		cgrp = __cgroup__find(&groups->cgroups, id);
		if (cgrp)
			ret = asprintf(&group->name, "cgroup %s", cgrp->name);
		else
			ret = asprintf(&group->name, "cgroup id %" PRIu64, id);
		break;
	case TRACE_SUMMARY_MODE__TOTAL:
	default:
		group->name = strdup("total");
		ret = group->name ? 0 : -1;
		break;
	}
	group->stats = intlist__new(NULL);
	if (ret < 0 || !group->stats) {
		free(group->name);
		intlist__delete(group->stats);
		return NULL;
	}
	inode->priv = (void *)(long)(++groups->nr);
	return group;
}

static void summary_groups__exit(struct summary_groups *groups)
{
	struct rb_node *node;

	for (int i = 0; i < groups->nr; i++) {
		free(groups->entries[i].name);
		syscall_stats__delete(groups->entries[i].stats);
	}
	free(groups->entries);
	intlist__delete(groups->index);

	while ((node = rb_first(&groups->cgroups)) != NULL) {
		struct cgroup *cgrp = rb_entry(node, struct cgroup, node);

		rb_erase(node, &groups->cgroups);
		cgroup__put(cgrp);
	}
}

static int summary_groups__add(struct summary_groups *groups, u64 id, int key,
			       struct syscall_summary_value *values, int nr_cpus,
			       unsigned long *nr_events)
{
	struct syscall_summary_group *group;
	unsigned long calls = 0;

	if (!syscall_listed(groups->sctbl, key))
		return 0;

	group = summary_groups__findnew(groups, id);
	if (!group)
		return -ENOMEM;

	for (int cpu = 0; cpu < nr_cpus; cpu++)
		calls += values[cpu].calls;
	/* sys_enter + sys_exit, as the user-space summary counts events */
	group->nr_events += 2 * calls;
	*nr_events += 2 * calls;

	return syscall_stats__add_values(group->stats, key, values, nr_cpus);
}

static int read_total(struct summary_groups *groups, struct syscall_summary_value *values,
		      int nr_cpus, unsigned long *nr_events)
{
	int fd = bpf_map__fd(skel->maps.syscall_stats_total);

	for (__u32 idx = 0; idx < SYSCALL_SUMMARY_ABI_MAX * SYSCALL_SUMMARY_MAX_NR; idx++) {
		__u32 abi = idx / SYSCALL_SUMMARY_MAX_NR, nr = idx % SYSCALL_SUMMARY_MAX_NR;
		bool used = false;
		int err;

		if (bpf_map_lookup_elem(fd, &idx, values))
			continue;
		for (int cpu = 0; cpu < nr_cpus && !used; cpu++)
			used = values[cpu].calls != 0;
		if (!used)
			continue;

		err = summary_groups__add(groups, 0, stats_key(nr, abi), values, nr_cpus,
					  nr_events);
		if (err)
			return err;
	}
	return 0;
}

static int read_groups(struct summary_groups *groups, struct syscall_summary_value *values,
		       int nr_cpus, unsigned long *nr_events)
{
	int fd = bpf_map__fd(skel->maps.syscall_stats);
	struct syscall_summary_key key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		int err;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, values))
			continue;

		err = summary_groups__add(groups, key.group, stats_key(key.nr, key.abi),
					  values, nr_cpus, nr_events);
		if (err)
			return err;
	}
	return 0;
}

/* Adds the errno counts to the statistics read from syscall_stats */
static int read_errnos(struct summary_groups *groups)
{
	int fd = bpf_map__fd(skel->maps.syscall_errnos);
	struct syscall_summary_errno_key key, *prev = NULL;
	int nr_cpus = libbpf_num_possible_cpus();
	__u64 *counts = calloc(nr_cpus, sizeof(*counts));

	if (!counts)
		return -ENOMEM;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		struct int_node *group, *inode;
		__u64 count = 0;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, counts))
			continue;
		for (int cpu = 0; cpu < nr_cpus; cpu++)
			count += counts[cpu];

		/* the failure is in syscall_stats unless that map was full */
		group = intlist__find(groups->index, key.call.group);
		if (!group)
			continue;
		inode = intlist__find(groups->entries[(long)group->priv - 1].stats,
				      stats_key(key.call.nr, key.call.abi));
		if (!inode || !inode->priv)
			continue;
		if (syscall_stats__add_errno(inode->priv, key.err, count) == -ENOMEM) {
			free(counts);
			return -ENOMEM;
		}
	}
	free(counts);
	return 0;
}

size_t trace_summary_bpf__fprintf(struct syscalltbl *sctbl, struct perf_env *errno_env,
				  FILE *fp)
{
	struct summary_groups groups = { .cgroups = RB_ROOT, .sctbl = sctbl, };
	struct syscall_summary_value *values;
	int nr_cpus = libbpf_num_possible_cpus();
	unsigned long nr_events = 0;
	size_t printed = 0;
	int err;

	if (!skel || nr_cpus <= 0)
		return 0;

	values = calloc(nr_cpus, sizeof(*values));
	groups.index = intlist__new(NULL);
	if (!values || !groups.index)
		goto out;

	if (summary_mode == TRACE_SUMMARY_MODE__CGROUP)
		read_all_cgroups(&groups.cgroups);

	if (summary_mode == TRACE_SUMMARY_MODE__TOTAL)
		err = read_total(&groups, values, nr_cpus, &nr_events);
	else
		err = read_groups(&groups, values, nr_cpus, &nr_events);
	if (!err && errno_env)
		err = read_errnos(&groups);
	if (err) {
		pr_err("--bpf-summary: not enough memory to read the statistics\n");
		goto out;
	}

	/* no share of all events in the one table of the total */
	if (summary_mode == TRACE_SUMMARY_MODE__TOTAL)
		nr_events = 0;
	printed = syscall_summary__fprintf(groups.entries, groups.nr, nr_events, sctbl,
					   errno_env, "the kernel by BPF", fp);

	if (skel->bss->nr_not_counted)
		printed += fprintf(fp, " %llu calls not counted: map full\n",
				   (unsigned long long)skel->bss->nr_not_counted);
	if (skel->bss->nr_tasks_not_followed)
		printed += fprintf(fp, " %llu child processes not counted: task filter map full\n",
				   (unsigned long long)skel->bss->nr_tasks_not_followed);
	if (skel->bss->nr_errnos_not_counted)
		printed += fprintf(fp, " %llu errnos not counted: map full\n",
				   (unsigned long long)skel->bss->nr_errnos_not_counted);
out:
	summary_groups__exit(&groups);
	free(values);
	return printed;
}
