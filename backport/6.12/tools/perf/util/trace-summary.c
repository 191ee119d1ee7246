// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall statistics of 'perf trace -s|-S': kept per thread in user space, or
 * collected by BPF programs with --bpf-summary; both print through here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "debug.h"
#include "env.h"
#include "intlist.h"
#include "syscalltbl.h"
#include "trace-summary.h"

#if defined(HAVE_SYSCALL_TABLE_SUPPORT) && defined(__x86_64__)
#include <asm/syscalls_32.c>

static const char *syscall_name_compat(int id)
{
	if (id < 0 || id > SYSCALLTBL_x86_MAX_ID)
		return NULL;
	return syscalltbl_x86[id];
}

bool syscall_stats__compat_names(void)
{
	return true;
}
#else
static const char *syscall_name_compat(int id __maybe_unused)
{
	return NULL;
}

bool syscall_stats__compat_names(void)
{
	return false;
}
#endif

int trace_summary__parse_mode(const struct option *opt, const char *str,
			      int unset)
{
	enum trace_summary_mode *mode = opt->value;

	/* --no-summary-mode: back to the default */
	if (unset || !strcmp(str, "thread")) {
		*mode = TRACE_SUMMARY_MODE__THREAD;
	} else if (!strcmp(str, "total")) {
		*mode = TRACE_SUMMARY_MODE__TOTAL;
	} else if (!strcmp(str, "cgroup")) {
		*mode = TRACE_SUMMARY_MODE__CGROUP;
	} else {
		pr_err("Unknown summary mode '%s', use thread, total or cgroup\n", str);
		return -1;
	}
	return 0;
}

struct syscall_stats *syscall_stats__findnew(struct intlist *list, int key)
{
	struct int_node *inode = intlist__findnew(list, key);
	struct syscall_stats *stats;

	if (!inode)
		return NULL;

	stats = inode->priv;
	if (!stats) {
		stats = zalloc(sizeof(*stats));
		if (!stats)
			return NULL;

		init_stats(&stats->stats);
		inode->priv = stats;
	}
	return stats;
}

int syscall_stats__add_errno(struct syscall_stats *stats, int err, u32 count)
{
	if (err <= 0 || err > MAX_ERRNO)
		return -EINVAL;

	if (err > stats->max_errno) {
		u32 *errnos = realloc(stats->errnos, err * sizeof(u32));

		if (!errnos)
			return -ENOMEM;
		memset(errnos + stats->max_errno, 0, (err - stats->max_errno) * sizeof(u32));
		stats->errnos = errnos;
		stats->max_errno = err;
	}
	stats->errnos[err - 1] += count;
	return 0;
}

