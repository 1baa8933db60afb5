/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measurements: results checked key by key, lookups timed on one core,
 * and lookups on a second thread while this one writes.
 */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#define READER_THREAD 0 /* the reader's qsbr thread id */
#define MAX_SHOWN 5     /* mismatches printed */

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t
bench_rand(void)
{
	/* xorshift64*: deterministic, so two runs draw the same keys and writes. */
	static uint64_t state = 0x9e3779b97f4a7c15ull;

	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dull;
}

size_t
heap_allocated(void)
{
	struct rte_malloc_socket_stats st;
	unsigned int i;
	size_t total = 0;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			total += st.heap_allocsz_bytes;
	return total;
}

/* The burst starting at key *next, which moves on and wraps around the keys. */
static uint16_t
next_burst(size_t *next, size_t end)
{
	size_t first = *next;
	uint16_t n = (uint16_t)RTE_MIN((size_t)BENCH_BURST, end - first);

	*next = first + n == end ? 0 : first + n;
	return n;
}

size_t
measure_verify(struct engine *e, size_t n)
{
	const struct bench_set *s = e->set;
	uint32_t rule[BENCH_BURST];
	size_t first, bad = 0, next = 0;
	uint16_t i, k;

	do {
		first = next;
		k = next_burst(&next, n);
		e->ops->lookup(e, first, k, rule);
		for (i = 0; i < k; i++) {
			if (rule[i] == s->expect[first + i])
				continue;
			if (bad++ < MAX_SHOWN)
				printf("  %s: key %zu: rule %d, want rule %d (rules counted from 1, "
				       "0: none)\n",
				       e->ops->name, first + i, (int)(rule[i] + 1),
				       (int)(s->expect[first + i] + 1));
		}
	} while (next != 0);
	return bad;
}

double
measure_lookups(struct engine *e, double seconds)
{
	const struct bench_set *s = e->set;
	uint32_t rule[BENCH_BURST];
	uint64_t hz = rte_get_tsc_hz(), start, end, stop, lookups = 0;
	size_t first, next = 0;
	uint16_t n;

	start = rte_get_tsc_cycles();
	stop = start + (uint64_t)(seconds * (double)hz);
	do {
		first = next;
		n = next_burst(&next, s->nb_keys);
		e->ops->lookup(e, first, n, rule);
		lookups += n;
		end = rte_get_tsc_cycles();
	} while (end < stop);
	return (double)(end - start) * 1e9 / (double)hz / (double)lookups;
}

/* ---- lookups under writes ---- */

struct reader {
	struct engine *e;
	uint64_t lookups; /* written by the reader only */
	bool started, stop;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	struct engine *e = r->e;
	uint32_t rule[BENCH_BURST];
	size_t first, next = 0;
	uint64_t lookups = 0;
	uint16_t n;

	rte_rcu_qsbr_thread_register(e->qsbr, READER_THREAD);
	rte_rcu_qsbr_thread_online(e->qsbr, READER_THREAD);
	__atomic_store_n(&r->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		first = next;
		n = next_burst(&next, e->set->nb_keys);
		e->ops->lookup(e, first, n, rule);
		lookups += n;
		__atomic_store_n(&r->lookups, lookups, __ATOMIC_RELAXED);
		rte_rcu_qsbr_quiescent(e->qsbr, READER_THREAD);
	}
	rte_rcu_qsbr_thread_offline(e->qsbr, READER_THREAD);
	rte_rcu_qsbr_thread_unregister(e->qsbr, READER_THREAD);
	return NULL;
}

/* The reader on the CPU of the next lcore: the main lcore's is this thread's. */
static int
start_reader(struct reader *r, pthread_t *th)
{
	unsigned int lcore = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	rte_cpuset_t cpus;
	int rc;

	rc = pthread_create(th, NULL, reader_main, r);
	if (rc != 0) {
		fprintf(stderr, "sp-bench-lookup: reader thread: %s\n", strerror(rc));
		return -1;
	}
	if (lcore < RTE_MAX_LCORE) {
		cpus = rte_lcore_cpuset(lcore);
		pthread_setaffinity_np(*th, sizeof(cpus), &cpus);
	} else {
		printf("  only one lcore: the reader shares this thread's CPU\n");
	}
	while (!__atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

static uint64_t
reader_lookups(struct reader *r)
{
	return __atomic_load_n(&r->lookups, __ATOMIC_RELAXED);
}

/*
 * Writes until the time is up, in turns: a random position gets another
 * random filter of the set and then its own back; a random position is
 * emptied and then written again. The table never strays more than one
 * write from the set, so the reader's work stays what it was when idle.
 * Returns how many writes, or -1 after a message.
 */
static long
write_for(struct engine *e, double seconds)
{
	uint32_t n = e->entries, pos = 0;
	double stop = now_s() + seconds;
	long writes = 0;
	int rc = 0;

	do {
		switch (writes % 4) {
		case 0:
			pos = (uint32_t)(bench_rand() % n);
			rc = e->ops->write(e, pos, (uint32_t)(bench_rand() % n));
			break;
		case 2:
			pos = (uint32_t)(bench_rand() % n);
			rc = e->ops->erase(e, pos);
			break;
		default: /* 1 and 3: the position's own filter */
			rc = e->ops->write(e, pos, pos);
			break;
		}
		if (rc != 0) {
			fprintf(stderr, "sp-bench-lookup: %s: write %ld: %s\n", e->ops->name,
				writes + 1, strerror(-rc));
			return -1;
		}
		writes++;
	} while (now_s() < stop);
	return writes;
}

int
measure_updates(struct engine *e, double seconds, struct bench_result *res)
{
	struct reader r = {.e = e};
	uint64_t l0, l1, l2;
	double t0, t1, t2;
	pthread_t th;
	long writes;

	if (start_reader(&r, &th) != 0)
		return -1;
	t0 = now_s();
	l0 = reader_lookups(&r);
	usleep((useconds_t)(seconds * 1e6));
	t1 = now_s();
	l1 = reader_lookups(&r);
	writes = write_for(e, seconds);
	t2 = now_s();
	l2 = reader_lookups(&r);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (writes < 0)
		return -1;
	res->updated = true;
	res->writes_per_s = (double)writes / (t2 - t1);
	res->idle_lookups_per_s = (double)(l1 - l0) / (t1 - t0);
	res->busy_lookups_per_s = (double)(l2 - l1) / (t2 - t1);
	return 0;
}
