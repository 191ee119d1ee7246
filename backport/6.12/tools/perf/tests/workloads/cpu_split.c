/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Burn CPU for SEC seconds in THREADS threads, each spending three quarters
 * of its time in split_heavy() and one quarter in split_light(), both
 * called from split_round(), so profiles can be checked for a 3:1 share.
 *
 *   perf test -w cpu_split [SEC [THREADS [rounds|cpu]]]
 *
 * With "rounds", print the number of split_round() calls of all threads as
 * "rounds=N" at the end: the work done, to compare runs under a tracer.
 * With "cpu", each thread stops once it has run SEC seconds on a CPU
 * instead of after SEC seconds: a loaded machine makes it last longer, the
 * CPU time a test checks its profile against stays known in advance.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/compiler.h>
#include "../tests.h"
#include "workload_args.h"

#define SPLIT_UNIT	20000

static volatile sig_atomic_t done;
/* with "cpu": each thread runs cpu_budget_ns of CPU time, else until done */
static bool by_cpu_time;
static long long cpu_budget_ns;
/* per thread: a shared sink would make the split depend on cache-line bouncing */
static __thread unsigned long split_sink;

noinline void split_heavy(void);
noinline void split_light(void);
noinline void split_round(void);

static void sighandler(int sig __maybe_unused)
{
	done = 1;
}

noinline void split_heavy(void)
{
	for (unsigned long i = 0; i < 3 * SPLIT_UNIT; i++)
		split_sink += i;
}

noinline void split_light(void)
{
	for (unsigned long i = 0; i < SPLIT_UNIT; i++)
		split_sink += i;
}

noinline void split_round(void)
{
	split_heavy();
	split_light();
}

/* CPU time of the calling thread in ns, -1 if it cannot be read */
static long long thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return -1;
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *split_thread(void *arg)
{
	unsigned long *rounds = arg;
	long long start = by_cpu_time ? thread_cpu_ns() : 0;

	while (!done) {
		split_round();
		(*rounds)++;
		/*
		 * The thread's CPU time is a system call: read it every 16
		 * rounds (2-3 ms here), so that it takes no share of
		 * the profile worth speaking of.
		 */
		if (by_cpu_time && !(*rounds % 16) &&
		    thread_cpu_ns() - start >= cpu_budget_ns)
			break;
	}
	return NULL;
}

static int cpu_split(int argc, const char **argv)
{
	long sec, nr_threads;
	pthread_t th[64];
	unsigned long rounds[64] = { 0 }, total = 0;
	long i, started = 0;

	if (workload__arg_count(argc, argv, 0, 1, &sec) ||
	    workload__arg_count(argc, argv, 1, 1, &nr_threads))
		return -1;
	if (argc > 2 && strcmp(argv[2], "rounds") && strcmp(argv[2], "cpu")) {
		fprintf(stderr, "workload: the third argument can only be 'rounds' or 'cpu'\n");
		return -1;
	}
	if (sec < 1) {
		fprintf(stderr, "workload: SEC must be at least 1\n");
		return -1;
	}
	if (nr_threads < 1 || nr_threads > 64) {
		fprintf(stderr, "workload: THREADS must be from 1 to 64\n");
		return -1;
	}

	signal(SIGINT, sighandler);
	if (argc > 2 && !strcmp(argv[2], "cpu")) {
		by_cpu_time = true;
		cpu_budget_ns = sec * 1000000000LL;
		if (thread_cpu_ns() < 0) {
			fprintf(stderr, "workload: cannot read the CPU time of a thread\n");
			return -1;
		}
	} else {
		signal(SIGALRM, sighandler);
		alarm(sec);
	}

	for (i = 1; i < nr_threads; i++, started++) {
		if (pthread_create(&th[i], NULL, split_thread, &rounds[i])) {
			/* fewer threads than asked: stop them and fail */
			fprintf(stderr, "workload: cannot start thread %ld\n", i);
			done = 1;
			break;
		}
	}
	split_thread(&rounds[0]);
	for (i = 1; i <= started; i++)
		pthread_join(th[i], NULL);

	if (started < nr_threads - 1)
		return -1;
	if (argc > 2 && !by_cpu_time) {
		for (i = 0; i <= started; i++)
			total += rounds[i];
		printf("rounds=%lu\n", total);
	}
	return 0;
}

DEFINE_WORKLOAD(cpu_split);