/* Chan et al.: combine two sets of (n, mean, M2) */
static void stats__merge(struct stats *dst, const struct stats *src)
{
	double n = dst->n + src->n, delta = src->mean - dst->mean;

	if (src->n == 0)
		return;

	dst->M2 += src->M2 + delta * delta * dst->n * src->n / n;
	dst->mean += delta * src->n / n;
	dst->n = n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

int syscall_stats__merge(struct intlist *dst, struct intlist *src)
{
	struct int_node *inode;

	intlist__for_each_entry(inode, src) {
		struct syscall_stats *from = inode->priv, *to;

		if (!from)
			continue;

		to = syscall_stats__findnew(dst, inode->i);
		if (!to)
			return -ENOMEM;

		stats__merge(&to->stats, &from->stats);
		to->nr_failures += from->nr_failures;

		for (int e = from->max_errno; e > 0; e--) {
			if (from->errnos[e - 1] &&
			    syscall_stats__add_errno(to, e, from->errnos[e - 1]))
				return -ENOMEM;
		}
	}
	return 0;
}

static double syscall_stats__msec(const struct syscall_stats *stats)
{
	return stats->stats.n * stats->stats.mean / NSEC_PER_MSEC;
}

double syscall_stats__total_msec(struct intlist *list)
{
	struct int_node *inode;
	double msec = 0;

	if (!list)
		return 0;

	intlist__for_each_entry(inode, list) {
		if (inode->priv)
			msec += syscall_stats__msec(inode->priv);
	}
	return msec;
}

void syscall_stats__delete(struct intlist *list)
{
	struct int_node *inode;

	if (!list)
		return;

	intlist__for_each_entry(inode, list) {
		struct syscall_stats *stats = inode->priv;

		if (stats)
			free(stats->errnos);
		zfree(&inode->priv);
	}
	intlist__delete(list);
}

const char *syscall_stats__name(struct syscalltbl *sctbl, int key)
{
	const char *name;

	if (key & SYSCALL_STATS__COMPAT)
		name = syscall_name_compat(key & ~SYSCALL_STATS__COMPAT);
	else
		name = syscalltbl__name(sctbl, key);

	return name ?: "unknown";
}

static int syscall_stats__cmp(const void *va, const void *vb)
{
	const struct int_node *a = *(const struct int_node **)va;
	const struct int_node *b = *(const struct int_node **)vb;
	double ta = syscall_stats__msec(a->priv), tb = syscall_stats__msec(b->priv);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

size_t syscall_stats__fprintf(struct intlist *list, struct syscalltbl *sctbl,
			      struct perf_env *env, FILE *fp)
{
	struct int_node **sorted, *inode;
	size_t printed = 0;
	int nr = 0;

	if (!list || intlist__nr_entries(list) == 0)
		return 0;

	sorted = calloc(intlist__nr_entries(list), sizeof(*sorted));
	if (!sorted)
		return 0;

	intlist__for_each_entry(inode, list) {
		if (inode->priv)
			sorted[nr++] = inode;
	}
	qsort(sorted, nr, sizeof(*sorted), syscall_stats__cmp);

	printed += fprintf(fp, "\n");

	printed += fprintf(fp, "   syscall            calls  errors  total       min       avg       max       stddev\n");
	printed += fprintf(fp, "                                     (msec)    (msec)    (msec)    (msec)        (%%)\n");
	printed += fprintf(fp, "   --------------- --------  ------ -------- --------- --------- ---------     ------\n");

	for (int i = 0; i < nr; i++) {
		struct syscall_stats *stats = sorted[i]->priv;
		double min = (double)(stats->stats.min) / NSEC_PER_MSEC;
		double max = (double)(stats->stats.max) / NSEC_PER_MSEC;
		double avg = avg_stats(&stats->stats);
		double pct = rel_stddev_stats(stddev_stats(&stats->stats), avg);
		u64 n = (u64)stats->stats.n;

		avg /= NSEC_PER_MSEC;

		printed += fprintf(fp, "   %-15s", syscall_stats__name(sctbl, sorted[i]->i));
		printed += fprintf(fp, " %8" PRIu64 " %6" PRIu64 " %9.3f %9.3f %9.3f",
				   n, stats->nr_failures, syscall_stats__msec(stats), min, avg);
		printed += fprintf(fp, " %9.3f %9.2f%%\n", max, pct);

		if (!env || stats->nr_failures == 0)
			continue;

		for (int e = 0; e < stats->max_errno; ++e) {
			if (stats->errnos[e] != 0)
				printed += fprintf(fp, "\t\t\t\t%s: %d\n",
						   perf_env__arch_strerrno(env, e + 1),
						   stats->errnos[e]);
		}
	}

	free(sorted);
	printed += fprintf(fp, "\n\n");

	return printed;
}

static int syscall_summary_group__cmp(const void *va, const void *vb)
{
	const struct syscall_summary_group *a = va, *b = vb;

	if (a->total_msec != b->total_msec)
		return a->total_msec > b->total_msec ? -1 : 1;
	if (a->nr_events != b->nr_events)
		return a->nr_events > b->nr_events ? -1 : 1;
	return strcmp(a->name, b->name);
}

size_t syscall_summary__fprintf(struct syscall_summary_group *groups, int nr,
				unsigned long nr_events, struct syscalltbl *sctbl,
				struct perf_env *errno_env, const char *collected_in, FILE *fp)
{
	size_t printed = fprintf(fp, "\n Summary of events");

	/* the same format both ways: only -v says which one collected it */
	if (verbose > 0)
		printed += fprintf(fp, " (collected in %s)", collected_in);
	printed += fprintf(fp, ":\n\n");

	for (int i = 0; i < nr; i++)
		groups[i].total_msec = syscall_stats__total_msec(groups[i].stats);

	qsort(groups, nr, sizeof(*groups), syscall_summary_group__cmp);

	for (int i = 0; i < nr; i++) {
		struct syscall_summary_group *group = &groups[i];

		printed += fprintf(fp, " %s, %lu events", group->name, group->nr_events);
		if (nr_events)
			printed += fprintf(fp, ", %.1f%%", 100.0 * group->nr_events / nr_events);
		printed += fprintf(fp, "%s\n", group->suffix ?: "");
		printed += syscall_stats__fprintf(group->stats, sctbl, errno_env, fp);
	}
	return printed;
}
