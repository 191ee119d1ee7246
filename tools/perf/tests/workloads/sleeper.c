/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleep MSEC milliseconds COUNT times, then MSEC2 milliseconds COUNT2 times,
 * always inside sleeper_nap(), so off-CPU profiles can be checked for the
 * number, length and call chain of the sleeps.  With DEPTH2, the second
 * sleeps are made DEPTH2 frames of sleeper_deep() further down the stack.
 *
 *   perf test -w sleeper MSEC COUNT [MSEC2 COUNT2 [DEPTH2]]
 *   perf test -w sleeper MSEC COUNT thread
 *
 * With "thread", the COUNT sleeps are made by a second thread named
 * "sleeper-2" while the main thread waits for it, so that the samples of a
 * thread other than the process' leader can be checked.
 *
 * The sleep itself is one call deeper, in sleeper_syscall(): glibc's
 * clock_nanosleep() has no frame pointer, so a frame pointer unwind from the
 * syscall skips the direct caller of libc; sleeper_nap() is then the first
 * frame of ours that every user callchain shows.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "workload_args.h"

noinline int sleeper_nap(long msec);
noinline int sleeper_syscall(const struct timespec *ts);
noinline int sleeper_deep(long depth, long msec);

noinline int sleeper_syscall(const struct timespec *ts)
{
	/* the workload installs no signal handler: EINTR is not expected */
	return clock_nanosleep(CLOCK_MONOTONIC, 0, ts, NULL);
}

noinline int sleeper_nap(long msec)
{
	struct timespec ts = {
		.tv_sec = msec / 1000,
		.tv_nsec = (msec % 1000) * 1000000,
	};
	int err = sleeper_syscall(&ts);

	/* a sleep cut short would break the count the tests rely on */
	if (err)
		fprintf(stderr, "workload: clock_nanosleep: %s\n", strerror(err));
	return err;
}

/* sleeper_nap() under depth + 1 frames of sleeper_deep() */
noinline int sleeper_deep(long depth, long msec)
{
	int err;

	if (!depth)
		err = sleeper_nap(msec);
	else
		err = sleeper_deep(depth - 1, msec);
	/* no tail call: each level keeps its frame */
	barrier();
	return err;
}

struct sleeper_naps {
	long msec, count;
	int err;
};

static void *sleeper_thread(void *arg)
{
	struct sleeper_naps *naps = arg;

	pthread_setname_np(pthread_self(), "sleeper-2");
	for (long i = 0; i < naps->count && !naps->err; i++)
		naps->err = sleeper_nap(naps->msec);
	return NULL;
}

static int sleeper(int argc, const char **argv)
{
	long msec, count, msec2, count2, depth2;

	if (argc == 3 && !strcmp(argv[2], "thread")) {
		struct sleeper_naps naps = { .err = 0, };
		pthread_t th;

		if (workload__arg_count(argc, argv, 0, 100, &naps.msec) ||
		    workload__arg_count(argc, argv, 1, 1, &naps.count))
			return -1;
		if (pthread_create(&th, NULL, sleeper_thread, &naps)) {
			fprintf(stderr, "workload: cannot create a thread\n");
			return -1;
		}
		pthread_join(th, NULL);
		return naps.err ? -1 : 0;
	}
	if (workload__arg_count(argc, argv, 0, 100, &msec) ||
	    workload__arg_count(argc, argv, 1, 1, &count) ||
	    workload__arg_count(argc, argv, 2, 0, &msec2) ||
	    workload__arg_count(argc, argv, 3, 0, &count2) ||
	    workload__arg_count(argc, argv, 4, 0, &depth2))
		return -1;
	/* a frame of sleeper_deep() each: a stack, not a stack overflow */
	if (depth2 > 1000) {
		fprintf(stderr, "workload: DEPTH2 must be at most 1000\n");
		return -1;
	}

	for (long i = 0; i < count; i++)
		if (sleeper_nap(msec))
			return -1;
	for (long i = 0; i < count2; i++) {
		int err = depth2 ? sleeper_deep(depth2 - 1, msec2) : sleeper_nap(msec2);

		if (err)
			return -1;
	}
	return 0;
}

DEFINE_WORKLOAD(sleeper);
