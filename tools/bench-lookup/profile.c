/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The profile (-P): where an engine's lookups go. One pass over every key,
 * counted by the CPU (perf_event_open on this thread) and, under valgrind,
 * dumped by callgrind alone (its client requests are no-ops otherwise);
 * then the engine's own count of its walks, where it has one.
 */
#include "bench.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_common.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(what) ((void)(what))
#endif

#define CACHE_EVENT(cache, result)                                                         \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_READ << 8 |                   \
	 PERF_COUNT_HW_CACHE_RESULT_##result << 16)

/* What the CPU counts a key; the first leads the group. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"L1d misses", PERF_TYPE_HW_CACHE, CACHE_EVENT(L1D, MISS)},
	{"LLC misses", PERF_TYPE_HW_CACHE, CACHE_EVENT(LL, MISS)},
	{"dTLB misses", PERF_TYPE_HW_CACHE, CACHE_EVENT(DTLB, MISS)},
	{"branch misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
};
#define NB_EVENTS RTE_DIM(events)

struct counters {
	int fd[NB_EVENTS]; /* -1: not counted here */
	int error;         /* the leader's errno, if it could not open */
};

static int
open_event(unsigned int i, int group)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = events[i].type,
		.config = events[i].config,
		.disabled = group < 0,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

static void
counters_open(struct counters *c)
{
	for (unsigned int i = 0; i < NB_EVENTS; i++)
		c->fd[i] = -1;
	c->fd[0] = open_event(0, -1);
	c->error = c->fd[0] < 0 ? errno : 0;
	for (unsigned int i = 1; i < NB_EVENTS && c->fd[0] >= 0; i++)
		c->fd[i] = open_event(i, c->fd[0]);
}

static void
counters_close(struct counters *c)
{
	for (unsigned int i = 0; i < NB_EVENTS; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
}

/* Every key once, in calls as timed: the pass that is counted. */
static void
every_key(struct engine *e)
{
	const struct bench_set *s = e->set;
	uint32_t rule[BENCH_CALL_MAX];

	for (size_t first = 0; first < s->nb_keys; first += s->call)
		e->ops->lookup(e, first, (uint16_t)RTE_MIN((size_t)s->call, s->nb_keys - first),
			       rule);
}

static void
counted_pass(struct engine *e)
{
	const struct bench_set *s = e->set;
	double keys = (double)s->nb_keys;
	struct counters c;
	char dump[2 * BENCH_NAME_LEN];

	/* The keys and the engine's lines warm, as in the timed rounds. */
	every_key(e);
	counters_open(&c);
	snprintf(dump, sizeof(dump), "%s %s %zu keys", s->name, e->ops->name, s->nb_keys);
	if (c.fd[0] >= 0) {
		ioctl(c.fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		ioctl(c.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	/* Under valgrind (--instr-atstart=no --collect-atstart=no) only this pass is
	 * collected, and dumped on its own. */
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_TOGGLE_COLLECT;
	every_key(e);
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT(dump);
	CALLGRIND_STOP_INSTRUMENTATION;
	if (RUNNING_ON_VALGRIND) {
		printf("  %s: the pass over every key is callgrind's dump \"%s\"\n", e->ops->name,
		       dump);
		counters_close(&c);
		return;
	}
	if (c.fd[0] < 0) {
		printf("  %s: no CPU counters here (perf_event_open: %s); tools/bench-lookup.sh -P "
		       "gives callgrind's simulated ones\n", e->ops->name, strerror(c.error));
		return;
	}
	ioctl(c.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	printf("  %s: a key, counted by the CPU over %zu keys:", e->ops->name, s->nb_keys);
	for (unsigned int i = 0; i < NB_EVENTS; i++) {
		uint64_t v;

		if (c.fd[i] >= 0 && read(c.fd[i], &v, sizeof(v)) == (ssize_t)sizeof(v))
			printf(" %s %.2f%s", events[i].name, (double)v / keys,
			       i + 1 < NB_EVENTS ? "," : "\n");
		else
			printf(" %s n/a%s", events[i].name, i + 1 < NB_EVENTS ? "," : "\n");
	}
	counters_close(&c);
}

static void
walked(struct engine *e)
{
	struct sp_lookup_walk w = {0};
	double k;
	int rc = e->ops->walk(e, &w);

	if (rc != 0) {
		printf("  %s: walks not counted: %s\n", e->ops->name, strerror(-rc));
		return;
	}
	k = (double)RTE_MAX(w.keys, (uint64_t)1);
	printf("  %s: a key's walk: %.2f trees (%.2f scanned), %.2f levels, %.2f leaf entries "
	       "compared over %.2f leaf lines, %.2f odd filters compared, %.2f changes beside; "
	       "%.0f bytes of nodes and leaves\n",
	       e->ops->name, (double)w.trees / k, (double)w.trees_read / k, (double)w.levels / k,
	       (double)w.entries / k, (double)w.leaf_lines / k, (double)w.odd / k,
	       (double)w.changes / k,
	       (double)(w.levels + w.leaf_lines) * RTE_CACHE_LINE_SIZE / k);
}

void
profile_engine(struct engine *e)
{
	counted_pass(e);
	if (e->ops->walk != NULL)
		walked(e);
}
