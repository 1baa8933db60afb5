/* SPDX-License-Identifier: BSD-3-Clause */
#include "changes.h"

#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>

struct lk_changes *
lk_changes_new(void)
{
	return calloc(1, sizeof(struct lk_changes));
}

void
lk_changes_free(struct lk_changes *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		free(c->c[i].prom);
	free(c);
}

/* Index of the first change at a position >= pos. */
static uint32_t
lower_bound(const struct lk_changes *c, uint32_t pos)
{
	return LK_LOWER_BOUND(c->c, c->n, pos, pos);
}

static struct lk_change *
find(struct lk_changes *c, uint32_t pos)
{
	uint32_t i = lower_bound(c, pos);

	return i < c->n && c->c[i].pos == pos ? &c->c[i] : NULL;
}

/* The change at pos, inserted with kind if absent (the caller checked room). */
static struct lk_change *
get(struct lk_changes *c, uint32_t pos, enum lk_kind kind)
{
	uint32_t i = lower_bound(c, pos);

	if (i < c->n && c->c[i].pos == pos)
		return &c->c[i];
	memmove(&c->c[i + 1], &c->c[i], (c->n - i) * sizeof(c->c[0]));
	c->n++;
	c->nb_copies += kind == LK_COPY;
	c->c[i] = (struct lk_change){.pos = pos, .kind = kind};
	return &c->c[i];
}

static void
set_kind(struct lk_changes *c, struct lk_change *x, enum lk_kind kind)
{
	c->nb_copies += (kind == LK_COPY) - (x->kind == LK_COPY);
	x->kind = kind;
}

static void
drop_if_unneeded(struct lk_changes *c, struct lk_change *x)
{
	uint32_t i = (uint32_t)(x - c->c);

	if (x->kind != LK_COPY || x->refs > 0)
		return;
	free(x->prom);
	c->nb_copies--;
	memmove(&c->c[i], &c->c[i + 1], (c->n - i - 1) * sizeof(c->c[0]));
	c->n--;
}

/* A changed filter of rte_acl's: the lookups need what it promotes. */
static bool
stale_in_acl(const struct lk_change *x, const struct lk_base *b, uint32_t idx)
{
	return x != NULL && idx != LK_NONE && x->kind != LK_COPY && lk_base_in_acl(b, idx);
}

/*
 * Does one of the last (up to PRUNE_WINDOW) of the n filters of b at
 * indexes idx cover x? A bounded look back: a miss only keeps a copy
 * that was not needed. A wide window cost the writer more than the copies
 * it saved: on fw1_10K, 256 gave 16,900 writes/s (p99 426 us), 32 gave
 * 29,900 (190 us), 8 gave 33,700 (189 us), lookups under writes alike.
 */
#define PRUNE_WINDOW 8
static bool
covered(const struct lk_base *b, const uint32_t *idx, uint32_t n, const struct lk_filter *x)
{
	uint32_t i = n > PRUNE_WINDOW ? n - PRUNE_WINDOW : 0;

	for (; i < n; i++)
		if (lk_covers(&b->filt[idx[i]], x))
			return true;
	return false;
}

/*
 * The positions base filter s promotes: later filters of rte_acl's that
 * can be the first match of a key of s's, up to and including the first
 * that covers s. A filter whose part in s is covered by one promoted
 * before it never is, and is left out (were that one to go stale too, its
 * own promotions would bring the filter back). The odd ones need no
 * copies: lookups scan them in order, skipping stale ones. NULL with
 * *n = 0 if none; -ENOSPC if more than LK_COPIES_MAX, -ENOMEM.
 */
static int
promote(const struct lk_base *b, uint32_t s, struct lk_prom **out, uint32_t *n)
{
	const struct lk_filter *f = &b->filt[s];
	uint32_t *idx = malloc(LK_COPIES_MAX * sizeof(*idx)), j, k = 0, sig = b->sig[s];
	struct lk_prom *prom;

	*n = 0;
	*out = NULL;
	if (idx == NULL)
		return -ENOMEM;
	for (j = s + 1; j < b->n; j++) {
		struct lk_filter part;

		if (!lk_base_sig_overlap(sig, b->sig[j]) || !lk_overlap(f, &b->filt[j]) ||
		    !lk_base_in_acl(b, j))
			continue;
		part = lk_intersect(f, &b->filt[j]);
		if (covered(b, idx, k, &part))
			continue;
		if (k == LK_COPIES_MAX) {
			free(idx);
			return -ENOSPC;
		}
		idx[k++] = j;
		if (lk_covers(&b->filt[j], f))
			break;
	}
	prom = k > 0 ? malloc(k * sizeof(*prom)) : NULL;
	for (j = 0; prom != NULL && j < k; j++)
		prom[j] = (struct lk_prom){.pos = b->ent[idx[j]].pos, .idx = idx[j]};
	free(idx);
	if (k > 0 && prom == NULL)
		return -ENOMEM;
	*n = k;
	*out = prom;
	return 0;
}

static bool
same_as_base(const struct lk_base *b, uint32_t idx, const struct lk_slot *s)
{
	return idx != LK_NONE && s->used && lk_filter_equal(&b->filt[idx], &s->f) &&
	       memcmp(&b->ent[idx].res, &s->res, sizeof(s->res)) == 0;
}

/*
 * Is there room for pos becoming kind and its promoted copies? Counted as
 * if nothing left, which errs on the side of a compile.
 */
