/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slicepath lookup engine as the daemon uses it: one table of the set's
 * capacity, a slice per slice of the set (bench.h) whose quota is its
 * filters, its filters at positions 0, 1, ... in order, each result
 * carrying its rule's index, each slice's written in one
 * sp_lookup_write_bulk() (build time: until the lookups see them all).
 */
#include "bench.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_memory.h>

/* A key as the NPE hands it over with rounds (-R): a packet's fields. */
struct round_key {
	struct sp_key key;
	uint16_t slice;
	uint32_t position;
	struct sp_result result;
};

static const struct sp_lookup_fields round_fields = {
	.slice = offsetof(struct round_key, slice),
	.key = offsetof(struct round_key, key),
	.result = offsetof(struct round_key, result),
	.position = offsetof(struct round_key, position),
};

struct sp_engine {
	struct sp_lookup *t;
	uint32_t *local; /* by filter of the set: its position in its slice */
	struct sp_result res[BENCH_BURST];
	struct sp_result *results[BENCH_BURST];
	uint32_t pos[BENCH_BURST];
	/* With rounds: each key of the set as a round_key, and the hits to count. */
	struct round_key *round_keys;
	void **round_objs;
	struct sp_lookup_deferred_hits deferred;
};

/* With rounds, the set's keys as the NPE's packets hold them; 0 or -ENOMEM. */
static int
make_round_keys(const struct bench_set *s, struct sp_engine *p)
{
	if (s->call == s->burst)
		return 0;
	/* Where the set's keys are (the C heap), as the other engines read them. */
	p->round_keys = aligned_alloc(RTE_CACHE_LINE_SIZE, s->nb_keys * sizeof(*p->round_keys));
	p->round_objs = malloc(s->nb_keys * sizeof(*p->round_objs));
	if (p->round_keys == NULL || p->round_objs == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < s->nb_keys; i++) {
		p->round_keys[i] = (struct round_key){.key = s->keys[i].k,
						      .slice = bench_burst_slice(s, i)};
		p->round_objs[i] = &p->round_keys[i];
	}
	return 0;
}

/* Filter f of the set, its result carrying its rule. */
static struct sp_filter
filter(const struct bench_set *s, uint32_t f)
{
	struct sp_filter out = s->x.filters[f];

	memset(&out.result, 0, sizeof(out.result));
	memcpy(out.result.data, &s->x.rule[f], sizeof(s->x.rule[f]));
	return out;
}

/* The slice of the set's position pos: that of the filter there at the start. */
static uint16_t
slice_at(const struct engine *e, uint32_t pos)
{
	return bench_rule_slice(e->set, e->set->x.rule[pos]);
}

/*
 * As the management thread writes: the _nowait call (e->held_us, what it
 * holds the thread), then, if the write waits for a compile, its finish
 * asked for until it shows (the daemon serves others meanwhile).
 */
static int
shown(struct engine *e, uint16_t slice, uint32_t pos, int rc, uint64_t ticket, double t0)
{
	struct sp_engine *p = e->priv;

	e->held_us = (now_s() - t0) * 1e6;
	while (rc == -EINPROGRESS) {
		usleep(100);
		rc = sp_lookup_finish(p->t, slice, ticket, &pos, 1);
	}
	return rc;
}

/* The adversary's slice (-A): after the set's. */
static uint16_t
adversary_slice(const struct engine *e)
{
	return e->set->nb_slices;
}

/* A random filter of the adversary: random masks, that no tree takes and every lookup would scan. */
static struct sp_filter
adversary_filter(void)
{
	struct sp_filter f = {0};

	for (unsigned int i = 0; i < SP_KEY_BYTES; i++) {
		f.key.b[i] = (uint8_t)bench_rand();
		f.mask.b[i] = (uint8_t)bench_rand();
	}
	return f;
}

/* With an adversary, every write and erase rewrites one of its positions instead. */
static int
adversary_write(struct engine *e)
{
	struct sp_engine *p = e->priv;
	struct sp_filter f = adversary_filter();
	uint32_t at = (uint32_t)(bench_rand() % e->adversary);
	double t0 = now_s();
	uint64_t ticket;
	int rc = sp_lookup_write_bulk_nowait(p->t, adversary_slice(e), &at, &f, 1, &ticket);

	return shown(e, adversary_slice(e), at, rc, ticket, t0);
}

