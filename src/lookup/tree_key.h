/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to tree.c: the key as the tree sees it at the width this
 * instance is built for (width.h). The fields the nodes cut (LK_TREE_FIELDS,
 * big-endian, up to 4 bytes each), the two whose narrowness sorts boxes
 * into trees, a key's fields ready for the walk (struct tkey), and a leaf's
 * entry: a box as a lookup compares it, with its answer.
 *
 * 14 bytes (the ipv4 and i3 options): addresses, ports, protocol and a
 * byte. A 32-byte entry holds the box as ternary key and mask bytes, the
 * answer in the vectors' spare lanes: one 16-byte compare.
 *
 * 40 bytes (the ipv6 option: source and destination addresses, ports, next
 * header): eight address words, the ports, and the last word. Key and mask
 * bytes would take 80 bytes; a 64-byte entry holds each field's value and
 * how many low bits it leaves free (a box is a prefix in each field), so
 * that a filter costs the lookups at most twice what a 14-byte one does.
 * Compared in one 8-lane and one 4-lane variable shift (AVX2), or field by
 * field.
 */
#ifndef SP_LOOKUP_TREE_KEY_H
#define SP_LOOKUP_TREE_KEY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

#include "tree.h"

/*
 * Fields are FLIPped (the top bit of their 32 bits) in nodes and keys, so
 * that x86's signed compares order them as unsigned.
 */
#define FLIP 0x80000000u

/* The answer that ends a leaf scanned to its end: no position packs to it. */
#define ANSWER_END UINT32_MAX

/* The key bytes each field stands for. */
static const struct {
	uint8_t first, len;
} fields[LK_TREE_FIELDS] = {
#if LK_KEY_BYTES == 14
	{0, 4}, {4, 4}, {8, 2}, {10, 2}, {12, 1}, {13, 1}
#else
	{0, 4}, {4, 4}, {8, 4}, {12, 4}, {16, 4}, {20, 4}, {24, 4}, {28, 4}, {32, 2}, {34, 2}, {36, 4}
#endif
};

/*
 * The fields whose narrowness sorts boxes into trees (tree.c's group_of()):
 * the source's and destination's, where their prefixes end. At 40 bytes the
 * addresses' second words: a prefix of /48 or longer leaves at most 16 bits
 * free there.
 */
#if LK_KEY_BYTES == 14
#define GROUP_FIELD_A 0
#define GROUP_FIELD_B 1
#else
#define GROUP_FIELD_A 1
#define GROUP_FIELD_B 5
#endif

static inline uint32_t
field_of(const uint8_t *b, unsigned int f)
{
	uint32_t v = 0;

	for (unsigned int j = 0; j < fields[f].len; j++)
		v = v << 8 | b[fields[f].first + j];
	return v;
}

static inline uint32_t
field_max(unsigned int f)
{
	return (uint32_t)((1ull << (8 * fields[f].len)) - 1);
}

#if LK_KEY_BYTES == 14

#define KEY_LANES 16 /* a vector: the key's 14 bytes, then the answer's half */

struct lk_tleaf {
	uint8_t key[LK_KEY_BYTES];
	uint16_t answer_hi;
	uint8_t mask[LK_KEY_BYTES];
	uint16_t answer_lo;
};

/* A key: its fields for the nodes (FLIPped), and its bytes as a vector for the leaves. */
struct tkey {
	uint32_t v[LK_TREE_FIELDS];
	uint8_t b[KEY_LANES] __rte_aligned(KEY_LANES);
};

/* In place: a struct returned would be copied into the burst's array (three vectors' loads and stores). */
static inline void
tkey_fill(struct tkey *k, const uint8_t *b)
{
	uint32_t w0, w1;
	uint16_t h2, h3;

	memcpy(&w0, b, 4);
	memcpy(&w1, b + 4, 4);
	memcpy(&h2, b + 8, 2);
	memcpy(&h3, b + 10, 2);
	k->v[0] = rte_be_to_cpu_32(w0) ^ FLIP;
	k->v[1] = rte_be_to_cpu_32(w1) ^ FLIP;
	k->v[2] = rte_be_to_cpu_16(h2) ^ FLIP;
	k->v[3] = rte_be_to_cpu_16(h3) ^ FLIP;
	k->v[4] = b[12] ^ FLIP;
	k->v[5] = b[13] ^ FLIP;
	memcpy(k->b, b, LK_KEY_BYTES);
	memset(&k->b[LK_KEY_BYTES], 0, KEY_LANES - LK_KEY_BYTES);
}

static inline struct lk_tleaf
leaf_with_answer(uint32_t answer)
{
	return (struct lk_tleaf){.answer_hi = (uint16_t)(answer >> 16), .answer_lo = (uint16_t)answer};
}

