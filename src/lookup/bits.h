/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keys and filters as the engine holds them: the 14 key bytes in a 16-byte
 * word pair, the last two bytes zero. Masked compares then cost two 64-bit
 * operations, and rte_acl may read whole 4-byte groups up to byte 15.
 */
#ifndef SP_LOOKUP_BITS_H
#define SP_LOOKUP_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include <slicepath/codeopt.h>

#define LK_BYTES 16

struct lk_bits {
	union {
		uint64_t w[2];
		uint8_t b[LK_BYTES];
	};
};

struct lk_filter {
	struct lk_bits key; /* stored masked */
	struct lk_bits mask;
};

/*
 * Two 8-byte loads (bytes 0-7 and 6-13) and two 8-byte stores: building the
 * word pair byte-wise and reading it back whole stalls on store forwarding.
 */
static inline struct lk_bits
lk_bits_of(const struct sp_key *k)
{
	struct lk_bits v;
	uint64_t hi;

	RTE_BUILD_BUG_ON(SP_KEY_BYTES != 14);
	memcpy(&v.w[0], k->b, sizeof(v.w[0]));
	memcpy(&hi, k->b + 6, sizeof(hi));
	v.w[1] = rte_cpu_to_le_64(rte_le_to_cpu_64(hi) >> 16); /* bytes 8-13, then two zeros */
	return v;
}

static inline struct lk_filter
lk_filter_of(const struct sp_key *key, const struct sp_key *mask)
{
	struct lk_filter f = {.key = lk_bits_of(key), .mask = lk_bits_of(mask)};

	f.key.w[0] &= f.mask.w[0];
	f.key.w[1] &= f.mask.w[1];
	return f;
}

static inline bool
lk_match(const struct lk_filter *f, const struct lk_bits *k)
{
	return ((k->w[0] & f->mask.w[0]) == f->key.w[0]) &
	       ((k->w[1] & f->mask.w[1]) == f->key.w[1]);
}

/* Some key matches both. */
static inline bool
lk_overlap(const struct lk_filter *a, const struct lk_filter *b)
{
	return (((a->key.w[0] ^ b->key.w[0]) & a->mask.w[0] & b->mask.w[0]) |
		((a->key.w[1] ^ b->key.w[1]) & a->mask.w[1] & b->mask.w[1])) == 0;
}

/* Every key that matches inner matches outer. */
static inline bool
lk_covers(const struct lk_filter *outer, const struct lk_filter *inner)
{
	return ((outer->mask.w[0] & ~inner->mask.w[0]) | (outer->mask.w[1] & ~inner->mask.w[1]) |
		((outer->key.w[0] ^ inner->key.w[0]) & outer->mask.w[0]) |
		((outer->key.w[1] ^ inner->key.w[1]) & outer->mask.w[1])) == 0;
}

/* The keys matching both a and b, which overlap. */
static inline struct lk_filter
lk_intersect(const struct lk_filter *a, const struct lk_filter *b)
{
	struct lk_filter x;
	unsigned int w;

	for (w = 0; w < 2; w++) {
		x.mask.w[w] = a->mask.w[w] | b->mask.w[w];
		x.key.w[w] = a->key.w[w] | b->key.w[w];
	}
	return x;
}

static inline bool
lk_filter_equal(const struct lk_filter *a, const struct lk_filter *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/*
 * Index of the first of n records sorted by position whose position is >=
 * pos: the base's entries, the changes and a view's writes all keep one.
 */
#define LK_LOWER_BOUND(recs, n, field, pos)                                                        \
	lk_lower_bound((recs), (n), sizeof(*(recs)), offsetof(__typeof__(*(recs)), field), (pos))

static inline uint32_t
lk_lower_bound(const void *recs, uint32_t n, size_t stride, size_t off, uint32_t pos)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t at;

		memcpy(&at, (const uint8_t *)recs + (size_t)mid * stride + off, sizeof(at));
		if (at < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
