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
	uint32_t lo = 0, hi = c->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->c[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	c->c[i] = (struct lk_change){.pos = pos, .kind = kind};
	return &c->c[i];
}

static void
drop_if_unneeded(struct lk_changes *c, struct lk_change *x)
{
	uint32_t i = (uint32_t)(x - c->c);

	if (x->kind != LK_COPY || x->refs > 0)
		return;
	free(x->prom);
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
 * The positions base filter s promotes: later filters of rte_acl's
 * overlapping it, up to and including the first that covers it (the odd
 * ones need no copies: lookups scan them in order, skipping stale ones).
 * NULL with *n = 0 if none; -ENOSPC if more than LK_CHANGES_MAX, -ENOMEM.
 */
static int
promote(const struct lk_base *b, uint32_t s, uint32_t **out, uint32_t *n)
{
	uint32_t list[LK_CHANGES_MAX], j, k = 0;
	const struct lk_filter *f = &b->filt[s];

	for (j = s + 1; j < b->n; j++) {
		if (!lk_overlap(f, &b->filt[j]) || !lk_base_in_acl(b, j))
			continue;
		if (k == LK_CHANGES_MAX)
			return -ENOSPC;
		list[k++] = b->ent[j].pos;
		if (lk_covers(&b->filt[j], f))
			break;
	}
	*n = k;
	*out = NULL;
	if (k == 0)
		return 0;
	*out = malloc(k * sizeof(list[0]));
	if (*out == NULL)
		return -ENOMEM;
	memcpy(*out, list, k * sizeof(list[0]));
	return 0;
}

static bool
same_as_base(const struct lk_base *b, uint32_t idx, const struct lk_slot *s)
{
	return idx != LK_NONE && s->used && lk_filter_equal(&b->filt[idx], &s->f) &&
	       memcmp(&b->ent[idx].res, &s->res, sizeof(s->res)) == 0;
}

/* New changes the promoted list brings, pos's own one included. */
static uint32_t
room_needed(struct lk_changes *c, uint32_t pos, const uint32_t *prom, uint32_t nb_prom)
{
	uint32_t i, need = find(c, pos) == NULL;

	for (i = 0; i < nb_prom; i++)
		need += find(c, prom[i]) == NULL;
	return need;
}

int
lk_changes_set(struct lk_changes *c, const struct lk_base *b, const struct lk_slot *truth,
	       uint32_t pos)
{
	uint32_t idx = lk_base_find(b, pos), nb_prom = 0, *prom = NULL, i;
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
	if (c->n + room_needed(c, pos, prom, nb_prom) > LK_CHANGES_MAX) {
		free(prom);
		return -ENOSPC;
	}
	if (was_stale && !now_stale) {
		uint32_t *old = x->prom, nb_old = x->nb_prom;

		x->prom = NULL;
		x->nb_prom = 0;
		for (i = 0; i < nb_old; i++) {
			struct lk_change *p = find(c, old[i]);

			p->refs--;
			drop_if_unneeded(c, p);
		}
		free(old);
	}
	x = get(c, pos, kind);
	x->kind = kind;
	if (now_stale && !was_stale) {
		x->prom = prom;
		x->nb_prom = nb_prom;
		for (i = 0; i < nb_prom; i++)
			get(c, prom[i], LK_COPY)->refs++;
		x = find(c, pos);
	}
	drop_if_unneeded(c, x);
	return 0;
}

struct lk_view *
lk_view_make(struct lk_base *b, const struct lk_changes *c, const struct lk_slot *truth,
	     int socket)
{
	struct lk_view *v = rte_malloc_socket("lk_view", sizeof(*v) + c->n * sizeof(v->d[0]),
					      RTE_CACHE_LINE_SIZE, socket);
	uint32_t i;

	if (v == NULL)
		return NULL;
	v->base = b;
	v->n = c->n;
	for (i = 0; i < c->n; i++) {
		struct lk_dent *d = &v->d[i];
		const struct lk_slot *s = &truth[c->c[i].pos];

		memset(d, 0, sizeof(*d));
		d->pos = c->c[i].pos;
		d->kind = c->c[i].kind;
		if (d->kind != LK_HOLE) {
			d->f = s->f;
			d->res = s->res;
		}
	}
	return v;
}
