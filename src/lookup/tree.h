/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's filters as a decision tree (base.h): the filters whose mask is
 * a prefix within each field of the key (at 14 bytes 0-3, 4-7, 8-9, 10-11,
 * 12, 13: addresses, ports, protocol, for the ipv4 code option; at 40 the
 * addresses' eight words, the ports and the last word: tree_key.h) are
 * boxes in those fields. Each node cuts its part of the key space on one field
 * into up to LK_TREE_WAYS intervals (HyperSplit's balanced splits, several
 * at once so that a node is one cache line and the tree a few lines deep);
 * a leaf lists the few boxes that reach it, in position order, so the first
 * that holds a key is the slice's first match there. A box that spans
 * several intervals is in each of them; one shadowed within a node's part
 * by a box before it is dropped there.
 *
 * Built once, immutable after: lookups read it lock-free. Memory grows with
 * the slice's filters (tens of bytes a filter), so a round over many slices
 * meets trees that stay in the caches.
 */
#ifndef SP_LOOKUP_TREE_H
#define SP_LOOKUP_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "bits.h"

/* The fields of the key the nodes cut (tree_key.h): 14 bytes in 6, 40 in 11. */
#if LK_KEY_BYTES == 14
#define LK_TREE_FIELDS 6
#else
#define LK_TREE_FIELDS 11
#endif
#define LK_TREE_WAYS 8 /* children of a node: 7 thresholds and 8 references in 64 bytes */

/*
 * A filter as the tree holds it: its interval in each field, its position
 * (the base orders its filters by it, and so does the tree), and the index
 * of its result among the base's (LK_TREE_RES_NONE: the base finds it).
 */
struct lk_tree_box {
	uint32_t lo[LK_TREE_FIELDS];
	uint32_t hi[LK_TREE_FIELDS];
	uint32_t pos;
	uint16_t res;
};

#define LK_TREE_RES_NONE UINT16_MAX

/* A lookup's answer, read from the leaf (in the L1 cache by then): pos LK_NONE for none. */
struct lk_tree_hit {
	uint32_t pos;
	uint16_t res;
};

struct lk_tree;

/* Can the tree hold the filter: is its mask a prefix within each field? */
bool lk_tree_takes(const struct lk_filter *f);
/* The filter's box (lk_tree_takes() true), at position pos (res left 0). */
struct lk_tree_box lk_tree_box_of(const struct lk_filter *f, uint32_t pos);

/*
 * A tree over n boxes given in ascending position order. NULL with rte_errno
 * (ENOMEM) on failure; an empty tree for n == 0.
 */
struct lk_tree *lk_tree_build(const struct lk_tree_box *boxes, uint32_t n, int socket);
void lk_tree_free(struct lk_tree *t);

/*
 * hits[i]: the box of trees[i] of the lowest position holding the
 * LK_KEY_BYTES key bytes at keys[i] (pos LK_NONE if none), n <= LK_BURST. The keys walk
 * their trees together, a level at a time, each key's next line prefetched
 * while the others take their step.
 */
void lk_tree_classify(const struct lk_tree *const *trees, const uint8_t *const *keys,
		      struct lk_tree_hit *hits, uint32_t n);

/*
 * Which walk lk_tree_classify() takes from now on: AVX2's node compare where
 * the CPU has it and DPDK's SIMD width (--force-max-simd-bitwidth) allows
 * 256 bits, else SSE (x86) or the portable one. Called as a table is
 * created, after the EAL has read its options; the answers are the same.
 */
void lk_tree_choose_path(void);
/* That walk: "tree-avx2", "tree-sse" or "tree-scalar" (sp_lookup_info's classifier). */
const char *lk_tree_method(void);

/*
 * One key's walk as lk_tree_classify() makes it, counted into w (the trees,
 * trees read, levels, entries and leaf lines of struct sp_lookup_walk):
 * for the profile, not the fast path. Returns the position found, or LK_NONE.
 */
struct sp_lookup_walk;
uint32_t lk_tree_walk(const struct lk_tree *t, const uint8_t *key, struct sp_lookup_walk *w);

/* What lookups read: nodes and leaves. */
size_t lk_tree_bytes(const struct lk_tree *t);
/* Leaf entries (boxes, copies included). */
uint32_t lk_tree_entries(const struct lk_tree *t);

#endif
