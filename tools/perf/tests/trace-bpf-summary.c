// SPDX-License-Identifier: GPL-2.0
/*
 * The names perf trace --bpf-summary gives the syscalls BPF counted: a
 * 32-bit task's calls on x86_64 are numbered from i386's table, where the
 * numbers of x86_64's mean other calls.  No 32-bit program is needed.
 */
#include <string.h>
#include "tests.h"
#include "util/debug.h"
#include "util/trace.h"

/* bpf-trace-summary.o is built with perf trace, which needs libtraceevent */
#if defined(HAVE_BPF_SKEL) && defined(HAVE_LIBTRACEEVENT) && defined(__x86_64__)
static int check_name(bool compat, int nr, const char *want)
{
	const char *name = trace_bpf_summary_syscall_name(compat, nr);

	pr_debug("%s syscall %d: %s, want %s\n", compat ? "compat" : "native", nr,
		 name ?: "(none)", want ?: "(none)");
	if (want == NULL)
		return name == NULL ? TEST_OK : TEST_FAIL;
	return name && !strcmp(name, want) ? TEST_OK : TEST_FAIL;
}
#endif

static int test__trace_bpf_summary_names(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
#if defined(HAVE_BPF_SKEL) && defined(HAVE_LIBTRACEEVENT) && defined(__x86_64__)
	/* 64 and 4: getppid and write on i386, semget and stat on x86_64 */
	TEST_ASSERT_VAL("compat 64", check_name(true, 64, "getppid") == TEST_OK);
	TEST_ASSERT_VAL("native 64", check_name(false, 64, "semget") == TEST_OK);
	TEST_ASSERT_VAL("compat 4", check_name(true, 4, "write") == TEST_OK);
	TEST_ASSERT_VAL("native 4", check_name(false, 4, "stat") == TEST_OK);
	/* far past the end of i386's table */
	TEST_ASSERT_VAL("compat 100000", check_name(true, 100000, NULL) == TEST_OK);
	return TEST_OK;
#else
	return TEST_SKIP;
#endif
}

DEFINE_SUITE("trace --bpf-summary syscall names", trace_bpf_summary_names);
