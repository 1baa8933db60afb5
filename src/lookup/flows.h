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
 * Whether the cache pays depends on the traffic (do flows come back while
 * their entries last?) and on what a hit saves: a few nanoseconds for a
 * small table the caches hold, hundreds for tries they do not. A fixed hit
 * rate cannot tell those apart, so the cache times itself: after each
 * period of LK_FLOW_PERIOD lookups in the mode it chose, it takes
 * LK_FLOW_PROBE lookups with the cache (refilling it) and LK_FLOW_PROBE
 * with it (timed), then LK_FLOW_PROBE without it (timed), and keeps for
 * the next period whichever cost fewer TSC cycles a lookup.
 */
#ifndef SP_LOOKUP_FLOWS_H
#define SP_LOOKUP_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include "bits.h"
#include "lookup.h"

/* Entries a slice, in sets of LK_FLOW_WAYS (a power of two): 64 KiB. */
#define LK_FLOWS 1024
#define LK_FLOW_WAYS 2
#define LK_FLOW_PERIOD 262144
#define LK_FLOW_PROBE 256

/* A key as the cache hashes and compares it: its bytes in 64-bit words (lk_flow_words()). */
#define LK_FLOW_WORDS LK_WORDS

struct lk_flow {
	uint64_t epoch; /* of the view whose answer this is; 0: empty */
	uint64_t key[LK_FLOW_WORDS];
	uint32_t pos; /* SP_LOOKUP_MISS: no filter matches */
	struct sp_result res;
} __rte_cache_aligned;

/* What a slice's lookups do with the cache now; zero (a new slice) ends a period at once. */
enum lk_flow_phase {
	LK_FLOW_RUN,      /* the mode chosen (off: without the cache) */
	LK_FLOW_WARM,     /* with, refilling it */
	LK_FLOW_TIME_ON,  /* with, timed */
	LK_FLOW_TIME_OFF, /* without, timed */
};

struct lk_flows {
	uint64_t lookups, hits; /* all along, for sp_lookup_info() (read by other threads) */
	bool off;               /* the period runs without the cache (read likewise) */
	uint8_t phase;          /* enum lk_flow_phase */
	uint32_t left;          /* lookups left in the phase */
	uint64_t cycles[2];     /* TSC cycles timed without [0] and with [1] the cache */
	uint32_t timed[2];      /* lookups timed likewise */
	struct lk_flow e[LK_FLOWS] __rte_cache_aligned;
};

/* Whether the next burst uses the cache; *timed: whether to time it. */
static inline bool
lk_flows_use(const struct lk_flows *f, bool *timed)
{
	*timed = f->phase == LK_FLOW_TIME_ON || f->phase == LK_FLOW_TIME_OFF;
	if (f->phase == LK_FLOW_RUN)
		return !f->off;
	return f->phase != LK_FLOW_TIME_OFF;
}

/* With the cache (true) or without: whichever took fewer cycles a lookup (a tie: with). */
static inline bool
lk_flows_choose(const uint64_t cycles[2], const uint32_t timed[2])
{
	return cycles[1] * timed[0] <= cycles[0] * timed[1];
}

/*
 * Count a burst of n lookups, hits of them answered by the cache, that took
 * cycles if it was timed, used (or not) the cache; move to the next phase
 * when this one is done.
 */
static inline void
lk_flows_count(struct lk_flows *f, uint32_t n, uint32_t hits, bool used, bool timed,
	       uint64_t cycles)
{
	__atomic_store_n(&f->lookups, f->lookups + n, __ATOMIC_RELAXED);
	__atomic_store_n(&f->hits, f->hits + hits, __ATOMIC_RELAXED);
	if (timed) {
		f->cycles[used] += cycles;
		f->timed[used] += n;
	}
	if (f->left > n) {
		f->left -= n;
		return;
	}
	f->left = LK_FLOW_PROBE;
	switch (f->phase) {
	case LK_FLOW_RUN:
		f->phase = LK_FLOW_WARM;
		break;
	case LK_FLOW_WARM:
		memset(f->cycles, 0, sizeof(f->cycles));
		memset(f->timed, 0, sizeof(f->timed));
		f->phase = LK_FLOW_TIME_ON;
		break;
	case LK_FLOW_TIME_ON:
		f->phase = LK_FLOW_TIME_OFF;
		break;
	default:
		__atomic_store_n(&f->off, !lk_flows_choose(f->cycles, f->timed), __ATOMIC_RELAXED);
		f->phase = LK_FLOW_RUN;
		f->left = LK_FLOW_PERIOD;
		break;
	}
}

/*
 * The key as 64-bit words, hashed and compared whole: at 14 bytes two that
 * overlap (bytes 0-7 and 6-13), two loads; wider, its bytes in turn.
 */
static inline void
lk_flow_words(const struct sp_key *k, uint64_t w[LK_FLOW_WORDS])
{
#if LK_KEY_BYTES == 14
	memcpy(&w[0], &k->b[0], sizeof(w[0]));
	memcpy(&w[1], &k->b[6], sizeof(w[1]));
#else
	RTE_BUILD_BUG_ON(LK_KEY_BYTES % 8 != 0);
	memcpy(w, k->b, LK_KEY_BYTES);
#endif
}

/*
 * CRC32-C of the words. Where the build's -march has the instruction
 * (DPDK's x86 default, corei7, does), it itself: rte_hash_crc_8byte() asks
 * at every call which one the CPU has.
 */
static inline uint32_t
lk_flow_hash(const uint64_t w[LK_FLOW_WORDS])
{
	uint32_t h = 0;

	for (unsigned int i = 0; i < LK_FLOW_WORDS; i++)
#ifdef __SSE4_2__
		h = (uint32_t)_mm_crc32_u64(h, w[i]);
#else
		h = rte_hash_crc_8byte(w[i], h);
#endif
	return h;
}

/* The key's set: LK_FLOW_WAYS entries. */
static inline struct lk_flow *
lk_flow_set(struct lk_flows *f, uint32_t h)
{
	return &f->e[(h & (LK_FLOWS / LK_FLOW_WAYS - 1)) * LK_FLOW_WAYS];
}

/* Compared as it goes: an entry of another view, or another key's, mostly differs at once. */
static inline bool
lk_flow_holds(const struct lk_flow *e, uint64_t epoch, const uint64_t w[LK_FLOW_WORDS])
{
	bool same = e->epoch == epoch;

	for (unsigned int i = 0; i < LK_FLOW_WORDS; i++)
		same = same && e->key[i] == w[i];
	return same;
}

/* The entry of the set that holds the key for the view of epoch, or NULL. */
static inline const struct lk_flow *
lk_flow_find(const struct lk_flow *set, uint64_t epoch, const uint64_t w[LK_FLOW_WORDS])
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
