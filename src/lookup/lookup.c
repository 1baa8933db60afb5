/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simple ternary table: per slice an array of quota slots, each an
 * RCU-protected pointer to an immutable filter, scanned in position order.
 * A lookup costs O(the slice's own filters), so slices cannot slow each
 * other down; the lookup-engine issue makes it fast.
 *
 * Only the management thread changes anything. It builds a new entry,
 * publishes it with one release store, and frees what it replaced after a
 * grace period (every lookup lcore reported a quiescent state), so a lookup
 * never waits and never sees a half-written filter.
 */
#include "lookup.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

RTE_LOG_REGISTER(sp_lookup_logtype, slicepath.lookup, INFO);

#define LOG(level, t, fmt, ...)                                                                    \
	rte_log(RTE_LOG_##level, sp_lookup_logtype, "lookup %s: " fmt "\n", (t)->name,             \
		##__VA_ARGS__)

/*
 * A key as two overlapping 64-bit words, bytes 0-7 and 6-13. Bytes 6 and 7
 * sit in both words under the same mask bits, so "both masked words equal"
 * is exactly "all 14 bytes equal under the mask", at two compares per filter.
 */
#define HI_WORD_OFF (SP_KEY_BYTES - sizeof(uint64_t))

struct words {
	uint64_t w[2];
};

/* One filter, never modified once published (except its hit counter). */
struct entry {
	struct words key; /* stored masked */
	struct words mask;
	/*
	 * Hits live in the entry rather than in a per-position array: a
	 * replacement then starts at zero in the same store that publishes
	 * it, with no window in which the old filter's lookups count against
	 * the new one or the reset races the lookup lcore's increment.
	 * Written by the lookup lcore only.
	 */
	uint64_t hits;
	struct sp_result result;
};

struct slice_tab {
	uint32_t quota;
	uint32_t top; /* every position >= top is empty: lookups stop there */
	struct entry *slot[]; /* quota RCU-protected pointers, NULL when empty */
};

struct sp_lookup {
	char name[32]; /* for log messages */
	struct rte_rcu_qsbr *qsbr;
	int socket;
	uint32_t capacity;
	uint32_t used; /* sum of the slices' quotas */
	uint16_t max_slices;
	struct slice_tab *slices[]; /* max_slices RCU-protected pointers */
};

static inline struct words
load_words(const struct sp_key *k)
{
	struct words v;

	RTE_BUILD_BUG_ON(SP_KEY_BYTES < sizeof(uint64_t) || SP_KEY_BYTES > 2 * sizeof(uint64_t));
	memcpy(&v.w[0], k->b, sizeof(v.w[0]));
	memcpy(&v.w[1], k->b + HI_WORD_OFF, sizeof(v.w[1]));
	return v;
}

static void
store_words(struct sp_key *k, const struct words *v)
{
	memcpy(k->b, &v->w[0], sizeof(v->w[0]));
	memcpy(k->b + HI_WORD_OFF, &v->w[1], sizeof(v->w[1]));
}

static inline bool
matches(const struct entry *e, const struct words *k)
{
	return ((k->w[0] & e->mask.w[0]) == e->key.w[0]) &&
	       ((k->w[1] & e->mask.w[1]) == e->key.w[1]);
}

/* Wait until no lookup can still hold a pointer unpublished before this call. */
static void
wait_readers(const struct sp_lookup *t)
{
	if (t->qsbr != NULL)
		rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
}

static void
tab_free(struct slice_tab *s)
{
	uint32_t pos;

	for (pos = 0; pos < s->top; pos++)
		rte_free(s->slot[pos]);
	rte_free(s);
}

/* The writer's view of a slice: it alone stores these pointers. */
static struct slice_tab *
tab_get(const struct sp_lookup *t, uint16_t slice)
{
	return slice < t->max_slices ? t->slices[slice] : NULL;
}

/* Validate (t, slice, pos) for the per-position calls. */
static int
locate(const struct sp_lookup *t, uint16_t slice, uint32_t pos, struct slice_tab **tab)
{
	struct slice_tab *s;

	if (t == NULL)
		return -EINVAL;
	s = tab_get(t, slice);
	if (s == NULL)
		return -ENOENT;
	if (pos >= s->quota)
		return -ERANGE;
	*tab = s;
	return 0;
}

struct sp_lookup *
sp_lookup_create(const struct sp_lookup_params *p)
{
	struct sp_lookup *t;

	if (p == NULL || p->capacity == 0 || p->max_slices == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("sp_lookup", sizeof(*t) + p->max_slices * sizeof(t->slices[0]),
			       RTE_CACHE_LINE_SIZE, p->socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	strlcpy(t->name, p->name != NULL ? p->name : "?", sizeof(t->name));
	t->qsbr = p->qsbr;
	t->socket = p->socket;
	t->capacity = p->capacity;
	t->max_slices = p->max_slices;
	LOG(DEBUG, t, "created: %u filters, %u slices", t->capacity, t->max_slices);
	return t;
}

/* The caller has stopped every lookup on t. */
void
sp_lookup_free(struct sp_lookup *t)
{
	uint16_t slice;

	if (t == NULL)
		return;
	for (slice = 0; slice < t->max_slices; slice++)
		if (t->slices[slice] != NULL)
			tab_free(t->slices[slice]);
	rte_free(t);
}

int
sp_lookup_slice_add(struct sp_lookup *t, uint16_t slice, uint32_t quota)
{
	struct slice_tab *s;

	if (t == NULL || slice >= t->max_slices || quota == 0)
		return -EINVAL;
	if (t->slices[slice] != NULL)
		return -EEXIST;
	if (quota > t->capacity - t->used)
		return -ENOSPC;
	s = rte_zmalloc_socket("sp_lookup_slice", sizeof(*s) + (size_t)quota * sizeof(s->slot[0]),
			       RTE_CACHE_LINE_SIZE, t->socket);
	if (s == NULL) {
		LOG(ERR, t, "no memory for slice %u's table of %u filters", slice, quota);
		return -ENOMEM;
	}
	s->quota = quota;
	t->used += quota;
	__atomic_store_n(&t->slices[slice], s, __ATOMIC_RELEASE);
	LOG(DEBUG, t, "slice %u: %u filters, %u of %u used", slice, quota, t->used, t->capacity);
	return 0;
}

int
sp_lookup_slice_del(struct sp_lookup *t, uint16_t slice)
{
	struct slice_tab *s;

	if (t == NULL)
		return -EINVAL;
	s = tab_get(t, slice);
	if (s == NULL)
		return -ENOENT;
	__atomic_store_n(&t->slices[slice], NULL, __ATOMIC_RELEASE);
	wait_readers(t);
	t->used -= s->quota;
	tab_free(s);
	LOG(DEBUG, t, "slice %u removed, %u of %u used", slice, t->used, t->capacity);
	return 0;
}

/* Unpublish-then-free of an entry a lookup may still be reading. */
static void
retire(const struct sp_lookup *t, struct entry *old)
{
	if (old == NULL)
		return;
	wait_readers(t);
	rte_free(old);
}

int
sp_lookup_write(struct sp_lookup *t, uint16_t slice, uint32_t pos, const struct sp_filter *f)
{
	struct slice_tab *s;
	struct entry *e, *old;
	int rc;

	if (f == NULL)
		return -EINVAL;
	rc = locate(t, slice, pos, &s);
	if (rc != 0)
		return rc;
	e = rte_malloc_socket("sp_lookup_entry", sizeof(*e), RTE_CACHE_LINE_SIZE, t->socket);
	if (e == NULL) {
		LOG(ERR, t, "no memory for a filter of slice %u", slice);
		return -ENOMEM;
	}
	e->mask = load_words(&f->mask);
	e->key = load_words(&f->key);
	e->key.w[0] &= e->mask.w[0];
	e->key.w[1] &= e->mask.w[1];
	e->hits = 0;
	e->result = f->result;

	old = s->slot[pos];
	__atomic_store_n(&s->slot[pos], e, __ATOMIC_RELEASE);
	/* After the slot: a lookup that sees the new top also sees the entry. */
	if (pos >= s->top)
		__atomic_store_n(&s->top, pos + 1, __ATOMIC_RELEASE);
	retire(t, old);
	return 0;
}

int
sp_lookup_delete(struct sp_lookup *t, uint16_t slice, uint32_t pos)
{
	struct slice_tab *s;
	struct entry *old;
	uint32_t top;
	int rc;

	rc = locate(t, slice, pos, &s);
	if (rc != 0)
		return rc;
	old = s->slot[pos];
	if (old == NULL)
		return -ENOENT;
	__atomic_store_n(&s->slot[pos], NULL, __ATOMIC_RELEASE);
	for (top = s->top; top > 0 && s->slot[top - 1] == NULL; top--)
		;
	/* A lookup with the old top only scans empty slots beyond the new one. */
	__atomic_store_n(&s->top, top, __ATOMIC_RELEASE);
	retire(t, old);
	return 0;
}

int
sp_lookup_read(const struct sp_lookup *t, uint16_t slice, uint32_t pos, struct sp_filter *f,
	       uint64_t *hits)
{
	struct slice_tab *s;
	const struct entry *e;
	int rc;

	if (f == NULL || hits == NULL)
		return -EINVAL;
	rc = locate(t, slice, pos, &s);
	if (rc != 0)
		return rc;
	e = s->slot[pos];
	if (e == NULL)
		return -ENOENT;
	store_words(&f->key, &e->key);
	store_words(&f->mask, &e->mask);
	f->result = e->result;
	*hits = __atomic_load_n(&e->hits, __ATOMIC_RELAXED);
	return 0;
}

int
sp_lookup_next(const struct sp_lookup *t, uint16_t slice, uint32_t *pos)
{
	const struct slice_tab *s;
	uint32_t p;

	if (t == NULL || pos == NULL)
		return -EINVAL;
	s = tab_get(t, slice);
	if (s == NULL)
		return -ENOENT;
	for (p = *pos; p < s->top; p++) {
		if (s->slot[p] != NULL) {
			*pos = p;
			return 0;
		}
	}
	return -ENOENT;
}

/* Position of the first entry of s matching k, and that entry; SP_LOOKUP_MISS if none. */
static inline uint32_t
first_match(const struct slice_tab *s, uint32_t top, const struct words *k, struct entry **match)
{
	struct entry *e;
	uint32_t pos;

	for (pos = 0; pos < top; pos++) {
		e = __atomic_load_n(&s->slot[pos], __ATOMIC_ACQUIRE);
		if (e != NULL && matches(e, k)) {
			*match = e;
			return pos;
		}
	}
	return SP_LOOKUP_MISS;
}

uint16_t
sp_lookup_bulk(struct sp_lookup *t, uint16_t slice, const struct sp_key *const *keys,
	       struct sp_result *const *results, uint32_t *positions, uint16_t n)
{
	const struct slice_tab *s = NULL;
	struct entry *e;
	struct words k;
	uint32_t top;
	uint16_t i, nb_hits = 0;

	if (slice < t->max_slices)
		s = __atomic_load_n(&t->slices[slice], __ATOMIC_ACQUIRE);
	if (s == NULL) {
		for (i = 0; i < n; i++)
			positions[i] = SP_LOOKUP_MISS;
		return 0;
	}
	top = __atomic_load_n(&s->top, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++) {
		k = load_words(keys[i]);
		positions[i] = first_match(s, top, &k, &e);
		if (positions[i] == SP_LOOKUP_MISS)
			continue;
		*results[i] = e->result;
		e->hits++;
		nb_hits++;
	}
	return nb_hits;
}
