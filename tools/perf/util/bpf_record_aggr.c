// SPDX-License-Identifier: GPL-2.0
/*
 * perf record --bpf-aggr: count sampled stacks in the kernel.
 *
 * A BPF_PROG_TYPE_PERF_EVENT program (bpf_skel/record_aggr.bpf.c) is set as
 * the overflow handler of every fd of the sampling event. It adds the sample
 * period to a hash map keyed by (pid, tid, kernel stack, user stack[, cpu])
 * and drops the sample. At the end of the session one PERF_RECORD_SAMPLE per
 * key is synthesized here, with the summed period, the number of samples
 * counted as its weight (PERF_SAMPLE_WEIGHT) and the time of the last
 * sample of the key, so perf report and perf script need no change.
 *
 * The BPF side timestamps with bpf_ktime_get_ns(), so the session uses
 * CLOCK_MONOTONIC (-k monotonic) for its events: the synthesized samples
 * then sort among the COMM, MMAP and EXIT events of their thread.
 *
 * With --switch-output the program counts into one of two sets of maps;
 * at each switch bpf_record_aggr__switch() points it to the other set,
 * waits until no program can still be using the old one, then drains the
 * old set (batch lookup-and-delete) into the file being closed. Each file
 * holds the counts of its interval, each sample is counted in one file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <internal/xyarray.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "util/bpf_counter.h"
#include "util/bpf-utils.h"
#include "util/bpf_record_aggr.h"
#include "util/callchain.h"
#include "util/cap.h"
#include "util/debug.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/record.h"
#include "util/session.h"
#include "util/synthetic-events.h"
#include "util/util.h"

#include "bpf_skel/record_aggr_data.h"
#include "bpf_skel/record_aggr.skel.h"

/* a kernel and a user stack, each after its PERF_CONTEXT_* marker */
#define RECORD_AGGR_CALLCHAIN_MAX	(2 * (1 + RECORD_AGGR_STACK_DEPTH))

/* sample fields a synthesized sample can fill in */
#define RECORD_AGGR_SAMPLE_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
				  PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
				  PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |	\
				  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
				  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT)

struct record_aggr_entry {
	struct record_aggr_key key;
	struct record_aggr_value val;
};

static struct record_aggr_bpf *skel;
static struct evsel *aggr_evsel;
static unsigned int aggr_nr_entries;
/* the index of the event counted, for HEADER_SAMPLE_AGGR */
static int aggr_evsel_idx;
/* the set of maps the BPF program counts into */
static enum record_aggr_set aggr_active_set = RECORD_AGGR_SET_MAIN;
/* the program's counters when samples were last written, for the next report */
static u64 aggr_stats_written[RECORD_AGGR_STAT_MAX];
/* buffers for draining a counts map, allocated once: memory stays constant */
static struct record_aggr_key *drain_keys;
static struct record_aggr_value *drain_values;
static struct record_aggr_entry *drain_entries;

static const struct {
	u64 bit;
	const char *option;
} record_aggr_refused_types[] = {
	{ PERF_SAMPLE_ADDR,		"-d/--data" },
	{ PERF_SAMPLE_PHYS_ADDR,	"--phys-data" },
	{ PERF_SAMPLE_DATA_PAGE_SIZE,	"--data-page-size" },
	{ PERF_SAMPLE_CODE_PAGE_SIZE,	"--code-page-size" },
	{ PERF_SAMPLE_DATA_SRC,		"-d/--data" },
	{ PERF_SAMPLE_WEIGHT_STRUCT,	"-W/--weight" },
	{ PERF_SAMPLE_BRANCH_STACK,	"-b/-j branch stacks" },
	{ PERF_SAMPLE_REGS_USER,	"--call-graph dwarf or --user-regs" },
	{ PERF_SAMPLE_STACK_USER,	"--call-graph dwarf" },
	{ PERF_SAMPLE_REGS_INTR,	"--intr-regs" },
	{ PERF_SAMPLE_RAW,		"-R/--raw-samples" },
	{ PERF_SAMPLE_READ,		"-s/--stat or group reads" },
	{ PERF_SAMPLE_TRANSACTION,	"--transaction" },
	{ PERF_SAMPLE_CGROUP,		"--all-cgroups" },
	{ PERF_SAMPLE_AUX,		"--aux-sample" },
};

