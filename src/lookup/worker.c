/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lookup lcore's side of the table (lookup.c is the writers'):
 * sp_lookup_bulk() and sp_lookup_bulk_deferred(). It reads the slices' views
 * (RCU), writes their flow caches and hit counters, and never waits.
 *
 * A batch goes in chunks of up to LK_BURST keys. In a chunk, each run of
 * keys of one slice first asks the slice's flow cache; what the caches
 * leave, of every slice at once, walks the slices' trees together
 * (lk_base_classify()), so that a slice's few keys of a round overlap
 * their cache misses with the other slices'; then each run settles its
 * answers (changes since the compile, odd filters) and fills its cache.
 */
#include "table.h"

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>

/* The base's filter at pos was rewritten or deleted since it was compiled: v->d holds pos. */
static inline bool
stale(const struct lk_view *v, uint32_t pos)
{
	uint32_t i = LK_LOWER_BOUND(v->d, v->n, pos, pos);

	return i < v->n && v->d[i].pos == pos;
}

/*
 * The first live copy (changes.h) matching k, whose compiled first match
 * at position after went stale: a base index, or LK_NONE. A copy before it
 * cannot match k (the compiled answer would be that copy), so the scan
 * starts past it.
 */
static inline uint32_t
first_copy(const struct lk_view *v, const struct lk_bits *k, uint32_t after)
{
	const struct lk_base *b = v->base;
	uint32_t lo = 0, hi = v->nb_copies, i;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->ent[v->copies[mid]].pos <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < v->nb_copies; i++)
		if (lk_match(&v->copy_f[i], k) && !stale(v, b->ent[v->copies[i]].pos))
			return v->copies[i];
	return LK_NONE;
}

/* The first live odd filter of the base before position limit matching k: its index, or LK_NONE. */
static inline uint32_t
first_odd(const struct lk_view *v, const struct lk_bits *k, uint32_t limit)
{
	const struct lk_base *b = v->base;
	uint32_t i;

	for (i = 0; i < b->nb_odd && b->ent[b->odd_idx[i]].pos < limit; i++)
		if (lk_match(&b->odd_filt[i], k) && (v->n == 0 || !stale(v, b->ent[b->odd_idx[i]].pos)))
			return b->odd_idx[i];
	return LK_NONE;
}

/*
 * The first live match (changes.h): the base's answer h, or if stale the
 * copies; the odd filters; the writes. Returns the position, or
 * SP_LOOKUP_MISS, and the result.
 */
static inline uint32_t
resolve(const struct lk_view *v, const struct lk_tree_hit *h, const struct lk_bits *k,
	const struct sp_result **res)
{
	const struct lk_base *b = v->base;
	uint32_t bpos = SP_LOOKUP_MISS, bi = LK_NONE, i;

	if (b != NULL) {
		bpos = h->pos;
		if (bpos != SP_LOOKUP_MISS && v->n > 0 && stale(v, bpos)) {
			bi = first_copy(v, k, bpos);
			bpos = bi != LK_NONE ? b->ent[bi].pos : SP_LOOKUP_MISS;
		}
		if (b->nb_odd > 0) {
			uint32_t odd = first_odd(v, k, bpos);

			if (odd != LK_NONE) {
				bi = odd;
				bpos = b->ent[odd].pos;
			}
		}
	}
	for (i = 0; i < v->n && v->d[i].pos < bpos; i++) {
		const struct lk_dent *d = &v->d[i];

		if (d->kind == LK_WRITE && lk_match(&d->f, k)) {
			*res = &d->res;
			return d->pos;
		}
	}
	if (bpos == SP_LOOKUP_MISS)
		return SP_LOOKUP_MISS;
	*res = bi != LK_NONE ? &b->ent[bi].res : lk_base_result(b, h);
	return bpos;
}

/*
 * A hit on the counter: now, or in `deferred` (NULL: now) at *nb_deferred, its
 * line prefetched meanwhile. lookup_chunk() made room for a chunk's hits.
 */
static __rte_always_inline void
count_hit(uint32_t *counter, struct sp_lookup_deferred_hits *deferred, uint32_t *nb_deferred)
{
	if (deferred == NULL) {
		(*counter)++;
		return;
	}
	rte_prefetch0(counter);
	deferred->counter[(*nb_deferred)++] = counter;
}

