/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ternary filter table of one NPE (SPP's TCAM): 112-bit key + 112-bit mask
 * per filter, a private table per slice (the slice id is a hidden part of
 * the key), first match by slice-relative position. A write to an occupied
 * position replaces the filter there, as a TCAM write would.
 *
 * Engine (docs/lookup.md): per slice, the filters compiled into a decision
 * tree (tree.h) by a compiler thread of the table's own, plus the changes
 * made since, searched beside it; the compiler folds changes in when writes
 * pause or the changes grow; in front of both, a flow cache of the slice's
 * recent answers by exact key (flows.h). A write is visible to lookups when
 * it returns; a _nowait write, when sp_lookup_finish() says so, its thread
 * never waiting for a compile.
 *
 * Threads: one writer thread calls create/slice/write/delete (read, next
 * and info may come from any thread); one lookup lcore (the NPE's) calls
 * sp_lookup_bulk(). Lookups never wait: a writer or the compiler publishes
 * a new view of a slice with one atomic store and frees the old one only
 * after every lookup lcore has passed a quiescent state (rte_rcu_qsbr), so
 * writes return after the lookup lcore's current burst. Deleting a slice
 * never waits for its compile either. Never call a write from a thread that
 * is an online RCU reader of the same qsbr.
 */
#ifndef SP_LOOKUP_H
#define SP_LOOKUP_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include <slicepath/codeopt.h>

#include "../common/limits.h"
#include "width.h"

#define SP_LOOKUP_MISS UINT32_MAX
#define SP_LOOKUP_DEFAULT_CAPACITY SP_DEFAULT_NPE_FILTERS

struct sp_lookup;

/* How a slice's filters are compiled (docs/lookup.md). */
enum sp_lookup_form {
	SP_LOOKUP_FORM_AUTO = 0, /* the decision tree */
	SP_LOOKUP_FORM_TERNARY,  /* rte_acl, one rule per filter */
	SP_LOOKUP_FORM_RANGES,   /* rte_acl, port prefixes merged back into ranges */
	SP_LOOKUP_FORM_TREE,     /* the decision tree (tree.h) */
};

struct sp_lookup_params {
	const char *name;
	uint32_t capacity;        /* filters across all slices of this NPE */
	uint16_t max_slices;      /* slice ids are < max_slices */
	int socket;
	/* Lookup lcores report quiescent states here. NULL: lookups come from
	 * the writer's thread only, and changes are compiled in only when a
	 * write needs it. */
	struct rte_rcu_qsbr *qsbr;
	enum sp_lookup_form form;
};

struct sp_filter {
	struct sp_key key;
	struct sp_key mask; /* 1 bits must match, 0 bits are "don't care" */
	struct sp_result result;
};

/* NULL with rte_errno set on failure. */
struct sp_lookup *sp_lookup_create(const struct sp_lookup_params *p);
void sp_lookup_free(struct sp_lookup *t);

/* Give a slice a private table of quota positions. -EEXIST, -EINVAL (id or
 * quota 0), -ENOSPC (capacity left is smaller than quota: nothing changes). */
int sp_lookup_slice_add(struct sp_lookup *t, uint16_t slice, uint32_t quota);
int sp_lookup_slice_del(struct sp_lookup *t, uint16_t slice);

/* -ENOENT unknown slice, -ERANGE position >= quota. Key bits outside the
 * mask are ignored (stored masked). Resets the position's hit counter. A
 * write that does not fit beside the compiled filters waits for a compile
 * (milliseconds for a thousand filters, a fraction of a second for 100K,
 * and a slice compiles at most a twentieth of the time); -ENOMEM if that
 * compile fails, the write then being kept and shown by a later compile. */
int sp_lookup_write(struct sp_lookup *t, uint16_t slice, uint32_t pos, const struct sp_filter *f);
/* n writes, in order, visible together and at the cost of one compile at
 * most: for loading many filters. Errors as for one write; on -ERANGE or
 * -ENOENT nothing is written. */
int sp_lookup_write_bulk(struct sp_lookup *t, uint16_t slice, const uint32_t *pos,
			 const struct sp_filter *f, uint32_t n);
/* -ENOENT unknown slice or empty position, -ERANGE position >= quota. */
int sp_lookup_delete(struct sp_lookup *t, uint16_t slice, uint32_t pos);

/*
 * The same writes for a thread that must not wait for a compile (the
 * management thread, which also answers ARP and other clients): 0 when
 * visible, as above, or -EINPROGRESS: taken (reads show them) but shown to
 * the lookups only by the compile they asked for. Then call
 * sp_lookup_finish() with *ticket and the positions now and then, until it
 * says other than -EINPROGRESS. Other errors as above, nothing written.
 */
int sp_lookup_write_bulk_nowait(struct sp_lookup *t, uint16_t slice, const uint32_t *pos,
				const struct sp_filter *f, uint32_t n, uint64_t *ticket);
int sp_lookup_delete_nowait(struct sp_lookup *t, uint16_t slice, uint32_t pos, uint64_t *ticket);
/*
 * 0 once the writes of ticket are visible (the hit counters of the n
 * positions restart then), -EINPROGRESS while their compile is to come,
 * -ENOENT if the slice is gone, or the compile's error (once: the writes
 * are kept and show with a later compile).
 */
int sp_lookup_finish(struct sp_lookup *t, uint16_t slice, uint64_t ticket, const uint32_t *pos,
		     uint32_t n);
/* Read back one filter and its hit count; same errors as delete. */
int sp_lookup_read(const struct sp_lookup *t, uint16_t slice, uint32_t pos, struct sp_filter *f,
		   uint64_t *hits);
/* Next occupied position >= *pos: returns 0 and sets *pos, or -ENOENT. */
int sp_lookup_next(const struct sp_lookup *t, uint16_t slice, uint32_t *pos);

/* Compile the slice's changes into its base now and wait for it: lookups
 * are then as fast as they get (the compiler does this by itself once
 * writes pause). 0, -ENOENT, or the compile's error. */
int sp_lookup_sync(struct sp_lookup *t, uint16_t slice);

struct sp_lookup_info {
	uint32_t quota;
	uint32_t filters;       /* positions holding a filter */
	uint32_t compiled;      /* filters in the compiled base */
	uint32_t rules;         /* tree: leaf entries; rte_acl: rules (port prefixes merged back) */
	uint32_t changes;       /* writes and deletes searched beside the base */
	uint32_t copies;        /* compiled filters copied beside it for those */
	/* "tree", rte_acl's "ternary" or "ranges" (rules merged, with port ranges), or
	 * "list" (nothing compiled: all scanned) */
	const char *form;
	const char *classifier; /* the tree's walk ("tree-avx2", "tree-sse"), or the rte_acl classify method */
	size_t classifier_bytes; /* tree: nodes, leaves and distinct results (rte_acl's: 0, not told) */
	size_t counter_bytes;    /* the hit counters the lookups add to: the quota's */
	uint64_t flow_lookups;  /* keys looked up since the slice was made (flows.h) */
	uint64_t flow_hits;     /* of them, answered by the flow cache */
	bool flow_resting;      /* the cache stands aside: it timed slower than the classifier */
};
int sp_lookup_info(const struct sp_lookup *t, uint16_t slice, struct sp_lookup_info *info);

/*
 * What the classifier reads to look up one key, counted step by step: the
 * profile (tools/bench-lookup -P; docs/lookup.md, "Where a lookup goes").
 * sp_lookup_walk() adds one key's counts to *w and returns the position the
 * slice's compiled filters give it (the tree's and the odd ones': the
 * changes beside them are counted, not searched), or SP_LOOKUP_MISS. A
 * management call, under the table's lock like sp_lookup_info(): it neither
 * counts a hit nor asks the flow cache. -ENOENT: no such slice; -ENOTSUP:
 * the slice's filters are in rte_acl (a form other than the tree), whose
 * insides are not ours to count.
 */
struct sp_lookup_walk {
	uint64_t keys;
	uint64_t trees;      /* trees of the slice's base */
	uint64_t trees_read; /* of them, the leaf scanned: not passed for a match before its first */
	uint64_t levels;     /* nodes stepped through, a cache line each */
	uint64_t entries;    /* leaf entries compared */
	uint64_t leaf_lines; /* cache lines of the leaves reached: prefetched, or compared past that */
	uint64_t odd;        /* odd filters compared (every filter of a scanned table is one) */
	uint64_t changes;    /* writes and deletes beside the base */
};
int sp_lookup_walk(const struct sp_lookup *t, uint16_t slice, const struct sp_key *key,
		   struct sp_lookup_walk *w, uint32_t *position);

/*
 * Fast path. For each i < n: if a filter of the slice matches *keys[i],
 * copy its result into *results[i], set positions[i] to its position and
 * count a hit; else positions[i] = SP_LOOKUP_MISS. Returns the hit count.
 * An unknown slice misses everything.
 */
uint16_t sp_lookup_bulk(struct sp_lookup *t, uint16_t slice, const struct sp_key *const *keys,
			struct sp_result *const *results, uint32_t *positions, uint16_t n);

/*
 * The NPE's lookup: the keys of a round's packets, of many slices at once.
 * Each object names its slice, and the slices' classifiers walk together,
 * so that one slice's few packets of a round wait on their table's cache
 * misses while the other slices' wait on theirs. Objects of a slice
 * should come together: each run of them asks the slice's flow cache once.
 *
 * Hits are counted later. A filter's hit counter is seldom in the cache (a
 * slice's counters are its quota's worth of words), so the forwarding lcore
 * collects the counters its lookups hit, prefetched, and adds to them once
 * they have arrived: sp_lookup_bulk_deferred() counts its hits in `deferred`
 * instead of at once, sp_lookup_count_deferred() adds them. The lcore must
 * call it before its next RCU quiescent state (a deleted slice's counters
 * are freed after one); a `deferred` without room for the hits of LK_BURST
 * keys is counted on the way.
 */
#define SP_LOOKUP_DEFERRED_HITS 256

struct sp_lookup_deferred_hits {
	uint32_t n;
	uint32_t *counter[SP_LOOKUP_DEFERRED_HITS];
};

/*
 * Where the slice, key, result and position of sp_lookup_bulk_deferred() are:
 * fields of the n objects looked up (the NPE's packets), at these byte
 * offsets. The NPE so hands its packets over as they are, with no arrays
 * to fill.
 */
struct sp_lookup_fields {
	uint16_t slice;    /* uint16_t: whose table (unknown: a miss) */
	uint16_t key;      /* struct sp_key */
	uint16_t result;   /* struct sp_result, written on a hit */
	uint16_t position; /* uint32_t, written always (SP_LOOKUP_MISS on a miss) */
};

/* As sp_lookup_bulk() for each object's slice; returns the hit count. */
uint16_t sp_lookup_bulk_deferred(struct sp_lookup *t, void *const *objs,
				 const struct sp_lookup_fields *at, uint16_t n,
				 struct sp_lookup_deferred_hits *deferred);

static inline void
sp_lookup_count_deferred(struct sp_lookup_deferred_hits *deferred)
{
	for (uint32_t i = 0; i < deferred->n; i++)
		(*deferred->counter[i])++;
	deferred->n = 0;
}

#endif
