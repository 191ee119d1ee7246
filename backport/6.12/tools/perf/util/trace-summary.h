/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TRACE_SUMMARY_H
#define __PERF_TRACE_SUMMARY_H

#include <stdio.h>
#include <linux/types.h>
#include "stat.h"
/* enum trace_summary_mode, also used by the BPF programs of --bpf-summary */
#include "bpf_skel/syscall_summary.h"

struct cgroup;
struct intlist;
struct option;
struct perf_env;
struct syscalltbl;
struct target;

int trace_summary__parse_mode(const struct option *opt, const char *str, int unset);

/* Statistics of one syscall, for one thread, one cgroup or all of them */
struct syscall_stats {
	struct stats stats;	/* duration in nsec */
	u64	     nr_failures;
	int	     max_errno;
	u32	     *errnos;	/* errnos[e - 1] failures with errno e, may be NULL */
};

/*
 * A list of syscall_stats is an intlist keyed by the syscall id, plus
 * SYSCALL_STATS__COMPAT for a syscall of the compat ABI (e.g. i386 on x86_64).
 */
#define SYSCALL_STATS__COMPAT	0x100000

struct syscall_stats *syscall_stats__findnew(struct intlist *list, int key);
/* Adds @count failures with errno @err (positive) to errnos[] */
int syscall_stats__add_errno(struct syscall_stats *stats, int err, u32 count);
int syscall_stats__merge(struct intlist *dst, struct intlist *src);
double syscall_stats__total_msec(struct intlist *list);
void syscall_stats__delete(struct intlist *list);
const char *syscall_stats__name(struct syscalltbl *sctbl, int key);
/* Whether syscall_stats__name() names SYSCALL_STATS__COMPAT keys */
bool syscall_stats__compat_names(void);
/*
 * The table of 'perf trace -s': one line per syscall ordered by total time,
 * descending.  With @env, errnos are printed too (--errno-summary).
 */
size_t syscall_stats__fprintf(struct intlist *list, struct syscalltbl *sctbl,
			      struct perf_env *env, FILE *fp);

/* One table of the summary: a thread, a cgroup or the total */
struct syscall_summary_group {
	char		*name;		/* e.g. "comm (tid)", "cgroup /a/b", "total" */
	char		*suffix;	/* more on the name line, may be NULL */
	unsigned long	nr_events;
	struct intlist	*stats;
	double		total_msec;	/* set by syscall_summary__fprintf() */
};

/*
 * Prints the whole summary, the groups ordered by total syscall time,
 * descending.  The share of each group in @nr_events is printed unless
 * @nr_events is 0.  With @errno_env, errnos are printed too.  With -v the
 * header says where the statistics were collected (@collected_in).
 */
size_t syscall_summary__fprintf(struct syscall_summary_group *groups, int nr,
				unsigned long nr_events, struct syscalltbl *sctbl,
				struct perf_env *errno_env, const char *collected_in, FILE *fp);

/* --bpf-summary: the statistics are collected by BPF programs */
struct trace_summary_bpf_target {
	enum trace_summary_mode	mode;
	struct target		*target;
	struct cgroup		*cgroup;	/* --cgroup */
	bool			workload;	/* its pid is given to __prepare() */
	bool			quiet;		/* the caller says why if __load() fails */
	bool			errno_summary;	/* count the errnos of failed calls */
	bool			no_inherit;	/* --no-inherit: not the children */
	int			nr_filter_pids;	/* --filter-pids */
	/* -e: only these syscalls (sorted ids of the native table), or all but them */
	const int		*syscall_ids;
	int			nr_syscall_ids;
	bool			not_syscall_ids;
};

/*
 * --bpf-summary: __load() the BPF objects when the options are known, so
 * that a failure can fall back to the user-space summary before the events
 * are set up; __prepare() once the workload is forked, before the pids are
 * excluded; __start() when counting starts.
 */
#ifdef HAVE_BPF_SKEL
int trace_summary_bpf__check(void);
/* Why the BPF summary cannot be collected here, NULL if it can */
const char *trace_summary_bpf__missing(void);
int trace_summary_bpf__load(const struct trace_summary_bpf_target *tgt);
int trace_summary_bpf__prepare(pid_t workload_pid);
int trace_summary_bpf__exclude_pids(size_t nr, const pid_t *pids);
int trace_summary_bpf__start(void);
void trace_summary_bpf__stop(void);
size_t trace_summary_bpf__fprintf(struct syscalltbl *sctbl, struct perf_env *errno_env,
				  FILE *fp);
void trace_summary_bpf__cleanup(void);
#else
static inline int trace_summary_bpf__check(void)
{
	fprintf(stderr, "--bpf-summary: perf was built without BPF skeletons (BUILD_BPF_SKEL=1)\n");
	return -1;
}

static inline const char *trace_summary_bpf__missing(void)
{
	return "perf was built without BPF skeletons (BUILD_BPF_SKEL=1)";
}

static inline int trace_summary_bpf__load(const struct trace_summary_bpf_target *tgt __maybe_unused)
{
	return -1;
}

static inline int trace_summary_bpf__prepare(pid_t workload_pid __maybe_unused)
{
	return -1;
}

static inline int trace_summary_bpf__exclude_pids(size_t nr __maybe_unused,
						  const pid_t *pids __maybe_unused)
{
	return 0;
}

static inline int trace_summary_bpf__start(void)
{
	return -1;
}

static inline void trace_summary_bpf__stop(void) {}

static inline size_t trace_summary_bpf__fprintf(struct syscalltbl *sctbl __maybe_unused,
						struct perf_env *errno_env __maybe_unused,
						FILE *fp __maybe_unused)
{
	return 0;
}

static inline void trace_summary_bpf__cleanup(void) {}
#endif

#endif /* __PERF_TRACE_SUMMARY_H */