/* the one event whose samples are counted in BPF, or NULL after an error */
static struct evsel *record_aggr__sampling_evsel(struct evlist *evlist)
{
	struct evsel *evsel, *found = NULL;

	evlist__for_each_entry(evlist, evsel) {
		struct perf_event_attr *attr = &evsel->core.attr;

		/* side-band events: tracking dummy, BPF output of --off-cpu */
		if (evsel__is_dummy_event(evsel) ||
		    (attr->type == PERF_TYPE_SOFTWARE &&
		     attr->config == PERF_COUNT_SW_BPF_OUTPUT))
			continue;

		if (attr->type == PERF_TYPE_TRACEPOINT) {
			pr_err("--bpf-aggr cannot count tracepoint event %s: only sampling events (cpu-clock, cycles, ...) run a perf_event BPF program\n",
			       evsel__name(evsel));
			return NULL;
		}
		/* an event runs one BPF program: PERF_EVENT_IOC_SET_BPF says EEXIST */
		if (!list_empty(&evsel->bpf_filters)) {
			pr_err("--bpf-aggr cannot be used with BPF sample filters (--filter, -u/--uid) on %s\n",
			       evsel__name(evsel));
			return NULL;
		}
		if (found) {
			pr_err("--bpf-aggr counts one sampling event, got %s and %s\n",
			       evsel__name(found), evsel__name(evsel));
			return NULL;
		}
		found = evsel;
	}
	if (!found)
		pr_err("--bpf-aggr found no sampling event\n");
	return found;
}

/*
 * After evsel__config(): the event samples, and no other option asked for
 * sample fields that cannot be aggregated.
 */
