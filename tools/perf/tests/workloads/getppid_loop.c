/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Make exactly N getppid() calls, the cheapest syscall there is, so that
 * syscall counting and its overhead can be checked against a known number.
 *
 *   perf test -w getppid_loop [N [N2 [fork]]]
 *
 * With N2, a second thread named "getppid-2" makes N2 calls while the main
 * thread makes N.  With "fork", N2 processes forked one after the other
 * make N calls each and exit, and the main thread makes none: each lives
 * for a few microseconds, as a shell's short commands do.  They are forked
 * as posix_spawn() does, sharing the parent's memory until they exit
 * (CLONE_VM | CLONE_VFORK), so that 20000 of them take a second, not the
 * 20 s that copying perf's page tables takes.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

static int getppid_child(void *arg)
{
	getppid_calls((long)arg);
	return 0;
}

static int getppid_forks(long n, long procs)
{
	/* one child at a time runs on it, while the parent waits */
	static char stack[64 * 1024] __aligned(16);

	for (long i = 0; i < procs; i++) {
		int status;
		pid_t pid = clone(getppid_child, stack + sizeof(stack),
				  CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)n);

		if (pid < 0)
			return -1;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return -1;
	}
	return 0;
}

static int getppid_loop(int argc, const char **argv)
{
	long n, n2;
	pthread_t th;

	if (workload__arg_count(argc, argv, 0, 1000000, &n) ||
	    workload__arg_count(argc, argv, 1, -1, &n2))
		return -1;

	if (argc > 2) {
		if (argc > 3 || strcmp(argv[2], "fork")) {
			fprintf(stderr, "workload: '%s' is not \"fork\"\n", argv[2]);
			return -1;
		}
		return getppid_forks(n, n2);
	}

	if (argc > 1 && pthread_create(&th, NULL, getppid_thread, (void *)n2))
		return -1;
	getppid_calls(n);
	if (argc > 1)
		pthread_join(th, NULL);
	return 0;
}

DEFINE_WORKLOAD(getppid_loop);