/*
 * A batch looked up: one slice's arrays of pointers to keys and results
 * and of positions (sp_lookup_bulk), or objects holding all four as fields
 * (sp_lookup_bulk_deferred). `fields` is a constant in each entry point, so
 * the accessors below inline to that form's loads alone.
 */
struct lk_batch {
	bool fields;
	uint16_t slice;
	const struct sp_key *const *keys;
	struct sp_result *const *results;
	uint32_t *positions;
	void *const *objs;
	struct sp_lookup_fields at;
};

static __rte_always_inline uint16_t
batch_slice(const struct lk_batch *b, uint32_t i)
{
	return b->fields ? *(const uint16_t *)RTE_PTR_ADD(b->objs[i], b->at.slice) : b->slice;
}

static __rte_always_inline const struct sp_key *
batch_key(const struct lk_batch *b, uint32_t i)
{
	return b->fields ? RTE_PTR_ADD(b->objs[i], b->at.key) : b->keys[i];
}

static __rte_always_inline struct sp_result *
batch_result(const struct lk_batch *b, uint32_t i)
{
	return b->fields ? RTE_PTR_ADD(b->objs[i], b->at.result) : b->results[i];
}

static __rte_always_inline uint32_t *
batch_position(const struct lk_batch *b, uint32_t i)
{
	return b->fields ? RTE_PTR_ADD(b->objs[i], b->at.position) : &b->positions[i];
}

/* A run of a chunk's keys of one slice: batch entries first .. first + n - 1. */
struct lk_run {
	struct lk_slice *s; /* NULL: no such slice, its keys miss */
	const struct lk_view *v;
	uint32_t first, n;
	uint32_t miss_first, nb_miss; /* its keys the classifier takes, in the chunk's list */
	bool scan;                    /* its table is scanned (scan_run()) */
	bool use, timed;              /* the flow cache (flows.h) */
	uint64_t cycles;              /* timed: its own, the classifier's share added last */
};

/* A chunk: its runs, and the keys the caches leave to the classifier. */
struct lk_chunk {
	uint32_t nb_runs, nb_miss;
	bool timed;
	struct lk_run run[LK_BURST];
	uint32_t miss[LK_BURST]; /* batch entries */
	const uint8_t *data[LK_BURST];
	const struct lk_base *base[LK_BURST];
	struct lk_tree_hit hit[LK_BURST];
	/* Each entry's key as the flow cache hashes it, and its set. */
	uint64_t w[LK_BURST][LK_FLOW_WORDS];
	uint32_t h[LK_BURST];
	struct lk_flow *set[LK_BURST];
};

static inline uint64_t
run_clock(const struct lk_run *r)
{
	return r->timed ? rte_rdtsc() : 0;
}

/* Batch entries first .. first + n - 1 in runs of one slice each, their views loaded. */
static __rte_always_inline void
split_runs(struct sp_lookup *t, const struct lk_batch *b, uint32_t first, uint32_t n,
	   struct lk_chunk *c)
{
	uint32_t end = first + n, next;

	c->nb_runs = 0;
	c->timed = false;
	for (uint32_t i = first; i < end; i = next) {
		uint16_t id = batch_slice(b, i);
		struct lk_run *r = &c->run[c->nb_runs++];

		for (next = i + 1; next < end && batch_slice(b, next) == id; next++)
			;
		*r = (struct lk_run){.first = i, .n = next - i};
		if (id < t->max_slices)
			r->s = __atomic_load_n(&t->slices[id], __ATOMIC_ACQUIRE);
		if (r->s == NULL)
			continue;
		r->v = __atomic_load_n(&r->s->view, __ATOMIC_ACQUIRE);
		r->scan = r->v->n == 0 && r->v->base != NULL && lk_base_scanned(r->v->base);
		if (r->scan)
			continue;
		r->use = lk_flows_use(&r->s->flows, &r->timed);
		c->timed |= r->timed;
	}
}

/* Hash the keys of runs that use their cache, their sets prefetched. */
static __rte_always_inline void
hash_keys(const struct lk_batch *b, uint32_t first, struct lk_chunk *c)
{
	for (uint32_t j = 0; j < c->nb_runs; j++) {
		struct lk_run *r = &c->run[j];
		struct lk_flows *flows;
		uint64_t start;
		uint32_t end;

		if (r->s == NULL || !r->use)
			continue;
		start = run_clock(r);
		/* In registers: the stores below could alias r's fields in memory. */
		flows = &r->s->flows;
		end = r->first + r->n;
		for (uint32_t i = r->first; i < end; i++) {
			uint32_t x = i - first;

			lk_flow_words(batch_key(b, i), c->w[x]);
			c->h[x] = lk_flow_hash(c->w[x]);
			c->set[x] = lk_flow_set(flows, c->h[x]);
			rte_prefetch0(c->set[x]); /* the entry a flow's hits usually find */
		}
		r->cycles += run_clock(r) - start;
	}
}