static int record_aggr__check_sample_type(struct evsel *evsel)
{
	u64 refused = evsel->core.attr.sample_type & ~RECORD_AGGR_SAMPLE_TYPES;
	size_t i;

	if (!evsel->core.attr.freq && !evsel->core.attr.sample_period) {
		pr_err("--bpf-aggr needs sampling events: %s has no sample period (-c) or frequency (-F)\n",
		       evsel__name(evsel));
		return -EINVAL;
	}

	for (i = 0; i < ARRAY_SIZE(record_aggr_refused_types); i++) {
		if (refused & record_aggr_refused_types[i].bit) {
			pr_err("--bpf-aggr cannot be used with %s: that sample data is not aggregated\n",
			       record_aggr_refused_types[i].option);
			return -EINVAL;
		}
	}

	/* an event's max-stack term would undo record_aggr__max_stack() */
	if ((evsel->core.attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    (!evsel->core.attr.sample_max_stack ||
	     evsel->core.attr.sample_max_stack > RECORD_AGGR_STACK_DEPTH - 1)) {
		pr_err("--bpf-aggr keeps call chains of at most %d frames: %s asks for more (max-stack)\n",
		       RECORD_AGGR_STACK_DEPTH - 1, evsel__name(evsel));
		return -EINVAL;
	}
	return 0;
}

/*
 * With a call graph, bpf_get_stackid() takes the event's call chain, one
 * context marker and up to max-stack frames for each of the kernel and the
 * user stack, and stores them in the stack map, whose values have room for
 * RECORD_AGGR_STACK_DEPTH.  Kernels whose __bpf_get_stackid() does not
 * bound the chain by that room (before stack_map_calculate_max_depth())
 * overflow the map's bucket with the chain of the default max-stack, 127,
 * and crash when the map is read.  Keep the chain within the room.
 */
static void record_aggr__max_stack(void)
{
	u16 max_stack = min(sysctl__max_stack(), RECORD_AGGR_STACK_DEPTH - 1);

	if (!callchain_param.max_stack || callchain_param.max_stack > max_stack)
		callchain_param.max_stack = max_stack;
}

/*
 * --bpf-aggr-entries: from 1 to RECORD_AGGR_MAX_KEYS, the most the stack map
 * (RECORD_AGGR_STACKS_PER_KEY stacks per key) can hold.
 */
static int record_aggr__check_entries(u64 nr_entries)
{
	if (!nr_entries) {
		pr_err("--bpf-aggr-entries must be at least 1\n");
		return -EINVAL;
	}
	if (nr_entries > RECORD_AGGR_MAX_KEYS) {
		pr_err("--bpf-aggr-entries=%llu is over the maximum of %u: the kernel's stack maps hold at most %u stacks, %d per entry\n",
		       (unsigned long long)nr_entries, RECORD_AGGR_MAX_KEYS,
		       RECORD_AGGR_MAX_STACKS, RECORD_AGGR_STACKS_PER_KEY);
		return -EINVAL;
	}
	return 0;
}

/* options whose data cannot be aggregated, or that --bpf-aggr cannot follow */
static int record_aggr__check_opts(struct record_opts *opts)
{
	if (callchain_param.enabled && callchain_param.record_mode != CALLCHAIN_FP) {
		pr_err("--bpf-aggr supports frame pointer call graphs only (-g, --call-graph fp), not dwarf or lbr\n");
		return -EINVAL;
	}
	/* the user stacks of deferred call graphs come after the sample */
	if (callchain_param.enabled && callchain_param.defer) {
		pr_err("--bpf-aggr cannot be used with --call-graph fp,defer: deferred user stacks are not aggregated\n");
		return -EINVAL;
	}
	/* after the call graph check: dwarf call graphs set it too */
	if (opts->sample_address) {
		pr_err("--bpf-aggr cannot be used with -d/--data: aggregated samples have no data address\n");
		return -EINVAL;
	}
	if (opts->sample_time_set && opts->sample_time) {
		pr_err("--bpf-aggr cannot be used with -T/--timestamp: aggregated samples keep only the time of the last sample of each stack\n");
		return -EINVAL;
	}
	/* the weight of a written sample is its number of samples */
	if (opts->sample_weight) {
		pr_err("--bpf-aggr cannot be used with -W/--weight: the weight of an aggregated sample is its number of samples\n");
		return -EINVAL;
	}
	if (opts->branch_stack) {
		pr_err("--bpf-aggr cannot be used with -b/-j: branch stacks are not aggregated\n");
		return -EINVAL;
	}
	/* the samples written at the end would go to the first file of many */
	if (opts->threads_spec) {
		pr_err("--bpf-aggr cannot be used with --threads: it writes its samples from one thread\n");
		return -EINVAL;
	}
	if (opts->use_clockid && opts->clockid != CLOCK_MONOTONIC) {
		pr_err("--bpf-aggr needs -k monotonic: the BPF program timestamps with CLOCK_MONOTONIC\n");
		return -EINVAL;
	}
	return 0;
}

int bpf_record_aggr__prepare(struct evlist *evlist, struct record_opts *opts,
			     u64 nr_entries)
{
	struct evsel *evsel;

	if (record_aggr__check_entries(nr_entries))
		return -EINVAL;
	if (perf_cap__check_bpf_skel("--bpf-aggr", 0))
		return -EPERM;
	if (record_aggr__check_opts(opts))
		return -EINVAL;
	if (callchain_param.enabled)
		record_aggr__max_stack();
	if (!opts->use_clockid) {
		struct timespec res;

		opts->use_clockid = true;
		opts->clockid = CLOCK_MONOTONIC;
		if (!clock_getres(CLOCK_MONOTONIC, &res))
			opts->clockid_res_ns = res.tv_sec * NSEC_PER_SEC + res.tv_nsec;
	}

	evsel = record_aggr__sampling_evsel(evlist);
	if (!evsel)
		return -EINVAL;
	aggr_evsel_idx = evsel->core.idx;
	/*
	 * A written sample stands for many: it carries their summed period,
	 * also when a fixed period (-c) would leave PERIOD out of the samples,
	 * and their number as its weight. The samples the BPF program does not
	 * count reach the ring buffer with a weight of 0: one sample each.
	 */
	opts->period = true;
	opts->period_set = true;
	evsel__set_sample_bit(evsel, WEIGHT);

	/*
	 * The kernel lets the program walk the stacks of a precise event only
	 * from the call chain the event samples in full (-EPROTO otherwise):
	 * without one, sample without precise_ip.
	 */
	if (!callchain_param.enabled || opts->kernel_callchains || opts->user_callchains) {
		evlist__for_each_entry(evlist, evsel) {
			if (evsel->core.attr.precise_ip && !evsel->precise_max)
				pr_warning("--bpf-aggr: sampling %s without precise_ip (:p): it needs a full call graph (-g)\n",
					   evsel__name(evsel));
			evsel->precise_max = false;
			evsel->core.attr.precise_ip = 0;
		}
	}

	aggr_nr_entries = nr_entries;
	return 0;
}

static int record_aggr__size_set(struct bpf_map *counts, struct bpf_map *stacks,
				 unsigned int nr_entries)
{
	if (bpf_map__set_max_entries(counts, nr_entries) ||
	    bpf_map__set_max_entries(stacks, nr_entries * RECORD_AGGR_STACKS_PER_KEY)) {
		pr_err("--bpf-aggr: cannot size the BPF maps for %u entries\n", nr_entries);
		return -1;
	}
	return 0;
}

/*
 * Say in the header (HEADER_SAMPLE_AGGR) that the counted event's samples
 * each stand for as many samples as their weight, so that perf report and
 * the converters count them so whatever the file's command line says.
 */
int bpf_record_aggr__header(struct perf_env *env)
{
	env->sample_aggr_idx = calloc(1, sizeof(*env->sample_aggr_idx));
	if (!env->sample_aggr_idx)
		return -ENOMEM;
	env->sample_aggr_idx[0] = aggr_evsel_idx;
	env->nr_sample_aggr = 1;
	return 0;
}

int bpf_record_aggr__attach(struct evlist *evlist, bool switch_output)
{
	struct evsel *evsel = record_aggr__sampling_evsel(evlist);
	int prog_fd, x, y, nr_fds = 0, zero = 0;
	u32 set;

	if (!evsel || record_aggr__check_sample_type(evsel))
		return -EINVAL;

	drain_keys = calloc(aggr_nr_entries, sizeof(*drain_keys));
	drain_values = calloc(aggr_nr_entries, sizeof(*drain_values));
	drain_entries = calloc(aggr_nr_entries, sizeof(*drain_entries));
	if (!drain_keys || !drain_values || !drain_entries) {
		pr_err("--bpf-aggr: not enough memory to read %u map entries\n", aggr_nr_entries);
		goto out_free;
	}

	skel = record_aggr_bpf__open();
	if (!skel) {
		pr_err("--bpf-aggr: failed to open the BPF skeleton\n");
		goto out_free;
	}
	/* the second set of maps is only drained at --switch-output */
	if (record_aggr__size_set(skel->maps.record_aggr_counts, skel->maps.record_aggr_stacks,
				  aggr_nr_entries) ||
	    record_aggr__size_set(skel->maps.record_aggr_counts_alt,
				  skel->maps.record_aggr_stacks_alt,
				  switch_output ? aggr_nr_entries : 1))
		goto out_destroy;
	skel->rodata->key_has_cpu = !!(evsel->core.attr.sample_type & PERF_SAMPLE_CPU);

	set_max_rlimit();
	if (record_aggr_bpf__load(skel)) {
		pr_err("--bpf-aggr: failed to load the BPF program (%u map entries)\n",
		       aggr_nr_entries);
		goto out_destroy;
	}
	/* record_aggr_set_main names RECORD_AGGR_SET_MAIN (0) as loaded */
	set = RECORD_AGGR_SET_ALT;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.record_aggr_set_alt), &zero, &set,
				BPF_ANY)) {
		pr_err("--bpf-aggr: cannot set up the BPF maps: %s\n", strerror(errno));
		goto out_destroy;
	}

	prog_fd = bpf_program__fd(skel->progs.record_aggr_sample);
	for (x = 0; x < xyarray__max_x(evsel->core.fd); x++) {
		for (y = 0; y < xyarray__max_y(evsel->core.fd); y++) {
			int fd = *(int *)xyarray__entry(evsel->core.fd, x, y);

			if (fd < 0)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd)) {
				pr_err("--bpf-aggr: cannot attach the BPF program to %s: %s\n",
				       evsel__name(evsel), strerror(errno));
				goto out_destroy;
			}
			nr_fds++;
		}
	}
	pr_debug("--bpf-aggr: counting %s on %d fds, up to %u stacks\n",
		 evsel__name(evsel), nr_fds, aggr_nr_entries);
	aggr_evsel = evsel;
	return 0;

