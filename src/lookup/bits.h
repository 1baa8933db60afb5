/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keys and filters as the engine holds them: the key's LK_KEY_BYTES bytes
 * in 64-bit words, zero past them. Masked compares then cost a few 64-bit
 * operations. The engine is built at one key width: SP_KEY_BYTES (14, the
 * ipv4 and i3 code options') unless the build says otherwise
 * (-DLK_KEY_BYTES=40: width.h names that instance's functions apart), so
 * that a 14-byte slice pays nothing for wider keys. At 14 bytes, two words
 * whose last two bytes are zero: rte_acl may read whole 4-byte groups up
 * to byte 15.
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

#include "width.h"

#define LK_WORDS ((LK_KEY_BYTES + 7) / 8)
#define LK_BYTES (8 * LK_WORDS)

struct lk_bits {
	union {
		uint64_t w[LK_WORDS];
		uint8_t b[LK_BYTES];
	};
};

struct lk_filter {
	struct lk_bits key; /* stored masked */
	struct lk_bits mask;
};

static inline struct lk_bits
lk_bits_of(const struct sp_key *k)
{
	struct lk_bits v;
#if LK_KEY_BYTES == 14
	/*
	 * Two 8-byte loads (bytes 0-7 and 6-13) and two 8-byte stores: building
	 * the word pair byte-wise and reading it back whole stalls on store
	 * forwarding.
	 */
	uint64_t hi;

	memcpy(&v.w[0], k->b, sizeof(v.w[0]));
	memcpy(&hi, k->b + 6, sizeof(hi));
	v.w[1] = rte_cpu_to_le_64(rte_le_to_cpu_64(hi) >> 16); /* bytes 8-13, then two zeros */
#else
	RTE_BUILD_BUG_ON(LK_KEY_BYTES > (int)sizeof(k->b));
	memset(&v, 0, sizeof(v));
	memcpy(v.b, k->b, LK_KEY_BYTES);
#endif
	return v;
}

static inline struct lk_filter
lk_filter_of(const struct sp_key *key, const struct sp_key *mask)
{
	struct lk_filter f = {.key = lk_bits_of(key), .mask = lk_bits_of(mask)};

	for (unsigned int w = 0; w < LK_WORDS; w++)
		f.key.w[w] &= f.mask.w[w];
	return f;
}

static inline bool
lk_match(const struct lk_filter *f, const struct lk_bits *k)
{
	uint64_t diff = 0;

	for (unsigned int w = 0; w < LK_WORDS; w++)
		diff |= (k->w[w] & f->mask.w[w]) ^ f->key.w[w];
	return diff == 0;
}

/* Some key matches both. */
static inline bool
lk_overlap(const struct lk_filter *a, const struct lk_filter *b)
{
	uint64_t diff = 0;

	for (unsigned int w = 0; w < LK_WORDS; w++)
		diff |= (a->key.w[w] ^ b->key.w[w]) & a->mask.w[w] & b->mask.w[w];
	return diff == 0;
}

/* Every key that matches inner matches outer. */
static inline bool
lk_covers(const struct lk_filter *outer, const struct lk_filter *inner)
{
	uint64_t diff = 0;

	for (unsigned int w = 0; w < LK_WORDS; w++)
		diff |= (outer->mask.w[w] & ~inner->mask.w[w]) |
			((outer->key.w[w] ^ inner->key.w[w]) & outer->mask.w[w]);
	return diff == 0;
}

/* The keys matching both a and b, which overlap. */
static inline struct lk_filter
lk_intersect(const struct lk_filter *a, const struct lk_filter *b)
{
	struct lk_filter x;

	for (unsigned int w = 0; w < LK_WORDS; w++) {
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
