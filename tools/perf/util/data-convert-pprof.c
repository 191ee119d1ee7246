// SPDX-License-Identifier: GPL-2.0
/*
 * perf data convert --to-pprof: write the samples of a perf.data file as a
 * pprof profile, the gzip-compressed protobuf Profile message that
 * continuous profiling backends ingest and 'go tool pprof' reads.
 *
 * Every event with samples gets two values: its number of samples and the
 * sum of their periods. All pprof samples share one list of value types, so
 * a sample of one event has zeros in the columns of the others. Samples of
 * the same event, thread, comm and call chain are merged into one pprof
 * sample; mappings (one per dso), locations and functions are shared by all
 * samples, as pprof expects.
 *
 * The protobuf encoding is done here: a Profile is a handful of messages of
 * integers, strings and packed integer arrays, which the small encoder
 * below writes in the protobuf wire format, field numbers as pprof defines
 * them. The encoded profile goes through zlib as it is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/zalloc.h>

#include "data-convert.h"
#include "util/build-id.h"
#include "util/callchain.h"
#include "util/debug.h"
#include "util/dso.h"
#include "util/env.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/hashmap.h"
#include "util/header.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/off_cpu.h"
#include "util/session.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/tool.h"
#include "util/util.h"

/*
 * The protobuf wire format: a message is a sequence of fields, each a key,
 * (field number << 3 | wire type), then the value: a varint (7 bits a byte,
 * least significant first, the high bit set on all bytes but the last) for
 * integers and bools, or a varint length and that many bytes for strings,
 * embedded messages and packed repeated integers. Fields equal to their
 * default, 0, are left out.
 */
enum pb_wire_type {
	PB_WIRE_VARINT	= 0,
	PB_WIRE_LEN	= 2,
};

/* pprof's profile.proto: the field numbers of the messages written here */
enum pprof_profile_field {
	PROFILE_SAMPLE_TYPE		= 1,
	PROFILE_SAMPLE			= 2,
	PROFILE_MAPPING			= 3,
	PROFILE_LOCATION		= 4,
	PROFILE_FUNCTION		= 5,
	PROFILE_STRING_TABLE		= 6,
	PROFILE_TIME_NANOS		= 9,
	PROFILE_DURATION_NANOS		= 10,
	PROFILE_PERIOD_TYPE		= 11,
	PROFILE_PERIOD			= 12,
	PROFILE_DEFAULT_SAMPLE_TYPE	= 14,
};

enum pprof_value_type_field {
	VALUE_TYPE_TYPE	= 1,
	VALUE_TYPE_UNIT	= 2,
};

enum pprof_sample_field {
	SAMPLE_LOCATION_ID	= 1,
	SAMPLE_VALUE		= 2,
	SAMPLE_LABEL		= 3,
};

enum pprof_label_field {
	LABEL_KEY	= 1,
	LABEL_STR	= 2,
	LABEL_NUM	= 3,
};

enum pprof_mapping_field {
	MAPPING_ID		= 1,
	MAPPING_MEMORY_START	= 2,
	MAPPING_MEMORY_LIMIT	= 3,
	MAPPING_FILE_OFFSET	= 4,
	MAPPING_FILENAME	= 5,
	MAPPING_BUILD_ID	= 6,
	MAPPING_HAS_FUNCTIONS	= 7,
};

enum pprof_location_field {
	LOCATION_ID		= 1,
	LOCATION_MAPPING_ID	= 2,
	LOCATION_ADDRESS	= 3,
	LOCATION_LINE		= 4,
};

enum pprof_line_field {
	LINE_FUNCTION_ID	= 1,
};

enum pprof_function_field {
	FUNCTION_ID		= 1,
	FUNCTION_NAME		= 2,
	FUNCTION_SYSTEM_NAME	= 3,
};

/* a message being encoded; failed after an allocation failure */
struct pb_buf {
	u8	*data;
	size_t	len;
	size_t	alloc;
	bool	failed;
};