out_destroy:
	record_aggr_bpf__destroy(skel);
	skel = NULL;
out_free:
	zfree(&drain_keys);
	zfree(&drain_values);
	zfree(&drain_entries);
	return -1;
}

/* what bpf_record_aggr__write() could not do, for its report */
struct record_aggr_write_stats {
	/* samples counted in the keys drained: those of this file */
	u64 nr_counted;
	/* samples written, one per key */
	u64 nr_written;
	/* stacks missing from the stack map: samples written without them */
	u64 nr_stacks_unread;
	/* counted samples of keys without any stack, or not synthesized */
	u64 nr_samples_unwritten;
};

/*
 * Copy a stack from the stack map to ips, without perf context markers.
 * Returns the number of frames, 0 for RECORD_AGGR_NO_STACK, -1 when the
 * stack is missing from the map.
 */
static int record_aggr__read_stack(int stacks_fd, s32 stack_id, u64 *ips)
{
	u64 frames[RECORD_AGGR_STACK_DEPTH] = { 0 };
	int i, nr = 0;

	if (stack_id < 0)
		return 0;
	if (bpf_map_lookup_elem(stacks_fd, &stack_id, frames))
		return -1;

	for (i = 0; i < RECORD_AGGR_STACK_DEPTH && frames[i]; i++) {
		/* the kernel stores the event's callchain when it has one */
		if (frames[i] >= PERF_CONTEXT_MAX)
			continue;
		ips[nr++] = frames[i];
	}
	return nr;
}

