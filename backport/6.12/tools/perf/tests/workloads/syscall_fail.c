/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Make exactly N syscalls that fail: flock() on fd -1, which returns EBADF
 * without side effects.  perf itself never calls flock() on this path, so
 * the count of failed flock calls of the process is exactly N.
 *
 *   perf test -w syscall_fail [N]
 */
#include <sys/file.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "workload_args.h"

static int syscall_fail(int argc, const char **argv)
{
	long n;

	if (workload__arg_count(argc, argv, 0, 1000, &n))
		return -1;

	for (long i = 0; i < n; i++)
		flock(-1, LOCK_SH);
	return 0;
}

DEFINE_WORKLOAD(syscall_fail);
