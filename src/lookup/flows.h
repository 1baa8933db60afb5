/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's flow cache: the answers of its recent lookups by exact key, so
 * that a flow's packets after the first skip the classifier, whose tables
 * (rte_acl's tries, megabytes for a few thousand firewall filters) are out
 * of the caches when many slices take turns. Each slice has its own, so its
 * hit rate, like its lookup cost, depends on its own traffic only.
 *
 * Two-way set associative, an entry a cache line. An entry holds for the
 * view it was computed on (epochs are never reused, changes.h), so any
 * write, delete or compile publishes a view that makes every entry of the
 * slice stale at once: a write is visible when it returns, as without the
 * cache. Misses are cached too. Only the lookup lcore reads and writes it.
 *
 * The cache pays only where flows come back while their entries last; on
 * traffic that does not (more live flows than entries, every packet a new
 * key) each lookup would pay a hash, a probe and an insert for nothing. So
 * it counts its hits: a window of LK_FLOW_WINDOW lookups with fewer than a
 * quarter of them sends the slice's next LK_FLOW_REST lookups straight to
 * the classifier, after which the cache tries again.
 */
#ifndef SP_LOOKUP_FLOWS_H
#define SP_LOOKUP_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>

#include "lookup.h"

/* Entries a slice, in sets of LK_FLOW_WAYS (a power of two): 32 KiB. */
#define LK_FLOWS 512
#define LK_FLOW_WAYS 2
#define LK_FLOW_WINDOW 1024
#define LK_FLOW_REST 65536

struct lk_flow {
	uint64_t epoch; /* of the view whose answer this is; 0: empty */
	struct sp_key key;
	uint32_t pos; /* SP_LOOKUP_MISS: no filter matches */
	struct sp_result res;
} __rte_cache_aligned;

struct lk_flows {
	uint64_t lookups, hits; /* all along, for sp_lookup_info() (read by other threads) */
	uint32_t window_lookups, window_hits;
	uint32_t resting; /* lookups left that skip the cache */
	struct lk_flow e[LK_FLOWS] __rte_cache_aligned;
};

/* False while the cache stands aside. */
static inline bool
lk_flows_in_use(struct lk_flows *f)
{
	return f->resting == 0;
}

/* Count a burst's lookups and hits; at the end of a window, rest if they were few. */
static inline void
lk_flows_count(struct lk_flows *f, uint32_t lookups, uint32_t hits)
{
	__atomic_store_n(&f->lookups, f->lookups + lookups, __ATOMIC_RELAXED);
	__atomic_store_n(&f->hits, f->hits + hits, __ATOMIC_RELAXED);
	if (f->resting > 0) {
		f->resting -= RTE_MIN(f->resting, lookups);
		return;
	}
	f->window_lookups += lookups;
	f->window_hits += hits;
	if (f->window_lookups < LK_FLOW_WINDOW)
		return;
	if (f->window_hits < f->window_lookups / 4)
		__atomic_store_n(&f->resting, LK_FLOW_REST, __ATOMIC_RELAXED);
	f->window_lookups = 0;
	f->window_hits = 0;
}

/* The key as two overlapping 64-bit words (bytes 0-7 and 6-13): hashed and compared whole. */
static inline void
lk_flow_words(const struct sp_key *k, uint64_t w[2])
{
	RTE_BUILD_BUG_ON(SP_KEY_BYTES != 14);
	memcpy(&w[0], &k->b[0], sizeof(w[0]));
	memcpy(&w[1], &k->b[6], sizeof(w[1]));
}

static inline uint32_t
lk_flow_hash(const uint64_t w[2])
{
	return rte_hash_crc_8byte(w[1], rte_hash_crc_8byte(w[0], 0));
}

/* The key's set: LK_FLOW_WAYS entries. */
static inline struct lk_flow *
lk_flow_set(struct lk_flows *f, uint32_t h)
{
	return &f->e[(h & (LK_FLOWS / LK_FLOW_WAYS - 1)) * LK_FLOW_WAYS];
}

static inline bool
lk_flow_holds(const struct lk_flow *e, uint64_t epoch, const uint64_t w[2])
{
	uint64_t ew[2];

	lk_flow_words(&e->key, ew);
	return e->epoch == epoch && ew[0] == w[0] && ew[1] == w[1];
}

/* The entry of the set that holds the key for the view of epoch, or NULL. */
static inline const struct lk_flow *
lk_flow_find(const struct lk_flow *set, uint64_t epoch, const uint64_t w[2])
{
	for (unsigned int i = 0; i < LK_FLOW_WAYS; i++)
		if (lk_flow_holds(&set[i], epoch, w))
			return &set[i];
	return NULL;
}

/*
 * The entry of the set a new answer takes: one of an older view (or empty),
 * else one the key's hash picks (its top bits, which the set did not use).
 */
static inline struct lk_flow *
lk_flow_victim(struct lk_flow *set, uint64_t epoch, uint32_t h)
{
	for (unsigned int i = 0; i < LK_FLOW_WAYS; i++)
		if (set[i].epoch != epoch)
			return &set[i];
	return &set[h >> 30 & (LK_FLOW_WAYS - 1)];
}

#endif
