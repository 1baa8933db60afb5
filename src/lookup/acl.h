/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A base's filters of rte_acl's (base.h) as rte_acl contexts, in one of
 * two forms:
 *   ternary  one rule per filter, every field a bitmask;
 *   ranges   consecutive filters that differ only in bytes 8-11 and tile a
 *            box there (a rule's port ranges, expanded to prefixes and
 *            written in order) merged into one rule with two 16-bit range
 *            fields; lookups then find the member whose box holds the key.
 * rte_acl is faster on the merged rules only where merging removes most of
 * them (large firewall sets), so the base builds both forms there and keeps
 * the faster on its own filters.
 */
#ifndef SP_LOOKUP_ACL_H
#define SP_LOOKUP_ACL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "bits.h"

struct lk_base;
struct rte_acl_ctx;

struct lk_acl {
	bool ranges;
	uint32_t nb_groups;    /* rte_acl rules */
	uint32_t *group_first; /* nb_groups + 1 ranks: group g is [first[g], first[g + 1]) */
	/*
	 * rte_acl may give up on a large set (too many tries): the groups are
	 * then split in halves, each its own context, searched in order until
	 * one matches.
	 */
	uint32_t nb_ctx;
	struct rte_acl_ctx **ctx;
};

#if LK_KEY_BYTES == 14

/* Is the filter's mask a prefix within each of rte_acl's fields? */
bool lk_acl_takes(const struct lk_filter *f);
/* The lowest value of key bytes 8-11 (big-endian) a filter it takes matches. */
uint32_t lk_acl_ports_lo(const struct lk_filter *f);

/* Build a of the base's filters of rte_acl's: 0 or -errno (then free a). */
int lk_acl_build(const struct lk_base *b, struct lk_acl *a, bool ranges, int socket);
void lk_acl_free(struct lk_acl *a);
/* Does grouping for the ranges form remove at least half the rules? */
bool lk_acl_ranges_pay(const struct lk_base *b);

/*
 * idx[i]: index of the first filter of a's matching the 14 key bytes at
 * keys[i], or LK_NONE. n <= LK_BURST.
 */
void lk_acl_classify(const struct lk_base *b, const struct lk_acl *a, const uint8_t *const *keys,
		     uint32_t *idx, uint32_t n);

/* Which rte_acl classify method the contexts use. */
const char *lk_acl_method(void);

#else

/*
 * rte_acl's forms are laid out for 14-byte keys (their fields are the ipv4
 * option's): a wider table has the tree (sp_lookup_create() refuses the
 * other forms), rte_acl holds none of its filters and is never asked.
 */
static inline bool
lk_acl_takes(const struct lk_filter *f)
{
	(void)f;
	return false;
}

static inline uint32_t
lk_acl_ports_lo(const struct lk_filter *f)
{
	(void)f;
	return 0;
}

static inline int
lk_acl_build(const struct lk_base *b, struct lk_acl *a, bool ranges, int socket)
{
	(void)b, (void)a, (void)ranges, (void)socket;
	return -ENOTSUP;
}

static inline void
lk_acl_free(struct lk_acl *a)
{
	(void)a;
}

static inline bool
lk_acl_ranges_pay(const struct lk_base *b)
{
	(void)b;
	return false;
}

static inline void
lk_acl_classify(const struct lk_base *b, const struct lk_acl *a, const uint8_t *const *keys,
		uint32_t *idx, uint32_t n)
{
	(void)b, (void)a, (void)keys, (void)idx, (void)n;
}

static inline const char *
lk_acl_method(void)
{
	return "none";
}

#endif

#endif
