/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Changes since a slice's base was compiled, searched beside it so that a
 * write is visible as soon as it returns.
 *
 * A write or delete at a position the base holds makes the base's filter
 * there stale: a key whose first match in the compiled classifier (the
 * tree, or rte_acl) is stale needs the next live match, which the
 * classifier cannot give. So a stale compiled filter s "promotes" the later
 * compiled filters that overlap it, up to and including the first that
 * covers it: their copies join the changes. The first live match of a key
 * is then the lowest of: the classifier's (if not stale), the first live
 * one among the odd filters (base.h) scanned in order, and the first among
 * the changes. (If that covering filter is itself stale, it promotes its
 * own successors; by induction on position every successor a key could
 * need is there.) Copies are reference-counted by the stale filters that
 * promoted them.
 *
 * A copy can only be a key's first match when the classifier's answer is
 * stale (otherwise that answer comes first), so lookups search the copies
 * only then, and there can be many more copies than writes.
 *
 * The writer's change set (struct lk_changes) becomes an immutable view
 * (struct lk_view) for the lookups: the writes and holes, and apart the
 * copies as base indexes, each sorted by position.
 */
#ifndef SP_LOOKUP_CHANGES_H
#define SP_LOOKUP_CHANGES_H

#include <stdint.h>
#include <stdlib.h>

#include "base.h"
#include "bits.h"

/*
 * Writes and holes a view holds beside its base: each costs a masked
 * compare on lookups that reach it. Copies cost only the lookups of keys
 * whose rte_acl answer is stale. A write that would need more waits for
 * the next compile.
 */
#define LK_WRITES_MAX 128
#define LK_COPIES_MAX 4096

/* The writer's state of one position. */
struct lk_slot {
	struct lk_filter f;
	struct sp_result res;
	bool used;
	uint64_t hits_zero; /* the position's hit counter when this filter was written */
};

enum lk_kind {
	LK_WRITE, /* a filter the base does not hold at this position */
	LK_HOLE,  /* the base's filter here was deleted */
	LK_COPY,  /* the base's filter, promoted by a stale one */
};

struct lk_dent {
	struct lk_filter f; /* unused for LK_HOLE */
	struct sp_result res;
	uint32_t pos;
	uint32_t kind;
};

/*
 * What the lookups of a slice see: immutable once published. The copies'
 * filters are held in the view, in a row: a key whose first match went
 * stale scans them, and reading each from the base cost a cache miss
 * (bursts of 32 such keys took 2.5 ms on fw1_10K, 12 ms on fw1_100k).
 */
struct lk_view {
	uint64_t epoch; /* unique to this view among all tables' (flows.h) */
	struct lk_base *base;
	uint32_t nb_copies;
	uint32_t *copies;          /* base indexes, ascending (stored after copy_f) */
	struct lk_filter *copy_f;  /* their filters (stored after d) */
	uint32_t n;
	struct lk_dent d[]; /* writes and holes, ascending positions */
};

/* A filter a stale one promoted: its position, and its index in the base. */
struct lk_prom {
	uint32_t pos;
	uint32_t idx;
};

struct lk_change {
	uint32_t pos;
	enum lk_kind kind;
	uint32_t refs;    /* stale filters whose promoted list holds pos */
	uint32_t idx;     /* LK_COPY: the filter's index in the base */
	uint32_t nb_prom; /* when stale: what it promoted */
	struct lk_prom *prom;
};

struct lk_changes {
	uint32_t n;
	uint32_t nb_copies; /* of the n, LK_COPY ones */
	struct lk_change c[LK_WRITES_MAX + LK_COPIES_MAX]; /* ascending positions */
};

struct lk_changes *lk_changes_new(void);
void lk_changes_free(struct lk_changes *c);

/*
 * Make c, relative to base b, agree with truth[pos]. 0, -ENOSPC if the
 * changes would exceed LK_WRITES_MAX or LK_COPIES_MAX, -ENOMEM; c is
 * unchanged on error.
 */
int lk_changes_set(struct lk_changes *c, const struct lk_base *b, const struct lk_slot *truth,
		   uint32_t pos);

/*
 * The view of base b with changes c (NULL: no memory). In the C heap, not
 * DPDK's: the writer makes and frees one a write, and DPDK's heap lock is
 * also the compiler's, which zeroes megabytes under it when it frees a base
 * (a writer waited up to 3 ms for it on the 2-vCPU VM).
 */
struct lk_view *lk_view_make(struct lk_base *b, const struct lk_changes *c,
			     const struct lk_slot *truth);
static inline void
lk_view_free(struct lk_view *v)
{
	free(v);
}

#endif