/* sum the per-CPU counters of the BPF program; -1 when they cannot be read */
static int record_aggr__read_stats(u64 *stats)
{
	return bpf_percpu_array__sum(bpf_map__fd(skel->maps.record_aggr_stats), stats,
				     RECORD_AGGR_STAT_MAX);
}

static int record_aggr__cmp_time(const void *a, const void *b)
{
	const struct record_aggr_entry *ea = a, *eb = b;

	if (ea->val.last_time_ns < eb->val.last_time_ns)
		return -1;
	return ea->val.last_time_ns > eb->val.last_time_ns;
}

/*
 * Move the entries of a counts map to drain_entries, sorted by time, with
 * batch lookup-and-delete: the map is empty afterwards (unless an error is
 * reported). Returns the number of entries; *complete says whether the
 * map is empty.
 */
static size_t record_aggr__drain_entries(int counts_fd, bool *complete)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	u32 batch, count;
	size_t nr = 0, i;
	bool first = true;
	int err = 0;

	while (nr < aggr_nr_entries) {
		count = aggr_nr_entries - nr;
		err = bpf_map_lookup_and_delete_batch(counts_fd, first ? NULL : &batch, &batch,
						      drain_keys + nr, drain_values + nr,
						      &count, &opts);
		/* count is set also with -ENOENT, for the last batch */
		if (err && err != -ENOENT)
			break;
		nr += count;
		first = false;
		if (err)
			break;
	}
	/* -ENOENT: the map has no more entries */
	*complete = err == -ENOENT;
	if (err && err != -ENOENT)
		pr_warning("--bpf-aggr: reading the map stopped after %zu stacks: %s\n",
			   nr, strerror(-err));

	for (i = 0; i < nr; i++) {
		drain_entries[i].key = drain_keys[i];
		drain_entries[i].val = drain_values[i];
	}
	/*
	 * In time order: readers queue events sorted by time, and inserting
	 * thousands of samples far back in time one at a time is quadratic.
	 */
	qsort(drain_entries, nr, sizeof(*drain_entries), record_aggr__cmp_time);
	return nr;
}

/*
 * Empty a stack map for the next interval: its stacks were written. The
 * next id is found before the current one is deleted: from a deleted id
 * the kernel would start over from the first bucket.
 */
static void record_aggr__clear_stacks(int stacks_fd)
{
	u32 id, next;
	int err;

	err = bpf_map_get_next_key(stacks_fd, NULL, &id);
	while (!err) {
		err = bpf_map_get_next_key(stacks_fd, &id, &next);
		bpf_map_delete_elem(stacks_fd, &id);
		id = next;
	}
}

/*
 * The ip, cpumode and callchain of the sample of key: kernel stack first,
 * then the user stack. Returns the number of frames, 0 when the key has no
 * stack to show.
 */
