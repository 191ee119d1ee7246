// SPDX-License-Identifier: GPL-2.0
/*
 * perf record --bpf-aggr: count sampled stacks in the kernel.
 *
 * A BPF_PROG_TYPE_PERF_EVENT program (bpf_skel/record_aggr.bpf.c) is set as
 * the overflow handler of every fd of the sampling event. It adds the sample
 * period to a hash map keyed by (pid, tid, kernel stack, user stack[, cpu])
 * and drops the sample. At the end of the session one PERF_RECORD_SAMPLE per
 * key is synthesized here, with the summed period and the time of the last
 * sample of the key, so perf report and perf script need no change.
 *
 * The BPF side timestamps with bpf_ktime_get_ns(), so the session uses
 * CLOCK_MONOTONIC (-k monotonic) for its events: the synthesized samples
 * then sort among the COMM, MMAP and EXIT events of their thread.
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
#include <linux/zalloc.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <internal/xyarray.h>

#include "util/bpf_counter.h"
#include "util/bpf_record_aggr.h"
#include "util/callchain.h"
#include "util/cap.h"
#include "util/debug.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/record.h"
#include "util/session.h"
#include "util/synthetic-events.h"

#include "bpf_skel/record_aggr_data.h"
#include "bpf_skel/record_aggr.skel.h"

/* must match MAX_STACK_DEPTH of record_aggr.bpf.c */
#define RECORD_AGGR_STACK_DEPTH	127
/* stack map buckets per key: keeps hash collisions of stack ids rare */
#define RECORD_AGGR_STACKS_PER_KEY	4

/* sample fields a synthesized sample can fill in */
#define RECORD_AGGR_SAMPLE_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
				  PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
				  PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |	\
				  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |	\
				  PERF_SAMPLE_CALLCHAIN)

static struct record_aggr_bpf *skel;
static struct evsel *aggr_evsel;
static unsigned int aggr_nr_entries;

static const struct {
	u64 bit;
	const char *option;
} record_aggr_refused_types[] = {
	{ PERF_SAMPLE_ADDR,		"-d/--data" },
	{ PERF_SAMPLE_PHYS_ADDR,	"--phys-data" },
	{ PERF_SAMPLE_DATA_PAGE_SIZE,	"--data-page-size" },
	{ PERF_SAMPLE_CODE_PAGE_SIZE,	"--code-page-size" },
	{ PERF_SAMPLE_DATA_SRC,		"-d/--data" },
	{ PERF_SAMPLE_WEIGHT,		"-W/--weight" },
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
			pr_err("--bpf-aggr cannot be used with BPF sample filters (--filter) on %s\n",
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
	return 0;
}

int bpf_record_aggr__prepare(struct evlist *evlist, struct record_opts *opts,
			     unsigned int nr_entries)
{
	struct evsel *evsel;

	if (nr_entries == 0) {
		pr_err("--bpf-aggr-entries must be at least 1\n");
		return -EINVAL;
	}
	if (perf_cap__check_bpf_skel("--bpf-aggr"))
		return -EPERM;
	if (callchain_param.enabled && callchain_param.record_mode != CALLCHAIN_FP) {
		pr_err("--bpf-aggr supports frame pointer call graphs only (-g, --call-graph fp), not dwarf or lbr\n");
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
	if (opts->branch_stack) {
		pr_err("--bpf-aggr cannot be used with -b/-j: branch stacks are not aggregated\n");
		return -EINVAL;
	}
	if (opts->use_clockid && opts->clockid != CLOCK_MONOTONIC) {
		pr_err("--bpf-aggr needs -k monotonic: the BPF program timestamps with CLOCK_MONOTONIC\n");
		return -EINVAL;
	}
	if (!opts->use_clockid) {
		struct timespec res;

		opts->use_clockid = true;
		opts->clockid = CLOCK_MONOTONIC;
		if (!clock_getres(CLOCK_MONOTONIC, &res))
			opts->clockid_res_ns = res.tv_sec * 1000000000ULL + res.tv_nsec;
	}

	if (!record_aggr__sampling_evsel(evlist))
		return -EINVAL;

	/*
	 * The kernel refuses BPF stack walks on precise events (-EPROTO), and
	 * precise_ip means nothing to the software clocks perf falls back to
	 * without a PMU: sample without it.
	 */
	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.attr.precise_ip && !evsel->precise_max)
			pr_warning("--bpf-aggr: sampling %s without precise_ip (:p)\n",
				   evsel__name(evsel));
		evsel->precise_max = false;
		evsel->core.attr.precise_ip = 0;
	}

	aggr_nr_entries = nr_entries;
	return 0;
}