static void pb_buf__put(struct pb_buf *b, const void *data, size_t len)
{
	if (b->failed)
		return;
	if (b->len + len > b->alloc) {
		size_t alloc = max(b->alloc ? 2 * b->alloc : 4096, b->len + len);
		u8 *p = realloc(b->data, alloc);

		if (!p) {
			b->failed = true;
			return;
		}
		b->data = p;
		b->alloc = alloc;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static void pb_buf__exit(struct pb_buf *b)
{
	zfree(&b->data);
	b->len = 0;
	b->alloc = 0;
}

static size_t pb_varint_size(u64 val)
{
	size_t n = 1;

	while (val >= 0x80) {
		val >>= 7;
		n++;
	}
	return n;
}

static void pb_varint(struct pb_buf *b, u64 val)
{
	u8 bytes[10];
	size_t n = 0;

	while (val >= 0x80) {
		bytes[n++] = (val & 0x7f) | 0x80;
		val >>= 7;
	}
	bytes[n++] = val;
	pb_buf__put(b, bytes, n);
}

static void pb_key(struct pb_buf *b, unsigned int field, enum pb_wire_type type)
{
	pb_varint(b, (u64)field << 3 | type);
}

/* uint64, int64 (two's complement, so a negative one takes 10 bytes), bool */
static void pb_uint(struct pb_buf *b, unsigned int field, u64 val)
{
	if (!val)
		return;
	pb_key(b, field, PB_WIRE_VARINT);
	pb_varint(b, val);
}

/* a string or an embedded message; an element of a repeated one even if empty */
static void pb_bytes(struct pb_buf *b, unsigned int field, const void *data, size_t len)
{
	pb_key(b, field, PB_WIRE_LEN);
	pb_varint(b, len);
	pb_buf__put(b, data, len);
}

static void pb_message(struct pb_buf *b, unsigned int field, const struct pb_buf *msg)
{
	if (msg->failed)
		b->failed = true;
	else
		pb_bytes(b, field, msg->data, msg->len);
}

/* a repeated uint64 or int64 field, packed: one length, then the varints */
static void pb_packed(struct pb_buf *b, unsigned int field, const u64 *vals, size_t nr)
{
	size_t size = 0, i;

	if (!nr)
		return;
	for (i = 0; i < nr; i++)
		size += pb_varint_size(vals[i]);
	pb_key(b, field, PB_WIRE_LEN);
	pb_varint(b, size);
	for (i = 0; i < nr; i++)
		pb_varint(b, vals[i]);
}

/*
 * Entries of one kind (strings, mappings, ...) in the order of their ids,
 * and an index from what identifies an entry to the entry.
 */
struct pprof_table {
	void		**entries;
	size_t		nr;
	size_t		alloc;
	struct hashmap	index;
};

/* one mapping per dso, over the dso addresses of all its maps */
struct pprof_mapping {
	u64		id;
	struct dso	*dso;	/* a reference */
	u64		start;
	u64		limit;
	int64_t		filename;
	int64_t		build_id;
	bool		has_functions;
};

struct pprof_function {
	u64		id;
	int64_t		name;
};

struct pprof_location {
	u64		id;
	u64		mapping_id;
	u64		address;	/* in the dso when there is a mapping */
	u64		function_id;	/* 0: no symbol, pprof shows the address */
};

struct pprof_sample {
	int		evsel_idx;
	u32		pid;
	u32		tid;
	int64_t		comm;
	u64		nr_samples;
	u64		period;
	size_t		nr_ids;
	u64		location_ids[];	/* leaf first */
};

/* what was converted of one event */
struct pprof_event_total {
	u64	nr_samples;
	u64	period;
};

struct pprof_value_type {
	int64_t	type;
	int64_t	unit;
};

enum pprof_label {
	PPROF_LABEL_PID,
	PPROF_LABEL_TID,
	PPROF_LABEL_COMM,
	PPROF_NR_LABELS,
};

struct pprof_convert {
	struct perf_tool		tool;
	struct perf_session		*session;
	struct pprof_table		strings;
	struct pprof_table		mappings;
	struct pprof_table		locations;
	struct pprof_table		functions;
	struct pprof_table		samples;
	int64_t				label_keys[PPROF_NR_LABELS];
	struct pprof_event_total	*totals;	/* by evsel index */
	int				nr_evsels;	/* of totals */
	int				max_stack;
	/* perf record --bpf-aggr: a sample's weight is its number of samples */
	/* location ids of the sample being converted */
	u64				*ids;
	size_t				ids_alloc;
	u64				nr_records;
	u64				nr_samples;
	u64				nr_skipped;
	/* the first and last sample time, 0 if samples have no time */
	u64				first_time;
	u64				last_time;
};

static size_t pprof__hash_u64(size_t h, u64 val)
{
	return h * 31 + (size_t)(val ^ (val >> 32));
}

static size_t pprof_string__hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool pprof_string__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return !strcmp((const char *)key1, (const char *)key2);
}

static size_t pprof_ptr__hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool pprof_ptr__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

static size_t pprof_location__hash(long key, void *ctx __maybe_unused)
{
	const struct pprof_location *l = (const struct pprof_location *)key;

	return pprof__hash_u64(l->mapping_id, l->address);
}

static bool pprof_location__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct pprof_location *a = (const struct pprof_location *)key1;
	const struct pprof_location *b = (const struct pprof_location *)key2;

	return a->mapping_id == b->mapping_id && a->address == b->address;
}

static size_t pprof_sample__hash(long key, void *ctx __maybe_unused)
{
	const struct pprof_sample *s = (const struct pprof_sample *)key;
	size_t h = s->evsel_idx;
	size_t i;

	h = pprof__hash_u64(h, s->tid);
	h = pprof__hash_u64(h, s->comm);
	for (i = 0; i < s->nr_ids; i++)
		h = pprof__hash_u64(h, s->location_ids[i]);
	return h;
}

static bool pprof_sample__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct pprof_sample *a = (const struct pprof_sample *)key1;
	const struct pprof_sample *b = (const struct pprof_sample *)key2;

	return a->evsel_idx == b->evsel_idx && a->pid == b->pid && a->tid == b->tid &&
	       a->comm == b->comm && a->nr_ids == b->nr_ids &&
	       !memcmp(a->location_ids, b->location_ids, a->nr_ids * sizeof(a->location_ids[0]));
}

static void pprof_table__init(struct pprof_table *t, hashmap_hash_fn hash_fn,
			      hashmap_equal_fn equal_fn)
{
	memset(t, 0, sizeof(*t));
	hashmap__init(&t->index, hash_fn, equal_fn, NULL);
}