static int record_aggr__fill_callchain(int stacks_fd, const struct record_aggr_key *key,
				       struct perf_sample *sample,
				       struct ip_callchain *callchain,
				       struct record_aggr_write_stats *ws)
{
	const struct perf_event_attr *attr = &aggr_evsel->core.attr;
	u64 ips[RECORD_AGGR_STACK_DEPTH];
	int nr_kernel, nr_user, nr = 0, i;

	nr_kernel = record_aggr__read_stack(stacks_fd, key->kernel_stack_id, ips);
	if (nr_kernel < 0) {
		ws->nr_stacks_unread++;
		nr_kernel = 0;
	}
	if (nr_kernel) {
		sample->ip = ips[0];
		sample->cpumode = PERF_RECORD_MISC_KERNEL;
		if (!attr->exclude_callchain_kernel) {
			callchain->ips[nr++] = PERF_CONTEXT_KERNEL;
			for (i = 0; i < nr_kernel; i++)
				callchain->ips[nr++] = ips[i];
		}
	}

	nr_user = record_aggr__read_stack(stacks_fd, key->user_stack_id, ips);
	if (nr_user < 0) {
		ws->nr_stacks_unread++;
		nr_user = 0;
	}
	if (nr_user) {
		if (!nr_kernel) {
			sample->ip = ips[0];
			sample->cpumode = PERF_RECORD_MISC_USER;
		}
		if (!attr->exclude_callchain_user) {
			callchain->ips[nr++] = PERF_CONTEXT_USER;
			for (i = 0; i < nr_user; i++)
				callchain->ips[nr++] = ips[i];
		}
	}

	callchain->nr = nr;
	sample->callchain = callchain;
	return nr_kernel + nr_user;
}

/* synthesize the sample of one entry into event; its size, 0 on error */
static size_t record_aggr__synthesize(const struct record_aggr_entry *entry, int stacks_fd,
				      union perf_event *event, struct ip_callchain *callchain,
				      struct record_aggr_write_stats *ws)
{
	const struct perf_event_attr *attr = &aggr_evsel->core.attr;
	struct perf_sample sample = {
		.pid	   = entry->key.pid,
		.tid	   = entry->key.tid,
		.cpu	   = entry->key.cpu,
		.period	   = entry->val.period,
		.weight	   = entry->val.nr_samples,
		.time	   = entry->val.last_time_ns,
	};
	size_t size;

	if (aggr_evsel->core.id) {
		sample.id = aggr_evsel->core.id[0];
		sample.stream_id = sample.id;
	}

	if (!record_aggr__fill_callchain(stacks_fd, &entry->key, &sample, callchain, ws))
		return 0;

	size = perf_event__sample_event_size(&sample, attr->sample_type, attr->read_format,
					     attr->branch_sample_type);
	memset(event, 0, size);
	event->header.type = PERF_RECORD_SAMPLE;
	event->header.misc = sample.cpumode;
	event->header.size = size;
	if (perf_event__synthesize_sample(event, attr->sample_type, attr->read_format,
					  attr->branch_sample_type, &sample))
		return 0;
	return size;
}

/* samples the program ran for but could not count: the ring buffer has them */
static u64 record_aggr__not_aggregated(const u64 *stats)
{
	return stats[RECORD_AGGR_STAT_MAP_FULL] + stats[RECORD_AGGR_STAT_STACK_FAILED] +
	       stats[RECORD_AGGR_STAT_UPDATE_FAILED];
}