static bool
room(struct lk_changes *c, uint32_t pos, enum lk_kind kind, const struct lk_prom *prom,
     uint32_t nb_prom)
{
	const struct lk_change *x = find(c, pos);
	uint32_t writes = c->n - c->nb_copies, copies = c->nb_copies, i;

	if (kind != LK_COPY && (x == NULL || x->kind == LK_COPY))
		writes++;
	for (i = 0; i < nb_prom; i++)
		copies += find(c, prom[i].pos) == NULL;
	return writes <= LK_WRITES_MAX && copies <= LK_COPIES_MAX;
}

/*
 * Reference the copies a stale filter promoted (n ascending positions, the
 * room checked): one merge from the ends, in place, rather than an
 * insertion each (thousands of copies made a write take milliseconds).
 */
static void
reference(struct lk_changes *c, const struct lk_prom *prom, uint32_t n)
{
	uint32_t i = 0, j = 0, added = 0;
	int64_t a, p, k;

	while (j < n) { /* the positions with no change yet */
		if (i < c->n && c->c[i].pos < prom[j].pos) {
			i++;
			continue;
		}
		added += !(i < c->n && c->c[i].pos == prom[j].pos);
		j++;
	}
	a = (int64_t)c->n - 1;
	k = a + added;
	for (p = (int64_t)n - 1; p >= 0; k--) {
		if (a >= 0 && c->c[a].pos > prom[p].pos) {
			c->c[k] = c->c[a--];
		} else if (a >= 0 && c->c[a].pos == prom[p].pos) {
			c->c[a].refs++;
			c->c[a].idx = prom[p].idx;
			c->c[k] = c->c[a--];
			p--;
		} else {
			c->c[k] = (struct lk_change){.pos = prom[p].pos, .kind = LK_COPY, .refs = 1,
						     .idx = prom[p].idx};
			p--;
		}
	}
	c->n += added;
	c->nb_copies += added;
}

/* Let go of the copies a filter no longer stale promoted: those left unreferenced go, in one pass. */
static void
release(struct lk_changes *c, const struct lk_prom *prom, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++)
		find(c, prom[i].pos)->refs--;
	for (i = 0; i < c->n; i++) {
		if (c->c[i].kind == LK_COPY && c->c[i].refs == 0) {
			free(c->c[i].prom);
			c->nb_copies--;
			continue;
		}
		c->c[k++] = c->c[i];
	}
	c->n = k;
}

int
lk_changes_set(struct lk_changes *c, const struct lk_base *b, const struct lk_slot *truth,
	       uint32_t pos)
{
	uint32_t idx = lk_base_find(b, pos), nb_prom = 0;
	struct lk_prom *prom = NULL;
	const struct lk_slot *s = &truth[pos];
	struct lk_change *x = find(c, pos);
	bool was_stale = stale_in_acl(x, b, idx), now_stale;
	enum lk_kind kind;
	int rc;

	if (same_as_base(b, idx, s))
		kind = LK_COPY;
	else
		kind = s->used ? LK_WRITE : LK_HOLE;
	/* A hole where the base has nothing, or the base's own filter unpromoted: no change. */
	if ((kind == LK_HOLE && idx == LK_NONE) || (kind == LK_COPY && (x == NULL || x->refs == 0))) {
		if (x == NULL)
			return 0;
		kind = LK_COPY; /* dropped below once nothing refers to it */
	}
	now_stale = idx != LK_NONE && kind != LK_COPY && lk_base_in_acl(b, idx);
	if (now_stale && !was_stale) {
		rc = promote(b, idx, &prom, &nb_prom);
		if (rc != 0)
			return rc;
	}
	if (!room(c, pos, kind, prom, nb_prom)) {
		free(prom);
		return -ENOSPC;
	}
	if (was_stale && !now_stale) {
		struct lk_prom *old = x->prom;
		uint32_t nb_old = x->nb_prom;

		x->prom = NULL;
		x->nb_prom = 0;
		release(c, old, nb_old);
		free(old);
	}
	x = get(c, pos, kind);
	set_kind(c, x, kind);
	if (now_stale && !was_stale) {
		x->prom = prom;
		x->nb_prom = nb_prom;
		reference(c, prom, nb_prom);
		x = find(c, pos);
	}
	drop_if_unneeded(c, x);
	return 0;
}

/* The last view's epoch: flow cache entries of a view are never taken for another's. */
static uint64_t view_epochs;

struct lk_view *
lk_view_make(struct lk_base *b, const struct lk_changes *c, const struct lk_slot *truth)
{
	uint32_t n = c->n - c->nb_copies, i;
	size_t size = sizeof(struct lk_view) + n * sizeof(struct lk_dent) +
		      c->nb_copies * (sizeof(struct lk_filter) + sizeof(uint32_t));
	struct lk_view *v = aligned_alloc(RTE_CACHE_LINE_SIZE,
					  RTE_ALIGN_CEIL(size, RTE_CACHE_LINE_SIZE));

	if (v == NULL)
		return NULL;
	v->epoch = __atomic_add_fetch(&view_epochs, 1, __ATOMIC_RELAXED);
	v->base = b;
	v->n = 0;
	v->nb_copies = 0;
	v->copy_f = (struct lk_filter *)&v->d[n];
	v->copies = (uint32_t *)&v->copy_f[c->nb_copies];
	for (i = 0; i < c->n; i++) {
		const struct lk_change *x = &c->c[i];
		struct lk_dent *d;

		if (x->kind == LK_COPY) { /* the base's own filter */
			v->copy_f[v->nb_copies] = b->filt[x->idx];
			v->copies[v->nb_copies++] = x->idx;
			continue;
		}
		d = &v->d[v->n++];
		memset(d, 0, sizeof(*d));
		d->pos = x->pos;
		d->kind = x->kind;
		if (d->kind == LK_WRITE) {
			d->f = truth[x->pos].f;
			d->res = truth[x->pos].res;
		}
	}
	return v;
}
