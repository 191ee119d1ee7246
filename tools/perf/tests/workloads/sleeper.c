/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleep MSEC milliseconds COUNT times, then MSEC2 milliseconds COUNT2 times,
 * always inside sleeper_nap(), so off-CPU profiles can be checked for the
 * number, length and call chain of the sleeps.
 *
 *   perf test -w sleeper MSEC COUNT [MSEC2 COUNT2]
 *
 * The sleep itself is one call deeper, in sleeper_syscall(): glibc's
 * clock_nanosleep() has no frame pointer, so a frame pointer unwind from the
 * syscall skips the direct caller of libc; sleeper_nap() is then the first
 * frame of ours that every user callchain shows.
 */
#include <time.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "workload_args.h"

noinline void sleeper_nap(long msec);
noinline void sleeper_syscall(const struct timespec *ts);

noinline void sleeper_syscall(const struct timespec *ts)
{
	/* not interrupted: the workload installs no signal handler */
	clock_nanosleep(CLOCK_MONOTONIC, 0, ts, NULL);
}

noinline void sleeper_nap(long msec)
{
	struct timespec ts = {
		.tv_sec = msec / 1000,
		.tv_nsec = (msec % 1000) * 1000000,
	};

	sleeper_syscall(&ts);
}

static int sleeper(int argc, const char **argv)
{
	long msec, count, msec2, count2;

	if (workload__arg_count(argc, argv, 0, 100, &msec) ||
	    workload__arg_count(argc, argv, 1, 1, &count) ||
	    workload__arg_count(argc, argv, 2, 0, &msec2) ||
	    workload__arg_count(argc, argv, 3, 0, &count2))
		return -1;

	for (long i = 0; i < count; i++)
		sleeper_nap(msec);
	for (long i = 0; i < count2; i++)
		sleeper_nap(msec2);
	return 0;
}

DEFINE_WORKLOAD(sleeper);
