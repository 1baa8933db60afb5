/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lookup engine against a brute-force reference while updates are
 * published, on one slice and on 64 taking turns. A writer applies random inserts, replacements and deletes
 * (random masks of every shape) and bumps a version after each; a lookup
 * thread looks up random, matching and near-miss keys in bursts and logs
 * what it saw with the versions read before and after the burst. Afterwards
 * each logged answer must be the reference's answer at some version the
 * burst could have seen: never a half-written filter, never a freed one,
 * never a state that did not exist.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_vect.h>

#include "sp_test.h"
#include "lookup/lookup.h"

#define QUOTA 512
#define NB_OPS 20000
#define MAX_KEYS 1024
#define BURST 32
#define MAX_LOG (1u << 24) /* lookups logged; the reader stops when full */
#define STATIC_KEYS (1u << 20)
#define MAX_SLICES 64
#define MAX_RUN 96 /* writes to one slice in a row: enough to make it rebuild */

struct op {
	uint16_t slice;
	uint32_t pos;
	bool del;
	bool anchored;       /* the filter replaced and this one both match anchor */
	struct sp_key anchor;
	struct sp_filter f;  /* f.result.endpoint: a tag unique to this write */
};

struct answer {
	uint32_t pos; /* SP_LOOKUP_MISS or position */
	uint16_t tag;
};

/* A key's reference answers: the versions at which it changed, ascending. */
struct history {
	uint32_t n, room;
	struct change {
		uint32_t v;
		struct answer a;
	} *c;
};

struct seen {
	uint32_t v0, v1; /* versions read before and after the burst */
	uint16_t key;
	struct answer got;
};

struct race {
	struct sp_lookup *t;
	struct rte_rcu_qsbr *qsbr;
	const struct op *ops;
	unsigned int nb_slices, nb_keys;
	struct sp_key keys[MAX_KEYS]; /* key k belongs to slice key_slice(r, k) */
	uint32_t version; /* ops fully applied */
	bool started;     /* the reader is looking up: the writer may begin */
	bool stop;
	struct seen *log;
	uint32_t nb_log;
};

/* Slices are numbered from 1: slice 0 stays unused, so that a mix-up shows. */
static uint16_t
key_slice(unsigned int nb_slices, unsigned int k)
{
	return (uint16_t)(1 + k % nb_slices);
}

static unsigned int
popcount(const struct sp_key *m)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < SP_KEY_BYTES; i++)
		n += (unsigned int)__builtin_popcount(m->b[i]);
	return n;
}

/*
 * Prefixes, whole bytes, sparse bits, dense bits, a prefix in each field
 * (addresses and port ranges as the tree takes them) and, rarely, a
 * catch-all (a common one would answer every key).
 */
static void
rnd_mask(struct sp_key *m)
{
	static const uint8_t field_end[] = {4, 8, 10, 12, 13, 14};
	unsigned int i, len, f, start;

	memset(m, 0, sizeof(*m));
	if (sp_test_rnd() % 1024 == 0)
		return;
	switch (sp_test_rnd() % 6) {
	case 0:
		len = 1 + (unsigned int)(sp_test_rnd() % 112);
		for (i = 0; i < len; i++)
			m->b[i / 8] |= (uint8_t)(0x80 >> (i % 8));
		break;
	case 1:
		for (i = 0; i < SP_KEY_BYTES; i++)
			m->b[i] = sp_test_rnd() % 3 == 0 ? 0xff : 0;
		break;
	case 2:
		for (i = 0; i < SP_KEY_BYTES; i++)
			m->b[i] = (uint8_t)(sp_test_rnd() & sp_test_rnd() & sp_test_rnd());
		break;
	case 3:
		for (i = 0; i < SP_KEY_BYTES; i++)
			m->b[i] = (uint8_t)sp_test_rnd();
		break;
	case 4:
		for (f = 0, start = 0; f < RTE_DIM(field_end); start = field_end[f++]) {
			len = (unsigned int)(sp_test_rnd() % ((field_end[f] - start) * 8 + 1));
			for (i = 0; i < len; i++)
				m->b[start + i / 8] |= (uint8_t)(0x80 >> (i % 8));
		}
		break;
	default:
		break;
	}
	/* At least 16 cared-for bits, so that random keys mostly miss. */
	if (popcount(m) < 16) {
		m->b[sp_test_rnd() % SP_KEY_BYTES] = 0xff;
		m->b[sp_test_rnd() % SP_KEY_BYTES] |= 0xff;
		m->b[sp_test_rnd() % SP_KEY_BYTES] |= 0xf0;
	}
}

