/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measurements: results checked key by key, lookups timed on one core,
 * and lookups on a second thread while this one writes.
 */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "common/rnd.h"

#define READER_THREAD 0    /* the reader's qsbr thread id */
#define MAX_SHOWN 5        /* mismatches printed */
#define LOOKUP_ROUNDS 9    /* measure_lookups() gives their median: short rounds, so a noisy spell of the machine hits both engines alike */
#define UPDATE_ROUNDS 3    /* idle and writing periods of measure_updates(), alternated */
#define OTHERS_WARNING 0.9 /* a round in which the thread ran less than this is reported */
#define CALL_SAMPLES (1u << 20) /* calls timed one by one, per engine (the first so many) */

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
	/* Deterministic, so two runs draw the same keys and writes. */
	static uint64_t state = SP_RND_SEED;

	return sp_rnd_next(&state);
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

/* The call starting at key *next, which moves on and wraps around the set's keys. */
static uint16_t
next_call(const struct bench_set *s, size_t *next)
{
	size_t first = *next, end = s->nb_keys;
	uint16_t n = (uint16_t)RTE_MIN((size_t)s->call, end - first);

	*next = first + n == end ? 0 : first + n;
	return n;
}

size_t
measure_verify(struct engine *e)
{
	const struct bench_set *s = e->set;
	uint32_t rule[BENCH_CALL_MAX];
	size_t first, bad = 0, next = 0;
	uint16_t i, k;

	do {
		first = next;
		k = next_call(s, &next);
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

/* CPU time of this thread: time it did not run (other work on its CPU) does not count. */
static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Calls timed one by one, in TSC cycles. */
struct call_times {
	uint32_t *cycles;
	size_t n;
};

/*
 * Lookups from key *next on for the given wall time; ns per lookup in CPU
 * time. Each call's time goes to bt while it has room.
 */
static double
lookup_round(struct engine *e, double seconds, size_t *next, struct call_times *bt)
{
	uint32_t rule[BENCH_CALL_MAX];
	uint64_t stop, lookups = 0, t0, t1 = rte_rdtsc();
	double cpu = cpu_s(), wall = now_s();
	size_t first;
	uint16_t n;

	stop = t1 + (uint64_t)(seconds * (double)rte_get_tsc_hz());
	do {
		first = *next;
		n = next_call(e->set, next);
		t0 = t1;
		e->ops->lookup(e, first, n, rule);
		t1 = rte_rdtsc();
		if (bt->n < CALL_SAMPLES)
			bt->cycles[bt->n++] = (uint32_t)RTE_MIN(t1 - t0, (uint64_t)UINT32_MAX);
		lookups += n;
	} while (t1 < stop);
	cpu = cpu_s() - cpu;
	wall = now_s() - wall;
	if (cpu < OTHERS_WARNING * wall)
		printf("  %s: ran %.0f%% of a %.2f s round: other work shares this CPU\n",
		       e->ops->name, 100 * cpu / wall, wall);
	return cpu * 1e9 / (double)lookups;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The 99th percentile of the calls' times in ns (sorts them); 0 if none. */
static double
p99_ns(struct call_times *bt)
{
	if (bt->n == 0)
		return 0;
	qsort(bt->cycles, bt->n, sizeof(bt->cycles[0]), cmp_u32);
	return (double)bt->cycles[bt->n * 99 / 100] * 1e9 / (double)rte_get_tsc_hz();
}

void
measure_lookups(struct engine *const *e, size_t nb_engines, double seconds, double *ns_per_lookup,
		double *p99_burst_ns)
{
	double ns[MAX_ENGINES][LOOKUP_ROUNDS];
	struct call_times bt[MAX_ENGINES] = {0};
	size_t next[MAX_ENGINES] = {0}, j;
	unsigned int i;

	for (j = 0; j < nb_engines; j++)
		bt[j].cycles = malloc(CALL_SAMPLES * sizeof(bt[j].cycles[0]));
	for (i = 0; i < LOOKUP_ROUNDS; i++)
		for (j = 0; j < nb_engines; j++) {
			struct call_times none = {.n = CALL_SAMPLES}; /* no room: none timed */

			ns[j][i] = lookup_round(e[j], seconds / LOOKUP_ROUNDS, &next[j],
						bt[j].cycles != NULL ? &bt[j] : &none);
		}
	for (j = 0; j < nb_engines; j++) {
		qsort(ns[j], LOOKUP_ROUNDS, sizeof(ns[j][0]), cmp_double);
		ns_per_lookup[j] = ns[j][LOOKUP_ROUNDS / 2];
		p99_burst_ns[j] = p99_ns(&bt[j]);
		free(bt[j].cycles);
	}
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
	uint32_t rule[BENCH_CALL_MAX];
	size_t first, next = 0;
	uint64_t lookups = 0;
	uint16_t n;

	rte_rcu_qsbr_thread_register(e->qsbr, READER_THREAD);
	rte_rcu_qsbr_thread_online(e->qsbr, READER_THREAD);
	__atomic_store_n(&r->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		first = next;
		n = next_call(e->set, &next);
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
 * The writes of measure_updates(), a cycle of four that goes on across its
 * rounds, and how long each took (the management thread waits that long).
 */
struct writer {
	long writes;
	uint32_t pos;
	double *us;
	size_t room;
	double held_max_us;
	double rate; /* writes a second at most (0: no pacing) */
	uint32_t *targets; /* the positions written (NULL: any) */
	uint32_t nb_targets;
};

static const struct bench_set *by_width; /* cmp_width()'s: qsort has no context */

/* Fewer mask bits first: the widest filters. */
static int
cmp_width(const void *a, const void *b)
{
	const struct sp_key *ma = &by_width->x.filters[*(const uint32_t *)a].mask;
	const struct sp_key *mb = &by_width->x.filters[*(const uint32_t *)b].mask;
	int na = 0, nb = 0;

	for (unsigned int i = 0; i < SP_KEY_BYTES; i++) {
		na += __builtin_popcount(ma->b[i]);
		nb += __builtin_popcount(mb->b[i]);
	}
	return na - nb;
}

/*
 * The widest tenth of the first tenth of the n filters (at least one) as w's
 * targets: wide and early, so each stale one overlaps most of the filters
 * after it (the widest of all, the sets' catch-alls, come last and promote
 * nothing). 0, or -1 after a message.
 */
static int
widest(const struct bench_set *s, uint32_t n, struct writer *w)
{
	uint32_t early = RTE_MAX(n / 10, 1u);

	w->targets = malloc((size_t)early * sizeof(*w->targets));
	if (w->targets == NULL) {
		fprintf(stderr, "sp-bench-lookup: no memory for %u positions\n", early);
		return -1;
	}
	for (uint32_t i = 0; i < early; i++)
		w->targets[i] = i;
	by_width = s;
	qsort(w->targets, early, sizeof(*w->targets), cmp_width);
	w->nb_targets = RTE_MAX(early / 10, 1u);
	return 0;
}

/* A position to write: any, or one of the targets. */
static uint32_t
next_pos(const struct writer *w, uint32_t n)
{
	if (w->targets != NULL)
		return w->targets[bench_rand() % w->nb_targets];
	return (uint32_t)(bench_rand() % n);
}

/* Sleep until t (CLOCK_MONOTONIC seconds). */
static void
sleep_until(double t)
{
	struct timespec ts = {.tv_sec = (time_t)t, .tv_nsec = (long)((t - (double)(time_t)t) * 1e9)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Note a write's time; 0, or -1 after a message. */
static int
note_write(struct writer *w, double us)
{
	if ((size_t)w->writes == w->room) {
		size_t room = w->room != 0 ? 2 * w->room : 65536;
		double *more = realloc(w->us, room * sizeof(*more));

		if (more == NULL) {
			fprintf(stderr, "sp-bench-lookup: no memory for %zu write times\n", room);
			return -1;
		}
		w->us = more;
		w->room = room;
	}
	w->us[w->writes++] = us;
	return 0;
}

/*
 * Writes until the time is up, in turns: a random position gets another
 * random filter of the set and then its own back; a random position is
 * emptied and then written again. The table never strays more than one
 * write from the set, so the reader's work stays what it was when idle.
 * 0, or -1 after a message.
 */
static int
write_for(struct engine *e, struct writer *w, double seconds)
{
	uint32_t n = e->entries;
	double start = now_s(), stop = start + seconds, t0;
	long first = w->writes;
	int rc;

	do {
		/* Paced by the clock: a write late for its slot goes at once. */
		if (w->rate > 0)
			sleep_until(start + (double)(w->writes - first) / w->rate);
		t0 = now_s();
		switch (w->writes % 4) {
		case 0:
			w->pos = next_pos(w, n);
			rc = e->ops->write(e, w->pos, (uint32_t)(bench_rand() % n));
			break;
		case 2:
			w->pos = next_pos(w, n);
			rc = e->ops->erase(e, w->pos);
			break;
		default: /* 1 and 3: the position's own filter */
			rc = e->ops->write(e, w->pos, w->pos);
			break;
		}
		if (rc != 0) {
			fprintf(stderr, "sp-bench-lookup: %s: write %ld: %s\n", e->ops->name,
				w->writes + 1, strerror(-rc));
			return -1;
		}
		if (note_write(w, (now_s() - t0) * 1e6) != 0)
			return -1;
		w->held_max_us = RTE_MAX(w->held_max_us, e->held_us);
	} while (now_s() < stop);
	return 0;
}

/* Time and reader lookups spent in one kind of period, over the rounds. */
struct period {
	double s;
	uint64_t lookups;
	double gap_max_us; /* the idle periods': bench_result.gap_max_us */
};

/* Read the clock for seconds; the longest between two reads into *gap_max_us. */
static void
watch_gaps(double seconds, double *gap_max_us)
{
	double last = now_s(), stop = last + seconds, t;

	for (t = last; t < stop; last = t) {
		t = now_s();
		*gap_max_us = RTE_MAX(*gap_max_us, (t - last) * 1e6);
	}
}

/* Run fn (NULL: watch the machine's gaps) for seconds and add what the reader did meanwhile to p. */
static int
timed(struct period *p, struct reader *r, double seconds,
      int (*fn)(struct engine *, struct writer *, double), struct writer *w)
{
	uint64_t l0 = reader_lookups(r);
	double t0 = now_s();
	int rc = 0;

	if (fn != NULL)
		rc = fn(r->e, w, seconds);
	else
		watch_gaps(seconds, &p->gap_max_us);
	p->s += now_s() - t0;
	p->lookups += reader_lookups(r) - l0;
	return rc;
}

int
measure_updates(struct engine *e, double seconds, const struct update_opts *how,
		struct bench_result *res)
{
	struct reader r = {.e = e};
	struct period idle = {0}, busy = {0};
	struct writer w = {.rate = how->rate};
	double part = seconds / UPDATE_ROUNDS;
	pthread_t th;
	int rc = 0, i;

	if (how->wide && widest(e->set, e->entries, &w) != 0)
		return -1;
	if (start_reader(&r, &th) != 0) {
		free(w.targets);
		return -1;
	}
	/* Alternated, so that a drift of the machine's speed touches both alike. */
	for (i = 0; i < UPDATE_ROUNDS && rc == 0; i++) {
		timed(&idle, &r, part, NULL, NULL);
		rc = timed(&busy, &r, part, write_for, &w);
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	free(w.targets);
	if (rc != 0 || w.writes == 0) {
		free(w.us);
		return -1;
	}
	qsort(w.us, (size_t)w.writes, sizeof(w.us[0]), cmp_double);
	res->updated = true;
	res->writes_per_s = (double)w.writes / busy.s;
	res->write_p99_us = w.us[(size_t)w.writes * 99 / 100];
	res->write_max_us = w.us[w.writes - 1];
	res->held_max_us = w.held_max_us;
	res->gap_max_us = idle.gap_max_us;
	free(w.us);
	res->idle_lookups_per_s = (double)idle.lookups / idle.s;
	res->busy_lookups_per_s = (double)busy.lookups / busy.s;
	return 0;
}