/*
 * The run's cache answers; its other keys join the classifier's list.
 * Returns the hits.
 */
static __rte_always_inline uint16_t
ask_cache(const struct lk_batch *b, uint32_t first, struct lk_chunk *c, struct lk_run *r,
	  struct sp_lookup_deferred_hits *deferred, uint32_t *nb_deferred)
{
	/* In registers: the answers' stores could alias them in memory. */
	const struct lk_base *base = r->v->base;
	uint64_t epoch = r->v->epoch, start = run_clock(r);
	uint32_t *count = r->s->hits.count, nb_miss = c->nb_miss, end = r->first + r->n;
	bool use = r->use;
	uint16_t nb_hits = 0;

	r->miss_first = nb_miss;
	for (uint32_t i = r->first; i < end; i++) {
		const struct lk_flow *e = use ? lk_flow_find(c->set[i - first], epoch,
								c->w[i - first]) : NULL;

		if (e == NULL) {
			c->miss[nb_miss] = i;
			c->data[nb_miss] = batch_key(b, i)->b;
			c->base[nb_miss++] = base;
			continue;
		}
		*batch_position(b, i) = e->pos;
		if (e->pos == SP_LOOKUP_MISS)
			continue;
		*batch_result(b, i) = e->res;
		count_hit(&count[e->pos], deferred, nb_deferred);
		nb_hits++;
	}
	c->nb_miss = nb_miss;
	r->nb_miss = nb_miss - r->miss_first;
	r->cycles += run_clock(r) - start;
	return nb_hits;
}

/*
 * The run's answers where its table is small enough to have no tree
 * (LK_SCAN_ONLY) and nothing changed since its compile: its filters
 * scanned in order, each key's first match. Returns the hits.
 */
static __rte_always_inline uint16_t
scan_run(const struct lk_batch *b, struct lk_run *r, struct sp_lookup_deferred_hits *deferred,
	 uint32_t *nb_deferred)
{
	/* In registers: the answers' stores could alias them in memory. */
	const struct lk_base *base = r->v->base;
	uint32_t *count = r->s->hits.count, end = r->first + r->n;
	uint16_t nb_hits = 0;

	r->nb_miss = 0;
	for (uint32_t i = r->first; i < end; i++) {
		struct lk_bits k = lk_bits_of(batch_key(b, i));
		uint32_t idx = lk_base_scan(base, &k);

		if (idx == LK_NONE) {
			*batch_position(b, i) = SP_LOOKUP_MISS;
			continue;
		}
		*batch_position(b, i) = base->ent[idx].pos;
		*batch_result(b, i) = base->ent[idx].res;
		count_hit(&count[base->ent[idx].pos], deferred, nb_deferred);
		nb_hits++;
	}
	return nb_hits;
}

/*
 * The classifier's answers for the run's keys, final once the changes since
 * the compile and the odd filters have had their say (none: mostly), into
 * the cache if the run uses it. Returns the hits.
 */
static __rte_always_inline uint16_t
settle(const struct lk_batch *b, uint32_t first, const struct lk_chunk *c, struct lk_run *r,
       struct sp_lookup_deferred_hits *deferred, uint32_t *nb_deferred)
{
	const struct lk_view *v = r->v;
	bool compiled = v->n == 0 && v->base != NULL && v->base->nb_odd == 0;
	uint64_t start = run_clock(r);
	uint16_t nb_hits = 0;