static void pprof_table__exit(struct pprof_table *t, void (*free_entry)(void *entry))
{
	size_t i;

	hashmap__clear(&t->index);
	for (i = 0; i < t->nr; i++)
		free_entry(t->entries[i]);
	zfree(&t->entries);
	t->nr = 0;
	t->alloc = 0;
}

/* the id (position + 1) of the entry key identifies, 0 if there is none */
static size_t pprof_table__find(struct pprof_table *t, const void *key)
{
	size_t id;

	if (!hashmap__find(&t->index, key, &id))
		return 0;
	return id;
}

/* Add entry, found by key from now on, with id t->nr (after the call) */
static int pprof_table__add(struct pprof_table *t, void *entry, const void *key)
{
	if (t->nr == t->alloc) {
		size_t alloc = t->alloc ? 2 * t->alloc : 256;
		void **entries = realloc(t->entries, alloc * sizeof(*entries));

		if (!entries)
			return -ENOMEM;
		t->entries = entries;
		t->alloc = alloc;
	}
	if (hashmap__add(&t->index, key, t->nr + 1))
		return -ENOMEM;
	t->entries[t->nr++] = entry;
	return 0;
}

/* the index of s in the string table, or -ENOMEM */
static int64_t pprof__string(struct pprof_convert *c, const char *s)
{
	size_t id = pprof_table__find(&c->strings, s);
	char *copy;

	if (id)
		return id - 1;

	copy = strdup(s);
	if (!copy || pprof_table__add(&c->strings, copy, copy)) {
		free(copy);
		return -ENOMEM;
	}
	return c->strings.nr - 1;
}

static void pprof_mapping__delete(void *entry)
{
	struct pprof_mapping *m = entry;

	dso__put(m->dso);
	free(m);
}

/*
 * The mapping of the dso of map, grown to the dso addresses map covers.
 * Locations have dso addresses (map__map_ip()), so that a dso mapped at
 * different addresses by different processes is one mapping and the same
 * code one location.
 */
static struct pprof_mapping *pprof__mapping(struct pprof_convert *c, struct map *map)
{
	struct dso *dso = map__dso(map);
	size_t id = pprof_table__find(&c->mappings, dso);
	u64 start = map__map_ip(map, map__start(map));
	u64 limit = map__map_ip(map, map__end(map));
	char sbuild_id[SBUILD_ID_SIZE];
	struct pprof_mapping *m;
	int64_t filename, build_id = 0;

	/* a map up to the end of the address space */
	if (limit < start)
		limit = ULLONG_MAX;

	if (id) {
		m = c->mappings.entries[id - 1];
		m->start = min(m->start, start);
		m->limit = max(m->limit, limit);
		return m;
	}

	filename = pprof__string(c, dso__long_name(dso));
	if (dso__has_build_id(dso)) {
		build_id__snprintf(dso__bid(dso), sbuild_id, sizeof(sbuild_id));
		build_id = pprof__string(c, sbuild_id);
	}
	if (filename < 0 || build_id < 0)
		return NULL;

	m = zalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->start = start;
	m->limit = limit;
	m->filename = filename;
	m->build_id = build_id;
	m->dso = dso__get(dso);
	if (pprof_table__add(&c->mappings, m, m->dso)) {
		pprof_mapping__delete(m);
		return NULL;
	}
	m->id = c->mappings.nr;
	return m;
}

/* the id of the function for sym, 0 on error */
static u64 pprof__function_id(struct pprof_convert *c, struct symbol *sym)
{
	size_t id = pprof_table__find(&c->functions, sym);
	struct pprof_function *f;
	int64_t name;

	if (id)
		return id;

	name = pprof__string(c, sym->name);
	if (name < 0)
		return 0;

	f = zalloc(sizeof(*f));
	if (!f)
		return 0;
	f->name = name;
	if (pprof_table__add(&c->functions, f, sym)) {
		free(f);
		return 0;
	}
	f->id = c->functions.nr;
	return f->id;
}

/* the id of the location of ip, 0 on error */
static u64 pprof__location_id(struct pprof_convert *c, struct map *map, struct symbol *sym,
			      u64 ip)
{
	struct pprof_mapping *m = NULL;
	struct pprof_location *l, key = { .address = ip, };
	size_t id;

	if (map) {
		m = pprof__mapping(c, map);
		if (!m)
			return 0;
		key.mapping_id = m->id;
		key.address = map__map_ip(map, ip);
	}
	id = pprof_table__find(&c->locations, &key);
	if (id)
		return id;

	l = malloc(sizeof(*l));
	if (!l)
		return 0;
	*l = key;
	/* without a symbol pprof shows the address */
	if (m && sym) {
		l->function_id = pprof__function_id(c, sym);
		if (!l->function_id) {
			free(l);
			return 0;
		}
		m->has_functions = true;
	}
	if (pprof_table__add(&c->locations, l, l)) {
		free(l);
		return 0;
	}
	l->id = c->locations.nr;
	return l->id;
}