/* what was counted since the last write, and what could not be written */
static void record_aggr__report(const struct record_aggr_write_stats *ws)
{
	u64 stats[RECORD_AGGR_STAT_MAX];
	u64 nr_not_aggregated;
	int i;

	if (record_aggr__read_stats(stats)) {
		pr_warning("--bpf-aggr: cannot read the BPF program's counters: the number of samples not aggregated is unknown\n");
		goto report_writes;
	}
	for (i = 0; i < RECORD_AGGR_STAT_MAX; i++) {
		u64 total = stats[i];

		stats[i] -= aggr_stats_written[i];
		aggr_stats_written[i] = total;
	}
	if (!quiet) {
		fprintf(stderr,
			"[ perf record: --bpf-aggr counted %llu samples in %llu of %u stacks ]\n",
			(unsigned long long)ws->nr_counted,
			(unsigned long long)ws->nr_written, aggr_nr_entries);
	}
	nr_not_aggregated = record_aggr__not_aggregated(stats);
	if (nr_not_aggregated) {
		pr_warning("--bpf-aggr: %llu samples not aggregated (map full: %llu, stack map full or hash collision: %llu, map update failed: %llu), written as plain samples; raise --bpf-aggr-entries if the maps were full\n",
			   (unsigned long long)nr_not_aggregated,
			   (unsigned long long)stats[RECORD_AGGR_STAT_MAP_FULL],
			   (unsigned long long)stats[RECORD_AGGR_STAT_STACK_FAILED],
			   (unsigned long long)stats[RECORD_AGGR_STAT_UPDATE_FAILED]);
	}
report_writes:
	if (ws->nr_stacks_unread)
		pr_warning("--bpf-aggr: %llu stacks were missing from the stack map: their samples were written without them\n",
			   (unsigned long long)ws->nr_stacks_unread);
	if (ws->nr_samples_unwritten)
		pr_warning("--bpf-aggr: %llu counted samples could not be written: no stack, or synthesis failed\n",
			   (unsigned long long)ws->nr_samples_unwritten);
}

/*
 * Write one sample per key of a set of maps: the sum of the periods and the
 * time of the last sample counted, and empty the set. Returns the number of
 * bytes written.
 */
static u64 record_aggr__write_set(struct perf_session *session, enum record_aggr_set set)
{
	struct record_aggr_write_stats ws = { 0 };
	struct perf_event_attr *attr = &aggr_evsel->core.attr;
	struct ip_callchain *callchain;
	union perf_event *event = NULL;
	struct perf_sample max_sample = { 0 };
	struct bpf_map *counts, *stacks;
	size_t nr_entries, n;
	bool complete;
	u64 bytes = 0;

	if (set == RECORD_AGGR_SET_ALT) {
		counts = skel->maps.record_aggr_counts_alt;
		stacks = skel->maps.record_aggr_stacks_alt;
	} else {
		counts = skel->maps.record_aggr_counts;
		stacks = skel->maps.record_aggr_stacks;
	}

	callchain = zalloc(sizeof(*callchain) + RECORD_AGGR_CALLCHAIN_MAX * sizeof(u64));
	if (callchain) {
		/* the largest sample: full kernel and user stacks */
		callchain->nr = RECORD_AGGR_CALLCHAIN_MAX;
		max_sample.callchain = callchain;
		event = zalloc(perf_event__sample_event_size(&max_sample, attr->sample_type,
							     attr->read_format,
							     attr->branch_sample_type));
	}
	if (!callchain || !event) {
		pr_err("--bpf-aggr: not enough memory to write samples\n");
		goto out;
	}

	nr_entries = record_aggr__drain_entries(bpf_map__fd(counts), &complete);
	for (n = 0; n < nr_entries; n++) {
		size_t size = record_aggr__synthesize(&drain_entries[n], bpf_map__fd(stacks),
						      event, callchain, &ws);

		ws.nr_counted += drain_entries[n].val.nr_samples;
		if (!size) {
			ws.nr_samples_unwritten += drain_entries[n].val.nr_samples;
			continue;
		}
		if (perf_data_file__write(&session->data->file, event, size) < 0) {
			pr_err("--bpf-aggr: failed to write perf data: %m\n");
			break;
		}
		bytes += size;
		ws.nr_written++;
	}
	/* keys left in the map keep their stacks: they go to the next file */
	if (complete)
		record_aggr__clear_stacks(bpf_map__fd(stacks));
	record_aggr__report(&ws);
out:
	free(event);
	free(callchain);
	return bytes;
}

/*
 * The kernel does not run a perf_event program for a sample taken while
 * another kprobe or tracepoint program runs on the CPU (bpf_prog_active),
 * and then drops the sample: it is in neither the counts nor the ring
 * buffer, and the kernel counts it nowhere.  Find how much of the event's
 * own count the program never saw: each fd's count goes on past its last
 * sample by less than one period, so a difference of up to one mean
 * period a fd that counted is no loss.  An event that cannot take its
 * samples in time (interrupts off, throttling) also leaves count in no
 * sample, plain perf record alike: under 1% of the count the two are not
 * told apart, and nothing is said.  A CPU-wide event counts on while its
 * CPU idles, where no sample is taken: only the events of tasks are
 * checked.
 */