static bool
matches(const struct sp_filter *f, const struct sp_key *k)
{
	for (unsigned int i = 0; i < SP_KEY_BYTES; i++)
		if ((k->b[i] & f->mask.b[i]) != (f->key.b[i] & f->mask.b[i]))
			return false;
	return true;
}

/* A key f matches, with random bits where f does not care. */
static void
key_in(const struct sp_filter *f, struct sp_key *k)
{
	for (unsigned int b = 0; b < SP_KEY_BYTES; b++)
		k->b[b] = (f->key.b[b] & f->mask.b[b]) | ((uint8_t)sp_test_rnd() & ~f->mask.b[b]);
}

/*
 * Random writes and deletes, in runs of up to MAX_RUN on one slice (so that
 * slices overflow what fits beside their base and get rebuilt while the
 * others are looked up); a third of the replacements are anchored: the new
 * filter has another mask but matches a key the old one matched, so for
 * that key the right answer is this position throughout, and any torn or
 * half-published entry shows as another answer.
 */
static void
make_ops(struct op *ops, unsigned int nb_slices)
{
	static const struct sp_filter *cur[MAX_SLICES + 1][QUOTA];
	uint16_t slice = 1;
	unsigned int run = 0;

	memset(cur, 0, sizeof(cur));
	for (uint32_t i = 0; i < NB_OPS; i++, run--) {
		struct op *o = &ops[i];

		if (run == 0) {
			slice = key_slice(nb_slices, (unsigned int)sp_test_rnd());
			run = 1 + (unsigned int)(sp_test_rnd() % MAX_RUN);
		}
		o->slice = slice;
		o->pos = (uint32_t)(sp_test_rnd() % QUOTA);
		o->del = sp_test_rnd() % 4 == 0;
		rnd_mask(&o->f.mask);
		for (unsigned int b = 0; b < SP_KEY_BYTES; b++)
			o->f.key.b[b] = (uint8_t)sp_test_rnd(); /* bits outside the mask too */
		if (!o->del && cur[slice][o->pos] != NULL && sp_test_rnd() % 3 == 0) {
			key_in(cur[slice][o->pos], &o->anchor);
			o->f.key = o->anchor;
			o->anchored = true;
		}
		o->f.result.endpoint = (uint16_t)(i + 1);
		o->f.result.queue = (uint16_t)~o->f.result.endpoint; /* torn results show */
		cur[slice][o->pos] = o->del ? NULL : &o->f;
	}
}

/* An op on slice, at or after a random one (NULL if none). */
static const struct op *
op_of(const struct op *ops, unsigned int nb_ops, uint16_t slice)
{
	unsigned int first = (unsigned int)(sp_test_rnd() % nb_ops);

	for (unsigned int i = 0; i < nb_ops; i++)
		if (ops[(first + i) % nb_ops].slice == slice)
			return &ops[(first + i) % nb_ops];
	return NULL;
}

/*
 * Random keys, keys some write of the key's slice matches, near misses (one
 * bit off) and anchors.
 */