static int pprof__reserve_ids(struct pprof_convert *c, size_t nr)
{
	u64 *ids;

	if (nr <= c->ids_alloc)
		return 0;
	ids = realloc(c->ids, nr * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	c->ids = ids;
	c->ids_alloc = nr;
	return 0;
}

/* A pipe brings its events with its data: size totals as they come */
static int pprof__grow_totals(struct pprof_convert *c, int nr_evsels)
{
	struct pprof_event_total *totals;

	if (nr_evsels <= c->nr_evsels)
		return 0;
	totals = realloc(c->totals, nr_evsels * sizeof(*totals));
	if (!totals)
		return -ENOMEM;
	memset(totals + c->nr_evsels, 0, (nr_evsels - c->nr_evsels) * sizeof(*totals));
	c->totals = totals;
	c->nr_evsels = nr_evsels;
	return 0;
}

/*
 * perf record --bpf-aggr writes one sample per stack, its weight the
 * number of samples counted for it (0 in the samples its map had no room
 * for, written as they came), and marks the event in the header
 * (HEADER_SAMPLE_AGGR). Other weights (perf record -W) are latencies.
 */
static bool pprof__weight_counts(struct pprof_convert *c, struct evsel *evsel)
{
	return perf_env__sample_aggr(perf_session__env(c->session), evsel->core.idx) &&
	       (evsel->core.attr.sample_type & PERF_SAMPLE_WEIGHT);
}

/* Count samples with the nr_ids locations in c->ids */
static int pprof__add_sample(struct pprof_convert *c, struct evsel *evsel, struct thread *thread,
			     u64 nr_samples, u64 period, u64 time, size_t nr_ids)
{
	int64_t comm = pprof__string(c, thread__comm_str(thread) ?: ":unknown");
	struct pprof_sample *s, *key;
	size_t id;

	if (comm < 0)
		return -ENOMEM;

	/* the key is the sample to add, if it is a new one */
	key = malloc(sizeof(*key) + nr_ids * sizeof(key->location_ids[0]));
	if (!key)
		return -ENOMEM;
	key->evsel_idx = evsel->core.idx;
	key->pid = thread__pid(thread);
	key->tid = thread__tid(thread);
	key->comm = comm;
	key->nr_samples = 0;
	key->period = 0;
	key->nr_ids = nr_ids;
	memcpy(key->location_ids, c->ids, nr_ids * sizeof(key->location_ids[0]));

	id = pprof_table__find(&c->samples, key);
	if (id) {
		s = c->samples.entries[id - 1];
		free(key);
	} else {
		s = key;
		if (pprof_table__add(&c->samples, s, s)) {
			free(s);
			return -ENOMEM;
		}
	}
	s->nr_samples += nr_samples;
	s->period += period;
	if (time && time < OFF_CPU_TIMESTAMP) {
		if (!c->first_time || time < c->first_time)
			c->first_time = time;
		if (time > c->last_time)
			c->last_time = time;
	}
	c->totals[s->evsel_idx].nr_samples += nr_samples;
	c->totals[s->evsel_idx].period += period;
	c->nr_samples += nr_samples;
	c->nr_records++;
	return 0;
}

static int pprof__process_sample(const struct perf_tool *tool,
				 union perf_event *event __maybe_unused,
				 struct perf_sample *sample,
				 struct machine *machine)
{
	struct pprof_convert *c = container_of(tool, struct pprof_convert, tool);
	struct evsel *evsel = sample->evsel;
	struct callchain_cursor *cursor = get_tls_callchain_cursor();
	struct callchain_cursor_node *node;
	struct addr_location al;
	u64 time, nr_samples = 1;
	size_t nr = 0;
	int err = -ENOMEM;

	addr_location__init(&al);
	if (pprof__grow_totals(c, evsel->core.idx + 1))
		goto out;

	if (machine__resolve(machine, &al, sample) < 0 || !cursor ||
	    thread__resolve_callchain(al.thread, cursor, sample, NULL, NULL, c->max_stack)) {
		/* counted and reported at the end */
		c->nr_skipped++;
		err = 0;
		goto out;
	}

	if (pprof__reserve_ids(c, cursor->nr + 1))
		goto out;

	/* callee first, whatever call-graph.order says: set up before */
	callchain_cursor_commit(cursor);
	while ((node = callchain_cursor_current(cursor)) != NULL) {
		c->ids[nr] = pprof__location_id(c, node->ms.map, node->ms.sym, node->ip);
		if (!c->ids[nr++])
			goto out;
		callchain_cursor_advance(cursor);
	}
	/* no call chain recorded: the sampled address is the only location */
	if (!nr) {
		c->ids[nr] = pprof__location_id(c, al.map, al.sym, sample->ip);
		if (!c->ids[nr++])
			goto out;
	}

	if (pprof__weight_counts(c, evsel) && sample->weight)
		nr_samples = sample->weight;
	time = evsel->core.attr.sample_type & PERF_SAMPLE_TIME ? sample->time : 0;
	err = pprof__add_sample(c, evsel, al.thread, nr_samples, sample->period, time, nr);
out:
	if (err)
		pr_err("--to-pprof: not enough memory\n");
	addr_location__exit(&al);
	return err;
}

/* In a pipe the events come as PERF_RECORD_HEADER_ATTR */
static int pprof__process_attr(const struct perf_tool *tool, union perf_event *event,
			       struct evlist **pevlist)
{
	int err = perf_event__process_attr(tool, event, pevlist);

	if (!err)
		callchain_param_setup(evlist__combined_sample_type(*pevlist),
				      perf_session__e_machine(evlist__session(*pevlist),
							      /*e_flags=*/NULL));
	return err;
}

/*
 * What the period of an event measures: CPU time for cpu-clock and
 * task-clock, time off CPU for perf record --off-cpu, a count otherwise.
 */
static void pprof__event_unit(struct evsel *evsel, const char **type, const char **unit)
{
	if (evsel__is_offcpu_event(evsel)) {
		*type = "off-cpu";
		*unit = "nanoseconds";
	} else if (evsel__match(evsel, SOFTWARE, SW_CPU_CLOCK) ||
		   evsel__match(evsel, SOFTWARE, SW_TASK_CLOCK)) {
		*type = "cpu";
		*unit = "nanoseconds";
	} else {
		*type = evsel__name(evsel);
		*unit = "count";
	}
}

/*
 * Two value types per event with samples, ("samples", "count") and the unit
 * of its period. pprof selects a value by its type name (-sample_index),
 * so names are made unique: with more than one event the sample count is
 * "<event>-samples", and a unit type two events share is the event name.
 */
static int pprof__value_types(struct pprof_convert *c, struct evlist *evlist, int *columns,
			      struct pprof_value_type *types, size_t *nr_types)
{
	const char **unit_type = calloc(c->nr_evsels, sizeof(*unit_type));
	const char **unit = calloc(c->nr_evsels, sizeof(*unit));
	int nr_events = 0, i, j, err = -ENOMEM;
	struct evsel *evsel;

	if (!unit_type || !unit)
		goto out;

	for (i = 0; i < c->nr_evsels; i++)
		columns[i] = -1;
	evlist__for_each_entry(evlist, evsel) {
		i = evsel->core.idx;
		if (!c->totals[i].nr_samples)
			continue;
		columns[i] = 2 * nr_events++;
		pprof__event_unit(evsel, &unit_type[i], &unit[i]);
	}

	evlist__for_each_entry(evlist, evsel) {
		const char *name = evsel__name(evsel);
		int64_t count_type, period_type;
		char *qualified = NULL;

		i = evsel->core.idx;
		if (columns[i] < 0)
			continue;

		if (nr_events == 1) {
			count_type = pprof__string(c, "samples");
		} else {
			if (asprintf(&qualified, "%s-samples", name) < 0)
				goto out;
			count_type = pprof__string(c, qualified);
			free(qualified);
		}

		period_type = -1;
		for (j = 0; j < c->nr_evsels; j++) {
			if (j != i && columns[j] >= 0 && !strcmp(unit_type[i], unit_type[j]))
				period_type = pprof__string(c, name);
		}
		if (period_type == -1)
			period_type = pprof__string(c, unit_type[i]);

		types[columns[i]].type = count_type;
		types[columns[i]].unit = pprof__string(c, "count");
		types[columns[i] + 1].type = period_type;
		types[columns[i] + 1].unit = pprof__string(c, unit[i]);
		if (count_type < 0 || period_type < 0 || types[columns[i]].unit < 0 ||
		    types[columns[i] + 1].unit < 0)
			goto out;
	}
	*nr_types = 2 * nr_events;
	err = 0;
out:
	free(unit);
	free(unit_type);
	return err;
}

/* libfoo.so, libfoo.so.6, ... */
static bool pprof__is_shared_object(const char *name)
{
	const char *so = strstr(name, ".so");

	for (; so; so = strstr(so + 1, ".so")) {
		if (so[3] == '\0' || so[3] == '.' || so[3] == '_')
			return true;
	}
	return false;
}

/*
 * pprof takes the first mapping for the main binary (its "File:" line), not
 * whatever the first sample hit, often the kernel. Returns the mapping to
 * write first: the user-space executable in the stacks of the most samples;
 * failing that, the shared object in most; failing that, the first one.
 */
static int pprof__main_mapping(struct pprof_convert *c, size_t *main_id)
{
	/* by mapping id: samples, and the last sample that counted */
	u64 *nr_samples = calloc(c->mappings.nr + 1, sizeof(*nr_samples));
	size_t *counted_by = calloc(c->mappings.nr + 1, sizeof(*counted_by));
	size_t i, j, best = 0;
	bool best_is_so = true;

	if (!nr_samples || !counted_by) {
		free(counted_by);
		free(nr_samples);
		return -ENOMEM;
	}

	for (i = 0; i < c->samples.nr; i++) {
		struct pprof_sample *s = c->samples.entries[i];

		for (j = 0; j < s->nr_ids; j++) {
			struct pprof_location *l = c->locations.entries[s->location_ids[j] - 1];
			size_t id = l->mapping_id;

			if (id && counted_by[id] != i + 1) {
				counted_by[id] = i + 1;
				nr_samples[id] += s->nr_samples;
			}
		}
	}

	for (i = 1; i <= c->mappings.nr; i++) {
		struct pprof_mapping *m = c->mappings.entries[i - 1];
		bool is_so = pprof__is_shared_object(dso__long_name(m->dso));

		if (dso__kernel(m->dso) != DSO_SPACE__USER || !nr_samples[i])
			continue;
		if (!best || (best_is_so && !is_so) ||
		    (best_is_so == is_so && nr_samples[i] > nr_samples[best])) {
			best = i;
			best_is_so = is_so;
		}
	}
	*main_id = best ?: 1;

	free(counted_by);
	free(nr_samples);
	return 0;
}

/* the Profile being written: fields are encoded in out, flushed into gz */
struct pprof_writer {
	gzFile		gz;
	struct pb_buf	out;
	struct pb_buf	msg;	/* the message of a field of the Profile */
	struct pb_buf	sub;	/* a message in msg */
	bool		failed;	/* gzwrite failed */
};

static void pprof_writer__flush(struct pprof_writer *w, size_t threshold)
{
	const u8 *data = w->out.data;
	size_t len = w->out.len;

	if (len < threshold || w->failed || w->out.failed)
		return;
	while (len) {
		int written = gzwrite(w->gz, data, min_t(size_t, len, INT_MAX));

		if (written <= 0) {
			w->failed = true;
			return;
		}
		data += written;
		len -= written;
	}
	w->out.len = 0;
}

/* the message in w->msg as field of the Profile */
static void pprof_writer__field(struct pprof_writer *w, unsigned int field)
{
	pb_message(&w->out, field, &w->msg);
	w->msg.len = 0;
	pprof_writer__flush(w, 64 * 1024);
}

static void pprof__write_value_type(struct pprof_writer *w, unsigned int field,
				    const struct pprof_value_type *type)
{
	pb_uint(&w->msg, VALUE_TYPE_TYPE, type->type);
	pb_uint(&w->msg, VALUE_TYPE_UNIT, type->unit);
	pprof_writer__field(w, field);
}

static void pprof__write_sample(struct pprof_convert *c, struct pprof_writer *w,
				struct pprof_sample *s, u64 *values, size_t nr_types,
				const int *columns)
{
	u64 label_num[PPROF_NR_LABELS] = {
		[PPROF_LABEL_PID] = s->pid,
		[PPROF_LABEL_TID] = s->tid,
	};
	int i;

	memset(values, 0, nr_types * sizeof(*values));
	values[columns[s->evsel_idx]] = s->nr_samples;
	values[columns[s->evsel_idx] + 1] = s->period;

	pb_packed(&w->msg, SAMPLE_LOCATION_ID, s->location_ids, s->nr_ids);
	pb_packed(&w->msg, SAMPLE_VALUE, values, nr_types);
	for (i = 0; i < PPROF_NR_LABELS; i++) {
		w->sub.len = 0;
		pb_uint(&w->sub, LABEL_KEY, c->label_keys[i]);
		if (i == PPROF_LABEL_COMM)
			pb_uint(&w->sub, LABEL_STR, s->comm);
		else
			pb_uint(&w->sub, LABEL_NUM, label_num[i]);
		pb_message(&w->msg, SAMPLE_LABEL, &w->sub);
	}
	pprof_writer__field(w, PROFILE_SAMPLE);
}

static void pprof__write_mapping(struct pprof_writer *w, const struct pprof_mapping *m)
{
	pb_uint(&w->msg, MAPPING_ID, m->id);
	pb_uint(&w->msg, MAPPING_MEMORY_START, m->start);
	pb_uint(&w->msg, MAPPING_MEMORY_LIMIT, m->limit);
	/* addresses in a user-space dso are file offsets */
	if (dso__kernel(m->dso) == DSO_SPACE__USER)
		pb_uint(&w->msg, MAPPING_FILE_OFFSET, m->start);
	pb_uint(&w->msg, MAPPING_FILENAME, m->filename);
	pb_uint(&w->msg, MAPPING_BUILD_ID, m->build_id);
	pb_uint(&w->msg, MAPPING_HAS_FUNCTIONS, m->has_functions);
	pprof_writer__field(w, PROFILE_MAPPING);
}

static void pprof__write_location(struct pprof_writer *w, const struct pprof_location *l)
{
	pb_uint(&w->msg, LOCATION_ID, l->id);
	pb_uint(&w->msg, LOCATION_MAPPING_ID, l->mapping_id);
	pb_uint(&w->msg, LOCATION_ADDRESS, l->address);
	/* one line, no inlined functions */
	if (l->function_id) {
		w->sub.len = 0;
		pb_uint(&w->sub, LINE_FUNCTION_ID, l->function_id);
		pb_message(&w->msg, LOCATION_LINE, &w->sub);
	}
	pprof_writer__field(w, PROFILE_LOCATION);
}

static void pprof__write_function(struct pprof_writer *w, const struct pprof_function *f)
{
	pb_uint(&w->msg, FUNCTION_ID, f->id);
	pb_uint(&w->msg, FUNCTION_NAME, f->name);
	pb_uint(&w->msg, FUNCTION_SYSTEM_NAME, f->name);
	pprof_writer__field(w, PROFILE_FUNCTION);
}

/*
 * The wall-clock time the profile starts at and its duration: the
 * recording's. perf record -k (and --bpf-aggr, which sets it) saves the
 * wall-clock time and the sample clock at its start (HEADER_CLOCK_DATA):
 * the profile starts there and ends at the last sample. --bpf-aggr samples
 * have the time of the last sample of their stack, so the first of them is
 * no start. Otherwise the samples span the profile, and it ended when
 * perf.data was last written (a pipe: now).
 */
static void pprof__profile_time(struct pprof_convert *c, struct perf_session *session,
				u64 *time_nanos, u64 *duration_nanos)
{
	struct perf_env *env = perf_session__env(session);
	u64 start = c->first_time;
	struct timespec now;
	struct stat st;

	if (env->clock.enabled && env->clock.clockid_ns &&
	    (!c->first_time || env->clock.clockid_ns <= c->first_time))
		start = env->clock.clockid_ns;
	*duration_nanos = c->last_time > start ? c->last_time - start : 0;

	if (env->clock.enabled) {
		*time_nanos = env->clock.tod_ns - env->clock.clockid_ns + start;
	} else if (!perf_data__is_pipe(session->data) &&
		   !stat(session->data->path, &st)) {
		*time_nanos = st.st_mtim.tv_sec * NSEC_PER_SEC + st.st_mtim.tv_nsec -
			      *duration_nanos;
	} else if (!clock_gettime(CLOCK_REALTIME, &now)) {
		*time_nanos = now.tv_sec * NSEC_PER_SEC + now.tv_nsec - *duration_nanos;
	} else {
		*time_nanos = 0;
	}
}

/* The sampling period of the first event with samples, its type the default */
static void pprof__write_period(struct pprof_writer *w, struct perf_session *session,
				const int *columns, const struct pprof_value_type *types)
{
	struct evsel *evsel;

	evlist__for_each_entry(session->evlist, evsel) {
		struct perf_event_attr *attr = &evsel->core.attr;
		int col = columns[evsel->core.idx];
		u64 period = 0;

		if (col < 0)
			continue;
		pprof__write_value_type(w, PROFILE_PERIOD_TYPE, &types[col + 1]);
		if (!attr->freq)
			period = attr->sample_period;
		else if (attr->sample_freq && (evsel__match(evsel, SOFTWARE, SW_CPU_CLOCK) ||
					       evsel__match(evsel, SOFTWARE, SW_TASK_CLOCK)))
			period = NSEC_PER_SEC / attr->sample_freq;
		pb_uint(&w->out, PROFILE_PERIOD, period);
		pb_uint(&w->out, PROFILE_DEFAULT_SAMPLE_TYPE, types[col + 1].type);
		break;
	}
}

/* Write the profile to fd, which is closed */
static int pprof__write(struct pprof_convert *c, struct perf_session *session, int fd)
{
	struct pprof_writer w = { .gz = NULL, };
	struct pprof_value_type *types = NULL;
	u64 *values = NULL, time_nanos, duration_nanos;
	size_t nr_types = 0, main_id, i;
	int *columns = NULL;
	int err = -ENOMEM;

	if (pprof__grow_totals(c, evlist__core(session->evlist)->nr_entries))
		goto out;
	columns = calloc(c->nr_evsels, sizeof(*columns));
	types = calloc(2 * c->nr_evsels + 1, sizeof(*types));
	values = calloc(2 * c->nr_evsels + 1, sizeof(*values));
	if (!columns || !types || !values)
		goto out;
	if (pprof__value_types(c, session->evlist, columns, types, &nr_types))
		goto out;
	if (pprof__main_mapping(c, &main_id))
		goto out;

	w.gz = gzdopen(fd, "wb");
	if (!w.gz)
		goto out;
	/* gzclose() closes it */
	fd = -1;

	for (i = 0; i < nr_types; i++)
		pprof__write_value_type(&w, PROFILE_SAMPLE_TYPE, &types[i]);
	for (i = 0; i < c->samples.nr; i++)
		pprof__write_sample(c, &w, c->samples.entries[i], values, nr_types, columns);
	if (main_id <= c->mappings.nr)
		pprof__write_mapping(&w, c->mappings.entries[main_id - 1]);
	for (i = 0; i < c->mappings.nr; i++) {
		if (i + 1 != main_id)
			pprof__write_mapping(&w, c->mappings.entries[i]);
	}
	for (i = 0; i < c->locations.nr; i++)
		pprof__write_location(&w, c->locations.entries[i]);
	for (i = 0; i < c->functions.nr; i++)
		pprof__write_function(&w, c->functions.entries[i]);
	/* string 0 is "", written too: the table is read by position */
	for (i = 0; i < c->strings.nr; i++) {
		const char *s = c->strings.entries[i];

		pb_bytes(&w.out, PROFILE_STRING_TABLE, s, strlen(s));
		pprof_writer__flush(&w, 64 * 1024);
	}
	pprof__profile_time(c, session, &time_nanos, &duration_nanos);
	pb_uint(&w.out, PROFILE_TIME_NANOS, time_nanos);
	pb_uint(&w.out, PROFILE_DURATION_NANOS, duration_nanos);
	pprof__write_period(&w, session, columns, types);
	pprof_writer__flush(&w, 0);

	err = w.out.failed || w.msg.failed || w.sub.failed ? -ENOMEM : 0;
	if (gzclose(w.gz) != Z_OK || w.failed)
		err = -EIO;
out:
	if (fd >= 0)
		close(fd);
	pb_buf__exit(&w.sub);
	pb_buf__exit(&w.msg);
	pb_buf__exit(&w.out);
	free(values);
	free(types);
	free(columns);
	return err;
}

static int pprof__init(struct pprof_convert *c)
{
	static const char * const label_names[PPROF_NR_LABELS] = {
		[PPROF_LABEL_PID]  = "pid",
		[PPROF_LABEL_TID]  = "tid",
		[PPROF_LABEL_COMM] = "comm",
	};
	int i;

	pprof_table__init(&c->strings, pprof_string__hash, pprof_string__equal);
	pprof_table__init(&c->mappings, pprof_ptr__hash, pprof_ptr__equal);
	pprof_table__init(&c->locations, pprof_location__hash, pprof_location__equal);
	pprof_table__init(&c->functions, pprof_ptr__hash, pprof_ptr__equal);
	pprof_table__init(&c->samples, pprof_sample__hash, pprof_sample__equal);

	c->max_stack = sysctl__max_stack();

	/* string 0 is the empty string */
	if (pprof__string(c, "") < 0)
		return -ENOMEM;
	for (i = 0; i < PPROF_NR_LABELS; i++) {
		c->label_keys[i] = pprof__string(c, label_names[i]);
		if (c->label_keys[i] < 0)
			return -ENOMEM;
	}
	return 0;
}

static void pprof__exit(struct pprof_convert *c)
{
	pprof_table__exit(&c->samples, free);
	pprof_table__exit(&c->locations, free);
	pprof_table__exit(&c->functions, free);
	pprof_table__exit(&c->mappings, pprof_mapping__delete);
	pprof_table__exit(&c->strings, free);
	zfree(&c->totals);
	zfree(&c->ids);
}

int pprof_convert__perf2pprof(const char *input, const char *output_name,
			      struct perf_data_convert_opts *opts)
{
	struct pprof_convert c = {};
	struct perf_data data = {
		.mode  = PERF_DATA_MODE_READ,
		.path  = input,
		.force = opts->force,
	};
	struct perf_session *session;
	struct stat st;
	int fd, err = -1;

	if (opts->all || opts->tod || opts->time_str) {
		pr_err("--all, --tod and --time are not supported for pprof output\n");
		return -1;
	}

	perf_tool__init(&c.tool, /*ordered_events=*/true);
	c.tool.sample	      = pprof__process_sample;
	c.tool.mmap	      = perf_event__process_mmap;
	c.tool.mmap2	      = perf_event__process_mmap2;
	c.tool.comm	      = perf_event__process_comm;
	c.tool.namespaces     = perf_event__process_namespaces;
	c.tool.cgroup	      = perf_event__process_cgroup;
	c.tool.exit	      = perf_event__process_exit;
	c.tool.fork	      = perf_event__process_fork;
	c.tool.lost	      = perf_event__process_lost;
	c.tool.attr	      = pprof__process_attr;
	c.tool.feature	      = perf_event__process_feature;
#ifdef HAVE_LIBTRACEEVENT
	c.tool.tracing_data   = perf_event__process_tracing_data;
#endif
	c.tool.ksymbol	      = perf_event__process_ksymbol;
	c.tool.build_id	      = perf_event__process_build_id;
	c.tool.id_index	      = perf_event__process_id_index;
	c.tool.event_update   = perf_event__process_event_update;
	c.tool.ordering_requires_timestamps = true;

	/* perf's error says why: no such file, zero-sized, not owned by us */
	session = perf_session__new(&data, &c.tool);
	if (IS_ERR(session))
		return -1;
	c.session = session;

	/* one location per address: inlined functions are not split out */
	symbol_conf.inline_name = false;
	symbol_conf.use_callchain = true;
	if (symbol__init(perf_session__env(session)) < 0) {
		pr_err("--to-pprof: symbol init failed\n");
		goto out_session;
	}
	callchain_param_setup(evlist__combined_sample_type(session->evlist),
			      perf_session__e_machine(session, /*e_flags=*/NULL));
	/* pprof wants the leaf first, whatever call-graph.order of perfconfig says */
	callchain_param.order = ORDER_CALLEE;

	if (pprof__init(&c)) {
		pr_err("--to-pprof: not enough memory\n");
		goto out_exit;
	}

	if (perf_session__process_events(session)) {
		pr_err("--to-pprof: failed to process %s\n", data.path);
		goto out_exit;
	}

	fd = open(output_name, O_CREAT | O_WRONLY | (opts->force ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			pr_err("%s exists, use --force to overwrite it\n", output_name);
		else
			pr_err("cannot open %s: %m\n", output_name);
		goto out_exit;
	}
	if (pprof__write(&c, session, fd)) {
		pr_err("--to-pprof: failed to write %s\n", output_name);
		unlink(output_name);
		goto out_exit;
	}

	fprintf(stderr, "[ perf data convert: Converted '%s' into pprof profile '%s' ]\n",
		data.path, output_name);
	/* --bpf-aggr: a record stands for many samples */
	fprintf(stderr, "[ perf data convert: Wrote %.3f MB (%" PRIu64 " samples",
		stat(output_name, &st) ? 0.0 : st.st_size / 1024.0 / 1024.0, c.nr_samples);
	if (c.nr_records != c.nr_samples)
		fprintf(stderr, " in %" PRIu64 " records", c.nr_records);
	fprintf(stderr, " as %zu pprof samples) ]\n", c.samples.nr);
	if (c.nr_skipped)
		pr_warning("--to-pprof: %" PRIu64 " samples skipped: no thread or call chain\n",
			   c.nr_skipped);
	err = 0;
out_exit:
	pprof__exit(&c);
	symbol__exit();
out_session:
	perf_session__delete(session);
	return err;
}