static inline uint32_t
answer_of(const struct lk_tleaf *e)
{
	return (uint32_t)e->answer_hi << 16 | e->answer_lo;
}

/* The box's entry: a prefix interval [lo, hi] keeps the bits lo and hi share, frees the others. */
static inline struct lk_tleaf
leaf_entry_of(const struct lk_tree_box *b, uint32_t answer)
{
	struct lk_tleaf e = leaf_with_answer(answer);

	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++)
		for (unsigned int j = 0; j < fields[f].len; j++) {
			unsigned int shift = 8 * (fields[f].len - 1 - j);

			e.key[fields[f].first + j] = (uint8_t)(b->lo[f] >> shift);
			e.mask[fields[f].first + j] = (uint8_t)(~(b->lo[f] ^ b->hi[f]) >> shift);
		}
	return e;
}

/* Does the leaf entry hold the key: are the key's bits under the mask the entry's? */
static inline bool
leaf_holds(const struct lk_tleaf *e, const struct tkey *k)
{
#ifdef RTE_ARCH_X86
	/* The vectors' last two lanes are the answer's halves: left out of the compare. */
	const unsigned int key_lanes = (1u << LK_KEY_BYTES) - 1;
	__m128i d = _mm_and_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)e->key),
						_mm_load_si128((const __m128i *)k->b)),
				  _mm_loadu_si128((const __m128i *)e->mask));
	unsigned int same = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128()));

	return (same & key_lanes) == key_lanes;
#else
	unsigned int diff = 0;

	for (unsigned int j = 0; j < LK_KEY_BYTES; j++)
		diff |= (k->b[j] ^ e->key[j]) & e->mask[j];
	return diff == 0;
#endif
}

#ifdef RTE_ARCH_X86
/* One 16-byte compare is as fast as it gets: AVX2's walk takes it too. */
#define leaf_holds_avx2 leaf_holds
#endif

#else /* LK_KEY_BYTES == 40 */

#define TKEY_LANES 12 /* the fields, then a lane that always matches: 8 + 4 */

struct lk_tleaf {
	uint32_t val[TKEY_LANES]; /* each field's value, FLIPped as the key's */
	uint8_t free_bits[TKEY_LANES]; /* how many low bits of the field the box leaves free */
	uint32_t answer;
};

struct tkey {
	uint32_t v[TKEY_LANES]; /* FLIPped; the last lane 0 */
};

static inline void
tkey_fill(struct tkey *k, const uint8_t *b)
{
	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++)
		k->v[f] = field_of(b, f) ^ FLIP;
	k->v[TKEY_LANES - 1] = 0;
}

static inline struct lk_tleaf
leaf_with_answer(uint32_t answer)
{
	struct lk_tleaf e = {.answer = answer};

	/* No field compared: what lane 11 always is (32 free bits match anything). */
	memset(e.free_bits, 32, sizeof(e.free_bits));
	return e;
}

static inline uint32_t
answer_of(const struct lk_tleaf *e)
{
	return e->answer;
}

static inline struct lk_tleaf
leaf_entry_of(const struct lk_tree_box *b, uint32_t answer)
{
	struct lk_tleaf e = leaf_with_answer(answer);

	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++) {
		e.val[f] = b->lo[f] ^ FLIP;
		/* A prefix interval: lo and hi differ in exactly the free low bits. */
		e.free_bits[f] = (uint8_t)__builtin_popcount(b->lo[f] ^ b->hi[f]);
	}
	return e;
}

/* Does the entry hold the key: does each field agree above its free bits? */
static inline bool
leaf_holds(const struct lk_tleaf *e, const struct tkey *k)
{
	uint64_t diff = 0;

	for (unsigned int f = 0; f < LK_TREE_FIELDS; f++)
		diff |= (uint64_t)(k->v[f] ^ e->val[f]) >> e->free_bits[f];
	return diff == 0;
}

#ifdef RTE_ARCH_X86
/* The same in two variable shifts (a count of 32 shifts every bit out). */
static __rte_always_inline __attribute__((target("avx2"))) bool
leaf_holds_avx2(const struct lk_tleaf *e, const struct tkey *k)
{
	uint32_t hi_bits;
	__m256i lo = _mm256_srlv_epi32(
		_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)k->v),
				 _mm256_loadu_si256((const __m256i *)e->val)),
		_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)e->free_bits)));
	__m128i hi;

	memcpy(&hi_bits, &e->free_bits[8], sizeof(hi_bits));
	hi = _mm_srlv_epi32(_mm_xor_si128(_mm_loadu_si128((const __m128i *)&k->v[8]),
					  _mm_loadu_si128((const __m128i *)&e->val[8])),
			    _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)hi_bits)));
	return _mm256_testz_si256(lo, lo) & _mm_testz_si128(hi, hi);
}
#endif

#endif /* LK_KEY_BYTES */

#endif