/* Filter flt (NULL: none) at the set's position pos, as the management thread writes. */
static int
put(struct engine *e, uint32_t pos, const struct sp_filter *flt)
{
	struct sp_engine *p = e->priv;
	uint16_t slice = slice_at(e, pos);
	double t0 = now_s();
	uint64_t ticket;
	int rc;

	if (e->adversary > 0)
		return adversary_write(e);
	if (flt != NULL)
		rc = sp_lookup_write_bulk_nowait(p->t, slice, &p->local[pos], flt, 1, &ticket);
	else
		rc = sp_lookup_delete_nowait(p->t, slice, p->local[pos], &ticket);
	return shown(e, slice, p->local[pos], rc, ticket, t0);
}

static int
sp_write(struct engine *e, uint32_t pos, uint32_t f)
{
	struct sp_filter flt = filter(e->set, f);

	return put(e, pos, &flt);
}

static int
sp_erase(struct engine *e, uint32_t pos)
{
	return put(e, pos, NULL);
}

/* The adversary's slice, full, compiled (-A). */
static int
load_adversary(struct engine *e)
{
	struct sp_engine *p = e->priv;
	struct sp_filter *f = malloc((size_t)e->adversary * sizeof(*f));
	uint32_t *pos = malloc((size_t)e->adversary * sizeof(*pos));
	int rc = -ENOMEM;

	if (f != NULL && pos != NULL) {
		for (uint32_t i = 0; i < e->adversary; i++) {
			f[i] = adversary_filter();
			pos[i] = i;
		}
		rc = sp_lookup_slice_add(p->t, adversary_slice(e), e->adversary);
		if (rc == 0)
			rc = sp_lookup_write_bulk(p->t, adversary_slice(e), pos, f, e->adversary);
		if (rc == 0)
			rc = sp_lookup_sync(p->t, adversary_slice(e));
	}
	free(f);
	free(pos);
	return rc;
}

/* Each slice's filters written in one call, compiled, and seen by the lookups. */
static int
load_slices(struct engine *e, struct sp_filter *f, uint32_t *pos)
{
	const struct bench_set *s = e->set;
	struct sp_engine *p = e->priv;
	int rc = 0;

	for (uint16_t sl = 0; sl < s->nb_slices && rc == 0; sl++) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < s->x.n; i++)
			if (slice_at(e, i) == sl) {
				p->local[i] = n;
				f[n] = filter(s, i);
				pos[n] = n;
				n++;
			}
		rc = sp_lookup_slice_add(p->t, sl, RTE_MAX(n, 1u));
		if (rc == 0)
			rc = sp_lookup_write_bulk(p->t, sl, pos, f, n);
		if (rc == 0)
			rc = sp_lookup_sync(p->t, sl);
	}
	return rc;
}