static void
make_keys(struct sp_key *keys, unsigned int n, const struct op *ops, unsigned int nb_ops,
	  unsigned int nb_slices)
{
	for (unsigned int i = 0; i < n; i++) {
		uint16_t slice = key_slice(nb_slices, i);
		const struct op *o = op_of(ops, nb_ops, slice);
		struct sp_key *k = &keys[i];
		unsigned int bit, kind = o != NULL ? (i / nb_slices) % 4 : 0;

		switch (kind) {
		case 0:
			for (unsigned int b = 0; b < SP_KEY_BYTES; b++)
				k->b[b] = (uint8_t)sp_test_rnd();
			break;
		case 1:
			key_in(&o->f, k);
			break;
		case 2:
			key_in(&o->f, k);
			bit = (unsigned int)(sp_test_rnd() % (SP_KEY_BYTES * 8));
			k->b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
			break;
		default:
			for (unsigned int tries = 0; !o->anchored && tries < 64; tries++)
				o = op_of(ops, nb_ops, slice);
			if (o->anchored)
				*k = o->anchor;
			else
				key_in(&o->f, k);
			break;
		}
	}
}

static void
history_add(struct history *h, uint32_t v, struct answer a)
{
	if (h->n == h->room) {
		h->room = h->room != 0 ? 2 * h->room : 16;
		h->c = realloc(h->c, h->room * sizeof(h->c[0]));
		assert_non_null(h->c);
	}
	h->c[h->n++] = (struct change){v, a};
}

/* The reference's answer for a key after v ops. */
static struct answer
answer_at(const struct history *h, uint32_t v)
{
	uint32_t lo = 0, hi = h->n; /* c[0].v == 0 <= v: the answer is in c[lo, hi) */

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (h->c[mid].v <= v)
			lo = mid;
		else
			hi = mid;
	}
	return h->c[lo].a;
}

/* Each key's history of reference answers over the ops (a brute-force table per slice). */
static struct history *
reference_answers(const struct op *ops, const struct race *r)
{
	static const struct sp_filter *table[MAX_SLICES + 1][QUOTA];
	struct history *h = calloc(r->nb_keys, sizeof(*h));

	assert_non_null(h);
	memset(table, 0, sizeof(table));
	for (unsigned int k = 0; k < r->nb_keys; k++)
		history_add(&h[k], 0, (struct answer){SP_LOOKUP_MISS, 0});
	for (uint32_t v = 0; v < NB_OPS; v++) {
		const struct op *o = &ops[v];
		const struct sp_filter **tab = table[o->slice];

		tab[o->pos] = o->del ? NULL : &o->f;
		for (unsigned int k = 0; k < r->nb_keys; k++) {
			struct answer cur = h[k].c[h[k].n - 1].a, now = cur;

			if (key_slice(r->nb_slices, k) != o->slice)
				continue;
			if (!o->del && o->pos <= cur.pos && matches(&o->f, &r->keys[k])) {
				now = (struct answer){o->pos, o->f.result.endpoint};
			} else if (cur.pos == o->pos) {
				/* The filter that answered is gone: search again. */
				now.pos = SP_LOOKUP_MISS;
				for (uint32_t p = 0; p < QUOTA; p++) {
					if (tab[p] != NULL && matches(tab[p], &r->keys[k])) {
						now = (struct answer){p, tab[p]->result.endpoint};
						break;
					}
				}
			}
			if (now.pos != cur.pos || now.tag != cur.tag)
				history_add(&h[k], v + 1, now);
		}
	}
	return h;
}

static void
apply(struct sp_lookup *t, const struct op *o)
{
	int rc = o->del ? sp_lookup_delete(t, o->slice, o->pos)
			: sp_lookup_write(t, o->slice, o->pos, &o->f);

	assert_true(rc == 0 || (o->del && rc == -ENOENT));
}

/* What the NPE hands sp_lookup_bulk_deferred(): its packets, each naming its slice. */
struct object {
	uint16_t slice;
	struct sp_key key;
	struct sp_result res;
	uint32_t pos;
};

static const struct sp_lookup_fields object_fields = {
	.slice = offsetof(struct object, slice),
	.key = offsetof(struct object, key),
	.result = offsetof(struct object, res),
	.position = offsetof(struct object, pos),
};

/*
 * One burst of the keys idx[]: with one slice through sp_lookup_bulk(), with
 * many as the NPE does, each key in its own slice's table, hits counted
 * later. Positions in pos[], results in res[].
 */
