/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERF_UTIL_BPF_RECORD_AGGR_H
#define PERF_UTIL_BPF_RECORD_AGGR_H

#include <linux/compiler.h>
#include <linux/types.h>

struct evlist;
struct perf_env;
struct perf_session;
struct record_opts;

/* default capacity of the (pid, tid, stacks) map of 'perf record --bpf-aggr' */
#define BPF_RECORD_AGGR_DEFAULT_ENTRIES	1536

#ifdef HAVE_BPF_SKEL
int bpf_record_aggr__prepare(struct evlist *evlist, struct record_opts *opts,
			     u64 nr_entries);
int bpf_record_aggr__header(struct perf_env *env);
int bpf_record_aggr__attach(struct evlist *evlist, bool switch_output);
u64 bpf_record_aggr__write(struct perf_session *session);
u64 bpf_record_aggr__switch(struct perf_session *session);
void bpf_record_aggr__cleanup(void);
#else
static inline int bpf_record_aggr__prepare(struct evlist *evlist __maybe_unused,
					   struct record_opts *opts __maybe_unused,
					   u64 nr_entries __maybe_unused)
{
	return -1;
}

static inline int bpf_record_aggr__header(struct perf_env *env __maybe_unused)
{
	return -1;
}

static inline int bpf_record_aggr__attach(struct evlist *evlist __maybe_unused,
					  bool switch_output __maybe_unused)
{
	return -1;
}

static inline u64 bpf_record_aggr__write(struct perf_session *session __maybe_unused)
{
	return 0;
}

static inline u64 bpf_record_aggr__switch(struct perf_session *session __maybe_unused)
{
	return 0;
}

static inline void bpf_record_aggr__cleanup(void)
{
}
#endif

#endif /* PERF_UTIL_BPF_RECORD_AGGR_H */