static void record_aggr__report_missed(const u64 *stats)
{
	struct perf_counts_values count;
	u64 total = 0, seen, nr_seen, mean, missed;
	int x, y, nr_fds = 0;

	if (perf_thread_map__pid(aggr_evsel->core.threads, 0) == -1)
		return;
	seen = stats[RECORD_AGGR_STAT_PERIOD];
	nr_seen = stats[RECORD_AGGR_STAT_AGGREGATED] + record_aggr__not_aggregated(stats);

	for (x = 0; x < xyarray__max_x(aggr_evsel->core.fd); x++) {
		for (y = 0; y < xyarray__max_y(aggr_evsel->core.fd); y++) {
			if (*(int *)xyarray__entry(aggr_evsel->core.fd, x, y) < 0)
				continue;
			if (perf_evsel__read(&aggr_evsel->core, x, y, &count)) {
				pr_warning("--bpf-aggr: cannot read the count of %s: samples the BPF program did not see are not known\n",
					   evsel__name(aggr_evsel));
				return;
			}
			total += count.val;
			if (count.val)
				nr_fds++;
		}
	}
	if (!nr_seen || total <= seen)
		return;
	mean = seen / nr_seen;
	if (!mean)
		return;
	missed = (total - seen) / mean;
	if (missed <= (u64)nr_fds)
		return;
	missed -= nr_fds;
	if (missed * mean * 100 < total)
		return;
	pr_warning("--bpf-aggr: the kernel took at least %llu samples of %s without running the BPF program, %.1f%% of its count: another tracing BPF program ran on their CPU, or the event could not sample in time\n",
		   (unsigned long long)missed, evsel__name(aggr_evsel),
		   100.0 * missed * mean / total);
}

/* at the end of the session, the events disabled: write what is counted */
u64 bpf_record_aggr__write(struct perf_session *session)
{
	u64 stats[RECORD_AGGR_STAT_MAX], bytes;

	if (!skel || !aggr_evsel)
		return 0;
	bytes = record_aggr__write_set(session, aggr_active_set);
	if (record_aggr__read_stats(stats))
		return bytes;
	/* what the files of a --switch-output add up to */
	pr_debug("--bpf-aggr: the program ran for %llu samples and aggregated %llu\n",
		 (unsigned long long)(stats[RECORD_AGGR_STAT_AGGREGATED] +
				      record_aggr__not_aggregated(stats)),
		 (unsigned long long)stats[RECORD_AGGR_STAT_AGGREGATED]);
	record_aggr__report_missed(stats);
	return bytes;
}

/*
 * At --switch-output, the events still counting: write the counts of the
 * interval into the file being closed. The program moves to the other set
 * of maps first: the update of record_aggr_set returns once no run of the
 * program can still be adding to the set being drained, so each sample is
 * written exactly once.
 */
u64 bpf_record_aggr__switch(struct perf_session *session)
{
	enum record_aggr_set drained = aggr_active_set, next;
	struct bpf_map *set_map;
	int zero = 0, set_fd;

	if (!skel || !aggr_evsel)
		return 0;

	if (drained == RECORD_AGGR_SET_MAIN) {
		next = RECORD_AGGR_SET_ALT;
		set_map = skel->maps.record_aggr_set_alt;
	} else {
		next = RECORD_AGGR_SET_MAIN;
		set_map = skel->maps.record_aggr_set_main;
	}
	set_fd = bpf_map__fd(set_map);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.record_aggr_set), &zero, &set_fd,
				BPF_ANY)) {
		/* the program still counts into the same set: the next file has it */
		pr_err("--bpf-aggr: cannot swap the BPF maps, the counts of this interval go to the next file: %s\n",
		       strerror(errno));
		return 0;
	}
	aggr_active_set = next;
	return record_aggr__write_set(session, drained);
}

void bpf_record_aggr__cleanup(void)
{
	record_aggr_bpf__destroy(skel);
	skel = NULL;
	aggr_evsel = NULL;
	zfree(&drain_keys);
	zfree(&drain_values);
	zfree(&drain_entries);
}