int bpf_record_aggr__attach(struct evlist *evlist)
{
	struct evsel *evsel = record_aggr__sampling_evsel(evlist);
	int prog_fd, x, y, nr_fds = 0;

	if (!evsel || record_aggr__check_sample_type(evsel))
		return -EINVAL;

	skel = record_aggr_bpf__open();
	if (!skel) {
		pr_err("--bpf-aggr: failed to open the BPF skeleton\n");
		return -1;
	}
	bpf_map__set_max_entries(skel->maps.record_aggr_counts, aggr_nr_entries);
	bpf_map__set_max_entries(skel->maps.record_aggr_stacks,
				 aggr_nr_entries * RECORD_AGGR_STACKS_PER_KEY);
	skel->rodata->key_has_cpu = !!(evsel->core.attr.sample_type & PERF_SAMPLE_CPU);

	set_max_rlimit();
	if (record_aggr_bpf__load(skel)) {
		pr_err("--bpf-aggr: failed to load the BPF program (%u map entries)\n",
		       aggr_nr_entries);
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
	return -1;
}

/* copy a stack from the stack map to ips, without perf context markers */
static int record_aggr__read_stack(int stacks_fd, s32 stack_id, u64 *ips)
{
	u64 frames[RECORD_AGGR_STACK_DEPTH] = { 0 };
	int i, nr = 0;

	if (stack_id < 0 || bpf_map_lookup_elem(stacks_fd, &stack_id, frames))
		return 0;

	for (i = 0; i < RECORD_AGGR_STACK_DEPTH && frames[i]; i++) {
		/* the kernel stores the event's callchain when it has one */
		if (frames[i] >= PERF_CONTEXT_MAX)
			continue;
		ips[nr++] = frames[i];
	}
	return nr;
}

static void record_aggr__read_stats(u64 *stats)
{
	int nr_cpus = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(skel->maps.record_aggr_stats);
	u64 *percpu = calloc(nr_cpus, sizeof(*percpu));
	u32 stat;
	int cpu;

	for (stat = 0; stat < RECORD_AGGR_STAT_MAX; stat++) {
		stats[stat] = 0;
		if (!percpu || bpf_map_lookup_elem(fd, &stat, percpu))
			continue;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			stats[stat] += percpu[cpu];
	}
	free(percpu);
}

struct record_aggr_entry {
	struct record_aggr_key key;
	struct record_aggr_value val;
};

static int record_aggr__cmp_time(const void *a, const void *b)
{
	const struct record_aggr_entry *ea = a, *eb = b;

	if (ea->val.last_time_ns < eb->val.last_time_ns)
		return -1;
	return ea->val.last_time_ns > eb->val.last_time_ns;
}

/* the map's entries sorted by time, NULL on error */
static struct record_aggr_entry *record_aggr__read_entries(int counts_fd, size_t *nr)
{
	struct record_aggr_entry *entries = calloc(aggr_nr_entries, sizeof(*entries));
	struct record_aggr_key key, prev;
	bool first = true;

	*nr = 0;
	if (!entries)
		return NULL;

	while (*nr < aggr_nr_entries &&
	       !bpf_map_get_next_key(counts_fd, first ? NULL : &prev, &key)) {
		first = false;
		prev = key;
		if (bpf_map_lookup_elem(counts_fd, &key, &entries[*nr].val))
			continue;
		entries[(*nr)++].key = key;
	}
	/*
	 * In time order: readers queue events sorted by time, and inserting
	 * thousands of samples far back in time one at a time is quadratic.
	 */
	qsort(entries, *nr, sizeof(*entries), record_aggr__cmp_time);
	return entries;
}

/*
 * Write one sample per key of the map: the sum of the periods and the time
 * of the last sample counted. Returns the number of bytes written.
 */
int bpf_record_aggr__write(struct perf_session *session)
{
	struct perf_event_attr *attr;
	struct record_aggr_entry *entries = NULL;
	struct perf_data_file *file = &session->data->file;
	u64 stats[RECORD_AGGR_STAT_MAX];
	u64 sample_type, id = 0;
	struct ip_callchain *callchain;
	union perf_event *event;
	int counts_fd, stacks_fd, bytes = 0;
	unsigned int nr_keys = 0;
	u64 nr_unwritten = 0;
	size_t max_size, nr_entries, n;

	if (!skel || !aggr_evsel)
		return 0;

	attr = &aggr_evsel->core.attr;
	sample_type = attr->sample_type;
	if (aggr_evsel->core.id)
		id = aggr_evsel->core.id[0];

	callchain = zalloc(sizeof(*callchain) + (2 * RECORD_AGGR_STACK_DEPTH + 2) * sizeof(u64));
	max_size = sizeof(*event) + (2 * RECORD_AGGR_STACK_DEPTH + 2 + 16) * sizeof(u64);
	event = zalloc(max_size);
	if (!callchain || !event) {
		pr_err("--bpf-aggr: not enough memory to write samples\n");
		goto out;
	}

	counts_fd = bpf_map__fd(skel->maps.record_aggr_counts);
	stacks_fd = bpf_map__fd(skel->maps.record_aggr_stacks);
	entries = record_aggr__read_entries(counts_fd, &nr_entries);
	if (!entries) {
		pr_err("--bpf-aggr: not enough memory to read the map\n");
		goto out;
	}

	for (n = 0; n < nr_entries; n++) {
		struct record_aggr_key *key = &entries[n].key;
		struct record_aggr_value *val = &entries[n].val;
		struct perf_sample sample = {
			.pid	   = key->pid,
			.tid	   = key->tid,
			.cpu	   = key->cpu,
			.id	   = id,
			.stream_id = id,
		};
		u64 ips[RECORD_AGGR_STACK_DEPTH];
		int nr_kernel, nr_user, nr = 0, i;
		size_t size;

		sample.period = val->period;
		sample.time = val->last_time_ns;

		nr_kernel = record_aggr__read_stack(stacks_fd, key->kernel_stack_id, ips);
		if (nr_kernel) {
			sample.ip = ips[0];
			sample.cpumode = PERF_RECORD_MISC_KERNEL;
			if (!attr->exclude_callchain_kernel) {
				callchain->ips[nr++] = PERF_CONTEXT_KERNEL;
				for (i = 0; i < nr_kernel; i++)
					callchain->ips[nr++] = ips[i];
			}
		}
		nr_user = record_aggr__read_stack(stacks_fd, key->user_stack_id, ips);
		if (nr_user) {
			if (!nr_kernel) {
				sample.ip = ips[0];
				sample.cpumode = PERF_RECORD_MISC_USER;
			}
			if (!attr->exclude_callchain_user) {
				callchain->ips[nr++] = PERF_CONTEXT_USER;
				for (i = 0; i < nr_user; i++)
					callchain->ips[nr++] = ips[i];
			}
		}
		if (!nr_kernel && !nr_user) {
			nr_unwritten += val->nr_samples;
			continue;
		}

		callchain->nr = nr;
		sample.callchain = callchain;

		size = perf_event__sample_event_size(&sample, sample_type, attr->read_format);
		if (size > max_size) {
			nr_unwritten += val->nr_samples;
			continue;
		}
		memset(event, 0, size);
		event->header.type = PERF_RECORD_SAMPLE;
		event->header.misc = sample.cpumode;
		event->header.size = size;
		if (perf_event__synthesize_sample(event, sample_type, attr->read_format, &sample)) {
			nr_unwritten += val->nr_samples;
			continue;
		}

		if (perf_data_file__write(file, event, size) < 0) {
			pr_err("--bpf-aggr: failed to write perf data: %m\n");
			break;
		}
		bytes += size;
		nr_keys++;
	}

	record_aggr__read_stats(stats);
	if (!quiet) {
		fprintf(stderr,
			"[ perf record: --bpf-aggr counted %llu samples in %u of %u stacks ]\n",
			(unsigned long long)stats[RECORD_AGGR_STAT_AGGREGATED], nr_keys,
			aggr_nr_entries);
	}
	if (stats[RECORD_AGGR_STAT_MAP_FULL] || stats[RECORD_AGGR_STAT_STACK_FAILED]) {
		pr_warning("--bpf-aggr: %llu samples not aggregated (map full: %llu, stack map full or hash collision: %llu), written as plain samples; raise --bpf-aggr-entries\n",
			   (unsigned long long)(stats[RECORD_AGGR_STAT_MAP_FULL] +
						stats[RECORD_AGGR_STAT_STACK_FAILED]),
			   (unsigned long long)stats[RECORD_AGGR_STAT_MAP_FULL],
			   (unsigned long long)stats[RECORD_AGGR_STAT_STACK_FAILED]);
	}
	if (nr_unwritten)
		pr_warning("--bpf-aggr: %llu counted samples could not be written: their stacks were not found\n",
			   (unsigned long long)nr_unwritten);
out:
	free(entries);
	free(event);
	free(callchain);
	return bytes;
}

void bpf_record_aggr__cleanup(void)
{
	record_aggr_bpf__destroy(skel);
	skel = NULL;
	aggr_evsel = NULL;
}
