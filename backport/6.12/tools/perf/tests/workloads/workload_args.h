/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TEST_WORKLOAD_ARGS_H
#define __PERF_TEST_WORKLOAD_ARGS_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The counting workloads are checked against the numbers given on their
 * command line, so a bad argument is an error instead of atoi()'s 0.
 */
static inline int workload__arg_count(int argc, const char **argv, int idx,
				      long dflt, long *val)
{
	char *end;

	if (idx >= argc) {
		*val = dflt;
		return 0;
	}
	errno = 0;
	*val = strtol(argv[idx], &end, 10);
	if (errno || end == argv[idx] || *end || *val < 0 || *val > INT_MAX) {
		fprintf(stderr, "workload: '%s' is not a count from 0 to %d\n", argv[idx], INT_MAX);
		return -1;
	}
	return 0;
}

#endif /* __PERF_TEST_WORKLOAD_ARGS_H */
