/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Make exactly N getppid() calls, the cheapest syscall there is, so that
 * syscall counting and its overhead can be checked against a known number.
 *
 *   perf test -w getppid_loop [N [N2]]
 *
 * With N2, a second thread named "getppid-2" makes N2 calls while the main
 * thread makes N.
 */
#include <pthread.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "workload_args.h"

static void getppid_calls(long n)
{
	/* glibc does not cache getppid(), but be explicit about the syscall */
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void *getppid_thread(void *arg)
{
	prctl(PR_SET_NAME, "getppid-2");
	getppid_calls((long)arg);
	return NULL;
}

static int getppid_loop(int argc, const char **argv)
{
	long n, n2;
	pthread_t th;

	if (workload__arg_count(argc, argv, 0, 1000000, &n) ||
	    workload__arg_count(argc, argv, 1, -1, &n2))
		return -1;

	if (argc > 1 && pthread_create(&th, NULL, getppid_thread, (void *)n2))
		return -1;
	getppid_calls(n);
	if (argc > 1)
		pthread_join(th, NULL);
	return 0;
}

DEFINE_WORKLOAD(getppid_loop);