static int
sp_build(struct engine *e)
{
	const struct bench_set *s = e->set;
	struct sp_lookup_params params = {
		.name = "bench",
		/* a slice of no filters still has a position */
		.capacity = s->capacity + s->nb_slices + e->adversary,
		.max_slices = (uint16_t)(s->nb_slices + 1),
		.socket = SOCKET_ID_ANY,
		.qsbr = e->qsbr,
	};
	struct sp_engine *p = calloc(1, sizeof(*p));
	struct sp_filter *f = malloc(RTE_MAX(s->x.n, (size_t)1) * sizeof(*f));
	uint32_t *pos = malloc(RTE_MAX(s->x.n, (size_t)1) * sizeof(*pos));
	struct sp_lookup_info info;
	size_t heap = heap_allocated();
	uint32_t i, rules = 0;
	size_t classifier = 0, counters = 0;
	bool in_acl = false;
	double start;
	int rc = -ENOMEM;

	e->priv = p;
	if (p != NULL)
		p->local = malloc(RTE_MAX(s->x.n, (size_t)1) * sizeof(*p->local));
	if (p == NULL || p->local == NULL || f == NULL || pos == NULL)
		goto out;
	for (i = 0; i < BENCH_BURST; i++)
		p->results[i] = &p->res[i];
	start = now_s();
	p->t = sp_lookup_create(&params);
	rc = p->t != NULL ? load_slices(e, f, pos) : -rte_errno;
	e->build_s = now_s() - start;
	e->mem_bytes = heap_allocated() - heap; /* the set's, not the adversary's */
	if (rc == 0 && e->adversary > 0) {
		rc = load_adversary(e);
		printf("  sp: an adversary slice of %u random-mask filters beside, the one the "
		       "writes rewrite\n", e->adversary);
	}
	if (rc == 0) {
		for (uint16_t sl = 0; sl < s->nb_slices; sl++)
			if (sp_lookup_info(p->t, sl, &info) == 0) {
				snprintf(e->alg, sizeof(e->alg), "%s", info.classifier);
				in_acl = strcmp(info.form, "ternary") == 0 || strcmp(info.form, "ranges") == 0;
				rules += info.rules;
				classifier += info.classifier_bytes;
				counters += info.counter_bytes;
			}
		printf("  sp: %zu filters in %u slice(s), classified by %s%s\n", s->x.n,
		       s->nb_slices, e->alg, in_acl ? " (rte_acl)" : "");
		if (in_acl)
			printf("  sp: %u rte_acl rules\n", rules);
		else
			printf("  sp: the lookups read %.1f bytes a filter: %.1f of trees and results "
			       "(%.2f leaf entries a filter), %.1f of hit counters (the rest of the "
			       "memory below: the writer's copy, the compiler's, the flow caches)\n",
			       (double)(classifier + counters) / (double)RTE_MAX(s->x.n, (size_t)1),
			       (double)classifier / (double)RTE_MAX(s->x.n, (size_t)1),
			       (double)rules / (double)RTE_MAX(s->x.n, (size_t)1),
			       (double)counters / (double)RTE_MAX(s->x.n, (size_t)1));
	}
	e->entries = (uint32_t)s->x.n;
	if (rc == 0)
		rc = make_round_keys(s, p);
out:
	free(f);
	free(pos);
	return rc;
}

/* A round's keys of every slice in one call, as the NPE looks up a burst of packets. */
static void
round_lookup(struct sp_engine *p, size_t first, uint16_t n, uint32_t *rule)
{
	sp_lookup_bulk_deferred(p->t, &p->round_objs[first], &round_fields, n, &p->deferred);
	sp_lookup_count_deferred(&p->deferred);
	for (uint16_t i = 0; i < n; i++) {
		const struct round_key *k = &p->round_keys[first + i];

		rule[i] = BENCH_MISS;
		if (k->position != SP_LOOKUP_MISS)
			memcpy(&rule[i], k->result.data, sizeof(rule[i]));
	}
}

static void
sp_lookup(struct engine *e, size_t first, uint16_t n, uint32_t *rule)
{
	struct sp_engine *p = e->priv;
	uint16_t i;

	if (p->round_keys != NULL) {
		round_lookup(p, first, n, rule);
		return;
	}
	sp_lookup_bulk(p->t, bench_burst_slice(e->set, first), &e->set->sp_keys[first],
		       p->results, p->pos, n);
	for (i = 0; i < n; i++) {
		rule[i] = BENCH_MISS;
		if (p->pos[i] != SP_LOOKUP_MISS)
			memcpy(&rule[i], p->res[i].data, sizeof(rule[i]));
	}
}

/* Every key's walk counted (the profile, -P): what the classifier reads, step by step. */
static int
sp_walk(struct engine *e, struct sp_lookup_walk *w)
{
	struct sp_engine *p = e->priv;
	const struct bench_set *s = e->set;
	int rc = 0;

	for (size_t i = 0; i < s->nb_keys && rc == 0; i++) {
		uint32_t pos;

		rc = sp_lookup_walk(p->t, bench_burst_slice(s, i), s->sp_keys[i], w, &pos);
	}
	return rc;
}

static void
sp_free(struct engine *e)
{
	struct sp_engine *p = e->priv;

	if (p != NULL) {
		sp_lookup_free(p->t);
		free(p->local);
		free(p->round_keys);
		free(p->round_objs);
	}
	free(p);
	e->priv = NULL;
}

/* Built twice (meson.build): as the daemon's 14-byte engine, and its 40-byte build for -6. */
#if LK_KEY_BYTES == SP_KEY_BYTES
const struct engine_ops sp_engine_ops = {
#else
const struct engine_ops sp_wide_engine_ops = {
#endif
	.name = "sp",
	.build = sp_build,
	.lookup = sp_lookup,
	.write = sp_write,
	.erase = sp_erase,
	.walk = sp_walk,
	.free = sp_free,
};