static void
look_up(struct race *r, const uint16_t *idx, struct sp_result *res, uint32_t *pos)
{
	struct object objs[BURST];
	void *op[BURST];
	const struct sp_key *keys[BURST];
	struct sp_result *results[BURST];
	static __thread struct sp_lookup_deferred_hits later;

	if (r->nb_slices == 1) {
		for (unsigned int i = 0; i < BURST; i++) {
			keys[i] = &r->keys[idx[i]];
			results[i] = &res[i];
		}
		sp_lookup_bulk(r->t, 1, keys, results, pos, BURST);
		return;
	}
	for (unsigned int i = 0; i < BURST; i++) {
		objs[i].slice = key_slice(r->nb_slices, idx[i]);
		objs[i].key = r->keys[idx[i]];
		op[i] = &objs[i];
	}
	sp_lookup_bulk_deferred(r->t, op, &object_fields, BURST, &later);
	sp_lookup_count_deferred(&later);
	for (unsigned int i = 0; i < BURST; i++) {
		pos[i] = objs[i].pos;
		res[i] = objs[i].res;
	}
}

/*
 * The keys of a burst: every other burst consecutive keys (each of another
 * slice), else keys a slice apart (mostly of one slice), as the NPE's
 * rounds mix them.
 */
static void
burst_keys(const struct race *r, unsigned int b, uint16_t *idx)
{
	unsigned int step = b % 2 == 0 ? 1 : r->nb_slices;

	for (unsigned int i = 0; i < BURST; i++)
		idx[i] = (uint16_t)((b * BURST + i * step + b / 2) % r->nb_keys);
}

static void *
reader(void *arg)
{
	struct race *r = arg;
	struct sp_result res[BURST];
	uint32_t pos[BURST], seen_v = 0, logged_at_v = 0;
	unsigned int b = 0;

	rte_rcu_qsbr_thread_register(r->qsbr, 0);
	rte_rcu_qsbr_thread_online(r->qsbr, 0);
	__atomic_store_n(&r->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && r->nb_log + BURST <= MAX_LOG) {
		uint16_t idx[BURST];
		uint32_t v0 = __atomic_load_n(&r->version, __ATOMIC_ACQUIRE), v1;

		/*
		 * A write may wait for a compile while lookups go on: spread the
		 * log over every version rather than fill it during one.
		 */
		if (v0 != seen_v) {
			seen_v = v0;
			logged_at_v = 0;
		}
		if (logged_at_v >= MAX_LOG / NB_OPS) {
			rte_rcu_qsbr_quiescent(r->qsbr, 0);
			sched_yield();
			continue;
		}
		logged_at_v += BURST;
		burst_keys(r, b++, idx);
		look_up(r, idx, res, pos);
		v1 = __atomic_load_n(&r->version, __ATOMIC_ACQUIRE);
		for (unsigned int i = 0; i < BURST; i++) {
			struct seen *s = &r->log[r->nb_log++];

			*s = (struct seen){.v0 = v0, .v1 = v1, .key = idx[i], .got.pos = pos[i]};
			if (pos[i] != SP_LOOKUP_MISS) {
				s->got.tag = res[i].endpoint;
				uint16_t check = (uint16_t)~res[i].endpoint;

				/* A torn result carries a queue from another write. */
				if (res[i].queue != check)
					s->got.tag = 0;
			}
		}
		rte_rcu_qsbr_quiescent(r->qsbr, 0);
		if (b % 64 == 0)
			sched_yield(); /* let the writer run on a one-CPU machine */
	}
	rte_rcu_qsbr_thread_offline(r->qsbr, 0);
	rte_rcu_qsbr_thread_unregister(r->qsbr, 0);
	return NULL;
}

