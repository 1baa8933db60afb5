/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A base: one slice's filters compiled for lookups, immutable once built.
 * Filters are held by index, in position order.
 *
 * The filters whose mask is a prefix within each field (bytes 0-3, 4-7,
 * 8-9, 10-11, 12, 13: addresses, ports, protocol, exact keys) are compiled
 * into the slice's decision tree (tree.h), or, where the form asks, into
 * rte_acl (acl.h); the code calls them the compiled ("acl") filters either
 * way. Filters with other masks (arbitrary bits, which make any cut or
 * trie explode) are scanned in order beside them: the first match is the
 * lower index of the two answers.
 */
#ifndef SP_LOOKUP_BASE_H
#define SP_LOOKUP_BASE_H

#include <stdbool.h>
#include <stdint.h>

#include "acl.h"
#include "bits.h"
#include "lookup.h"
#include "tree.h"

#define LK_NONE UINT32_MAX
#define LK_BURST 64
/*
 * Tables this small are scanned, not compiled: a masked compare per filter
 * costs less than rte_acl's walk, which has a floor of some 30 ns a key,
 * and than the tree's (some 180 instructions a key for a tree of one leaf
 * of one filter: the key's conversion, the walk's set-up, the leaf's
 * vector compare, the answer's bookkeeping); their lookups skip the flow
 * cache too, whose probe costs more than such a scan.
 */
#define LK_SCAN_ONLY 8

/* What a lookup that ends on a filter reads: one place. */
struct lk_entry {
	struct sp_result res;
	uint32_t pos;
};

/*
 * A filter of rte_acl's: its index, and the lowest value of key bytes 8-11
 * it matches (big-endian), by which lookups find a group's member.
 */
struct lk_member {
	uint32_t lo;
	uint32_t idx;
};

struct lk_base {
	uint32_t n;             /* filters */
	struct lk_entry *ent;   /* by index, positions ascending */
	struct lk_filter *filt; /* by index */
	/* The filters rte_acl takes, by rank among them, and how. */
	uint64_t *acl_bits; /* by index: is it one of them */
	uint32_t nb_acl;
	struct lk_member *mem;
	struct lk_acl acl;
	struct lk_tree *tree; /* instead of acl, unless the form asks for rte_acl */
	/* The tree's filters' distinct results: a slice has few (its queues, next hops). */
	struct sp_result *results;
	uint32_t nb_results;
	/*
	 * By index, for the writer only (changes.c): the first byte of each
	 * address and of its mask, an overlap test of one word before the
	 * whole filter's, so that a pass over 100K filters reads 4 bytes of
	 * each rather than 32 (malloc'd).
	 */
	uint32_t *sig;
	/* The others, scanned in order. */
	uint32_t nb_odd;
	uint32_t *odd_idx;
	struct lk_filter *odd_filt;
};

/*
 * An empty base of room for n filters, to be filled in position order and
 * then compiled. NULL on allocation failure.
 */
struct lk_base *lk_base_alloc(uint32_t n, int socket);
/* Compile the filled base: 0 or a negative errno (the base stays unusable). */
int lk_base_compile(struct lk_base *b, enum sp_lookup_form form, int socket);
void lk_base_free(struct lk_base *b);

/* Index of the filter at position pos, or LK_NONE. */
uint32_t lk_base_find(const struct lk_base *b, uint32_t pos);

/*
 * For each of the n <= LK_BURST keys: the first filter of its base's tree
 * (or rte_acl's) that matches it, bases[i] (NULL: none): its position (pos
 * LK_NONE for none) and result. The keys of bases with a tree walk them
 * together whatever their base. The odd filters are the caller's to scan.
 */
void lk_base_classify(const struct lk_base *const *bases, const uint8_t *const *keys,
		      struct lk_tree_hit *hits, uint32_t n);

/*
 * The result of a hit lk_base_classify() gave: among the distinct ones,
 * or (past their 16-bit index, or from rte_acl) the filter's own.
 */
static inline const struct sp_result *
lk_base_result(const struct lk_base *b, const struct lk_tree_hit *h)
{
	return h->res != LK_TREE_RES_NONE ? &b->results[h->res] : &b->ent[lk_base_find(b, h->pos)].res;
}

/* The base is small enough to be scanned: all its filters are odd ones. */
static inline bool
lk_base_scanned(const struct lk_base *b)
{
	return b->n <= LK_SCAN_ONLY;
}

/* The first odd filter matching k, in order: its index, or LK_NONE. */
static inline uint32_t
lk_base_scan(const struct lk_base *b, const struct lk_bits *k)
{
	for (uint32_t i = 0; i < b->nb_odd; i++)
		if (lk_match(&b->odd_filt[i], k))
			return b->odd_idx[i];
	return LK_NONE;
}

/* What lookups read of the tree: nodes, leaves, distinct results (rte_acl's: 0, not told). */
size_t lk_base_classifier_bytes(const struct lk_base *b);

/* The overlap test of two filters' sig words: false only if they cannot overlap. */
static inline bool
lk_base_sig_overlap(uint32_t a, uint32_t b)
{
	return ((a ^ b) & (a & b) >> 16 & 0xffff) == 0;
}

/* Filter idx is one rte_acl holds (not an odd one). */
static inline bool
lk_base_in_acl(const struct lk_base *b, uint32_t idx)
{
	return (b->acl_bits[idx / 64] >> (idx % 64)) & 1;
}

#endif