	for (uint32_t j = r->miss_first; j < r->miss_first + r->nb_miss; j++) {
		uint32_t i = c->miss[j], pos;
		const struct sp_result *res = NULL;
		struct lk_flow *e;

		if (compiled) {
			pos = c->hit[j].pos;
			if (pos != SP_LOOKUP_MISS)
				res = lk_base_result(v->base, &c->hit[j]);
		} else {
			struct lk_bits k = lk_bits_of(batch_key(b, i));

			pos = resolve(v, &c->hit[j], &k, &res);
		}
		*batch_position(b, i) = pos;
		if (pos != SP_LOOKUP_MISS) {
			*batch_result(b, i) = *res;
			count_hit(&r->s->hits.count[pos], deferred, nb_deferred);
			nb_hits++;
		}
		if (!r->use || lk_flow_find(c->set[i - first], v->epoch, c->w[i - first]) != NULL)
			continue; /* no cache, or the run had the key before */
		e = lk_flow_victim(c->set[i - first], v->epoch, c->h[i - first]);
		e->epoch = v->epoch;
		memcpy(e->key, c->w[i - first], sizeof(e->key));
		e->pos = pos;
		if (pos != SP_LOOKUP_MISS)
			e->res = *res;
	}
	r->cycles += run_clock(r) - start;
	return nb_hits;
}

/* Batch entries first .. first + n - 1, n <= LK_BURST. Returns the hits. */
static __rte_always_inline uint16_t
lookup_chunk(struct sp_lookup *t, const struct lk_batch *b, uint32_t first, uint32_t n,
	     struct sp_lookup_deferred_hits *deferred)
{
	struct lk_chunk c;
	uint32_t nb_deferred, j;
	uint64_t classified = 0;
	uint16_t nb_hits = 0;

	RTE_BUILD_BUG_ON(LK_BURST > SP_LOOKUP_DEFERRED_HITS);
	if (deferred != NULL && deferred->n + n > SP_LOOKUP_DEFERRED_HITS) /* room for every hit */
		sp_lookup_count_deferred(deferred);
	nb_deferred = deferred != NULL ? deferred->n : 0;
	split_runs(t, b, first, n, &c);
	hash_keys(b, first, &c);
	c.nb_miss = 0;
	for (j = 0; j < c.nb_runs; j++) {
		struct lk_run *r = &c.run[j];

		if (r->s != NULL) {
			nb_hits += r->scan ? scan_run(b, r, deferred, &nb_deferred)
					   : ask_cache(b, first, &c, r, deferred, &nb_deferred);
			continue;
		}
		for (uint32_t i = r->first; i < r->first + r->n; i++)
			*batch_position(b, i) = SP_LOOKUP_MISS;
	}
	if (c.nb_miss > 0) {
		uint64_t start = c.timed ? rte_rdtsc() : 0;

		lk_base_classify(c.base, c.data, c.hit, c.nb_miss);
		classified = c.timed ? rte_rdtsc() - start : 0;
	}
	for (j = 0; j < c.nb_runs; j++) {
		struct lk_run *r = &c.run[j];

		if (r->s == NULL)
			continue;
		nb_hits += settle(b, first, &c, r, deferred, &nb_deferred);
		/* Its share of the classifier's time: its keys' of the chunk's. */
		if (r->timed && r->nb_miss > 0)
			r->cycles += classified * r->nb_miss / c.nb_miss;
		lk_flows_count(&r->s->flows, r->n, r->use ? r->n - r->nb_miss : 0, r->use, r->timed,
			       r->cycles);
	}
	if (deferred != NULL)
		deferred->n = nb_deferred;
	return nb_hits;
}

static __rte_always_inline uint16_t
lookup_batch(struct sp_lookup *t, const struct lk_batch *b, uint16_t n,
	     struct sp_lookup_deferred_hits *deferred)
{
	uint16_t nb_hits = 0, m;

	for (uint16_t i = 0; i < n; i += m) {
		m = (uint16_t)RTE_MIN(n - i, LK_BURST);
		nb_hits += lookup_chunk(t, b, i, m, deferred);
	}
	return nb_hits;
}

uint16_t
sp_lookup_bulk(struct sp_lookup *t, uint16_t slice, const struct sp_key *const *keys,
	       struct sp_result *const *results, uint32_t *positions, uint16_t n)
{
	const struct lk_batch b = {.fields = false, .slice = slice, .keys = keys,
				   .results = results, .positions = positions};

	return lookup_batch(t, &b, n, NULL);
}

uint16_t
sp_lookup_bulk_deferred(struct sp_lookup *t, void *const *objs, const struct sp_lookup_fields *at,
			uint16_t n, struct sp_lookup_deferred_hits *deferred)
{
	const struct lk_batch b = {.fields = true, .objs = objs, .at = *at};

	if (deferred == NULL) /* the API's: never; said so, the compiler drops the tests of it */
		__builtin_unreachable();
	return lookup_batch(t, &b, n, deferred);
}
