/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ternary filter table of one NPE (SPP's TCAM): 112-bit key + 112-bit mask
 * per filter, a private table per slice (the slice id is a hidden part of
 * the key), first match by slice-relative position. A write to an occupied
 * position replaces the filter there, as a TCAM write would.
 *
 * Threads: one writer (the management thread) calls create/slice/write/
 * delete; one lookup lcore (the NPE's) calls sp_lookup_bulk(). Writers
 * never make lookups wait: a changed entry is published with one atomic
 * store and the old one is freed only after every lookup lcore has passed
 * a quiescent state (rte_rcu_qsbr).
 *
 * This implementation is the simple linear table of the foundation issue;
 * the lookup-engine issue replaces it behind the same interface.
 */
#ifndef SP_LOOKUP_H
#define SP_LOOKUP_H

#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include <slicepath/codeopt.h>

#define SP_LOOKUP_MISS UINT32_MAX
#define SP_LOOKUP_DEFAULT_CAPACITY 131072

struct sp_lookup;

struct sp_lookup_params {
	const char *name;
	uint32_t capacity;        /* filters across all slices of this NPE */
	uint16_t max_slices;      /* slice ids are < max_slices */
	int socket;
	struct rte_rcu_qsbr *qsbr; /* lookup lcores report quiescent states here */
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
 * mask are ignored (stored masked). Resets the position's hit counter. */
int sp_lookup_write(struct sp_lookup *t, uint16_t slice, uint32_t pos, const struct sp_filter *f);
/* -ENOENT unknown slice or empty position, -ERANGE position >= quota. */
int sp_lookup_delete(struct sp_lookup *t, uint16_t slice, uint32_t pos);
/* Read back one filter and its hit count; same errors as delete. */
int sp_lookup_read(const struct sp_lookup *t, uint16_t slice, uint32_t pos, struct sp_filter *f,
		   uint64_t *hits);
/* Next occupied position >= *pos: returns 0 and sets *pos, or -ENOENT. */
int sp_lookup_next(const struct sp_lookup *t, uint16_t slice, uint32_t *pos);

/*
 * Fast path. For each i < n: if a filter of the slice matches *keys[i],
 * copy its result into *results[i], set positions[i] to its position and
 * count a hit; else positions[i] = SP_LOOKUP_MISS. Returns the hit count.
 * An unknown slice misses everything.
 */
uint16_t sp_lookup_bulk(struct sp_lookup *t, uint16_t slice, const struct sp_key *const *keys,
			struct sp_result *const *results, uint32_t *positions, uint16_t n);

#endif