static void *
writer(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
		sched_yield();
	for (uint32_t v = 0; v < NB_OPS; v++) {
		apply(r->t, &r->ops[v]);
		__atomic_store_n(&r->version, v + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Threads inherit the EAL main lcore's CPU: let them run anywhere, side by side. */
static pthread_t
spawn(void *(*fn)(void *), struct race *r)
{
	cpu_set_t all;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, fn, r), 0);
	CPU_ZERO(&all);
	for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	pthread_setaffinity_np(th, sizeof(all), &all);
	return th;
}

/* The reader's answer must be the reference's at a version in [v0, v1 + 1]:
 * the op after v1 may already be published when v1 is read. */
static bool
plausible(const struct history *h, const struct seen *s)
{
	uint32_t last = s->v1 + 1 > NB_OPS ? NB_OPS : s->v1 + 1;
	const struct history *k = &h[s->key];

	for (uint32_t v = s->v0; v <= last; v++) {
		struct answer a = answer_at(k, v);

		if (a.pos == s->got.pos && (a.pos == SP_LOOKUP_MISS || a.tag == s->got.tag))
			return true;
	}
	return false;
}

/*
 * NB_OPS random writes over nb_slices slices of QUOTA positions, raced by a
 * reader looking up nb_keys keys spread over the slices; every answer
 * checked against the reference.
 */
static void
race_over(unsigned int nb_slices, unsigned int nb_keys)
{
	struct race *r = calloc(1, sizeof(*r));
	struct op *ops = calloc(NB_OPS, sizeof(*ops));
	struct sp_lookup_params p = {.name = "race", .capacity = QUOTA * nb_slices,
				     .max_slices = (uint16_t)(nb_slices + 1),
				     .socket = SOCKET_ID_ANY};
	struct sp_lookup_info info;
	struct history *h;
	uint32_t bad = 0, changed_under = 0, rebuilt = 0;
	pthread_t rd, wr;

	assert_non_null(r);
	assert_non_null(ops);
	r->nb_slices = nb_slices;
	r->nb_keys = nb_keys;
	r->log = malloc(sizeof(*r->log) * MAX_LOG);
	r->qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	assert_non_null(r->log);
	assert_non_null(r->qsbr);
	assert_int_equal(rte_rcu_qsbr_init(r->qsbr, 1), 0);
	p.qsbr = r->qsbr;
	r->t = sp_lookup_create(&p);
	assert_non_null(r->t);
	for (unsigned int s = 1; s <= nb_slices; s++)
		assert_int_equal(sp_lookup_slice_add(r->t, (uint16_t)s, QUOTA), 0);
	make_ops(ops, nb_slices);
	make_keys(r->keys, nb_keys, ops, NB_OPS, nb_slices);
	h = reference_answers(ops, r);

	r->ops = ops;
	rd = spawn(reader, r);
	wr = spawn(writer, r);
	assert_int_equal(pthread_join(wr, NULL), 0);
	assert_int_equal(pthread_join(rd, NULL), 0);
	/* The reader looked up until the writer was done: its log did not fill first. */
	assert_true(r->nb_log + BURST <= MAX_LOG);

	for (uint32_t i = 0; i < r->nb_log; i++) {
		if (!plausible(h, &r->log[i]) && bad++ < 5)
			print_message("lookup %u of key %u (slice %u) between versions %u and %u: "
				      "got position %u tag %u\n", i, r->log[i].key,
				      key_slice(nb_slices, r->log[i].key), r->log[i].v0,
				      r->log[i].v1, r->log[i].got.pos, r->log[i].got.tag);
		changed_under += r->log[i].v1 != r->log[i].v0;
	}
	/* Slices whose filters were compiled (rebuilt) while the reader looked up. */
	for (unsigned int s = 1; s <= nb_slices; s++) {
		assert_int_equal(sp_lookup_info(r->t, (uint16_t)s, &info), 0);
		rebuilt += info.compiled > 0;
	}
	print_message("%u slices (%u rebuilt), %u lookups, %u of them while updates were "
		      "published\n", nb_slices, rebuilt, r->nb_log, changed_under);
	assert_int_equal(bad, 0);
	/* Worth something only if lookups really raced the writer and the rebuilds. */
	assert_true(changed_under > 1000);
	assert_true(rebuilt >= nb_slices / 2);
	sp_lookup_free(r->t);
	rte_free(r->qsbr);
	for (unsigned int k = 0; k < nb_keys; k++)
		free(h[k].c);
	free(h);
	free(r->log);
	free(ops);
	free(r);
}

static void
test_lookups_agree_while_updates_are_published(void **state __rte_unused)
{
	race_over(1, 256);
}

/* 64 slices taking turns, each key in its own slice's table, slices rebuilt meanwhile. */
static void
test_64_slices_agree_while_updates_and_rebuilds_are_published(void **state __rte_unused)
{
	race_over(MAX_SLICES, MAX_KEYS);
}

/* Millions of keys against the final table of a long random history. */
static void
test_millions_of_keys_agree(void **state __rte_unused)
{
	struct op *ops = calloc(NB_OPS, sizeof(*ops));
	struct sp_lookup_params p = {.name = "static", .capacity = QUOTA, .max_slices = 4,
				     .socket = SOCKET_ID_ANY};
	const struct sp_filter *table[QUOTA] = {NULL};
	struct op live[QUOTA];
	unsigned int nb_live = 0;
	struct sp_key keys[BURST];
	const struct sp_key *kp[BURST];
	struct sp_result res[BURST];
	struct sp_result *rp[BURST];
	uint32_t pos[BURST], hits = 0;
	struct sp_lookup *t;

	assert_non_null(ops);
	t = sp_lookup_create(&p);
	assert_non_null(t);
	assert_int_equal(sp_lookup_slice_add(t, 1, QUOTA), 0);
	make_ops(ops, 1);
	for (uint32_t v = 0; v < NB_OPS; v++) {
		apply(t, &ops[v]);
		table[ops[v].pos] = ops[v].del ? NULL : &ops[v].f;
	}
	for (uint32_t q = 0; q < QUOTA; q++) {
		/* A catch-all would answer every key (the race test has them): remove it. */
		if (table[q] != NULL && popcount(&table[q]->mask) == 0) {
			assert_int_equal(sp_lookup_delete(t, 1, q), 0);
			table[q] = NULL;
		}
		if (table[q] != NULL)
			live[nb_live++] = (struct op){.slice = 1, .f = *table[q]};
	}
	for (unsigned int i = 0; i < BURST; i++) {
		kp[i] = &keys[i];
		rp[i] = &res[i];
	}
	for (uint32_t round = 0; round < STATIC_KEYS / BURST; round++) {
		make_keys(keys, BURST, live, nb_live, 1); /* keys near the filters in the table */
		sp_lookup_bulk(t, 1, kp, rp, pos, BURST);
		for (unsigned int i = 0; i < BURST; i++) {
			uint32_t want = SP_LOOKUP_MISS;

			for (uint32_t q = 0; q < QUOTA && want == SP_LOOKUP_MISS; q++)
				if (table[q] != NULL && matches(table[q], &keys[i]))
					want = q;
			assert_int_equal(pos[i], want);
			if (want != SP_LOOKUP_MISS) {
				assert_int_equal(res[i].endpoint, table[want]->result.endpoint);
				hits++;
			}
		}
	}
	print_message("%u keys, %u hits\n", STATIC_KEYS, hits);
	assert_true(hits > STATIC_KEYS / 4 && hits < STATIC_KEYS - STATIC_KEYS / 8);
	sp_lookup_free(t);
	free(ops);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookups_agree_while_updates_are_published),
		cmocka_unit_test(test_64_slices_agree_while_updates_and_rebuilds_are_published),
		cmocka_unit_test(test_millions_of_keys_agree),
	};

	int failed;

	sp_test_eal_init();
	failed = cmocka_run_group_tests_name("the widest walk the CPU allows", tests, NULL, NULL);
	/* The tree's 128-bit walk too (tree.h: chosen as each table is created). */
	assert_int_equal(rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_128), 0);
	return failed + cmocka_run_group_tests_name("a 128-bit walk", tests, NULL, NULL);
}
