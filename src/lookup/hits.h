/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-position hit counters. The lookup lcore adds to 32-bit counters: half
 * the bytes of 64-bit ones in the lines a lookup touches (4 of the bytes a
 * filter the fast path reads). The writer's side folds them into 64-bit
 * totals every LK_HITS_FOLD_NS, long before one can wrap: a counter gains
 * at most one a lookup, and an lcore does fewer than 2^32 lookups in 40 s.
 */
#ifndef SP_LOOKUP_HITS_H
#define SP_LOOKUP_HITS_H

#include <stdint.h>

#define LK_HITS_FOLD_NS (1000 * 1000 * 1000ull)

struct lk_hits {
	uint32_t *count;  /* by position, written by the lookup lcore only */
	/* The writer's, under the table's lock: */
	uint64_t *total;  /* by position: the hits counted up to the last fold */
	uint32_t *seen;   /* by position: count at the last fold */
	uint32_t n;
};

/* Room for n positions, all zero: 0 or -ENOMEM (nothing to free then). */
int lk_hits_init(struct lk_hits *h, uint32_t n, int socket);
void lk_hits_free(struct lk_hits *h);
/* Take what the lcore counted since the last fold into the totals. */
void lk_hits_fold(struct lk_hits *h);
/* The position's hits so far. */
uint64_t lk_hits_now(const struct lk_hits *h, uint32_t pos);

#endif
