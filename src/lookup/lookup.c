/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table's API for the writers: slices, writes, reads (the lookup
 * lcore's side is worker.c).
 *
 * Per slice, lookups read one immutable view (a compiled base plus the
 * changes since: changes.h) through one RCU-protected pointer; writers
 * build a new view and publish it with one store. The writer's own copy of
 * every position (the truth) is what reads, lists and compiles start from.
 */
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>
#include "../common/log.h"

SP_LOG_TYPE("lookup")

/* A slice's changes are counted from (slices made before it + 1) << SEQ_SHIFT: 2^40 each. */
#define SEQ_SHIFT 40

void
lk_wait_readers(const struct sp_lookup *t)
{
	if (t->qsbr != NULL)
		rte_rcu_qsbr_synchronize(t->qsbr, RTE_QSBR_THRID_INVALID);
}

void
lk_view_retire(const struct sp_lookup *t, struct lk_view *v, bool with_base)
{
	if (v == NULL)
		return;
	lk_wait_readers(t);
	if (with_base)
		lk_base_free(v->base);
	lk_view_free(v);
}

void
lk_slice_free(struct lk_slice *s)
{
	if (s->view != NULL)
		lk_base_free(s->view->base);
	lk_view_free(s->view);
	lk_changes_free(s->chg);
	rte_free(s->truth);
	lk_hits_free(&s->hits);
	rte_free(s->dirty);
	rte_free(s);
}

struct sp_lookup *
sp_lookup_create(const struct sp_lookup_params *p)
{
	struct sp_lookup *t;
	int rc;

	/* rte_acl's forms hold 14-byte keys only (acl.h). */
	if (p == NULL || p->capacity == 0 || p->max_slices == 0 ||
	    (LK_KEY_BYTES != 14 && p->form != SP_LOOKUP_FORM_AUTO && p->form != SP_LOOKUP_FORM_TREE)) {
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
	t->form = p->form;
	pthread_mutex_init(&t->lock, NULL);
	lk_tree_choose_path();
	rc = lk_compiler_start(t);
	if (rc != 0) {
		SP_LOG(ERR, "%s: cannot start the compiler thread: %s", t->name, strerror(-rc));
		rte_free(t);
		rte_errno = -rc;
		return NULL;
	}
	SP_LOG(DEBUG, "%s: created: %u filters, %u slices", t->name, t->capacity, t->max_slices);
	return t;
}

/* The caller has stopped every lookup on t. */
void
sp_lookup_free(struct sp_lookup *t)
{
	uint16_t slice;

	if (t == NULL)
		return;
	lk_compiler_stop(t);
	for (slice = 0; slice < t->max_slices; slice++)
		if (t->slices[slice] != NULL)
			lk_slice_free(t->slices[slice]);
	pthread_mutex_destroy(&t->lock);
	rte_free(t);
}

int
sp_lookup_slice_add(struct sp_lookup *t, uint16_t slice, uint32_t quota)
{
	struct lk_slice *s;
	size_t words = ((size_t)quota + 63) / 64;
	int rc = 0;

	if (t == NULL || slice >= t->max_slices || quota == 0)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	if (t->slices[slice] != NULL) {
		rc = -EEXIST;
		goto out;
	}
	if (quota > t->capacity - t->used) {
		rc = -ENOSPC;
		goto out;
	}
	s = rte_zmalloc_socket("lk_slice", sizeof(*s), RTE_CACHE_LINE_SIZE, t->socket);
	if (s != NULL) {
		s->quota = quota;
		s->truth = rte_zmalloc_socket("lk_truth", quota * sizeof(s->truth[0]), 0,
					      t->socket);
		s->dirty = rte_zmalloc_socket("lk_dirty", words * sizeof(s->dirty[0]), 0,
					      t->socket);
		s->chg = lk_changes_new();
		if (s->chg != NULL)
			s->view = lk_view_make(NULL, s->chg, NULL);
	}
	if (s == NULL || lk_hits_init(&s->hits, quota, t->socket) != 0 || s->truth == NULL ||
	    s->dirty == NULL || s->view == NULL) {
		SP_LOG(ERR, "%s: no memory for slice %u's table of %u filters", t->name, slice,
		       quota);
		if (s != NULL)
			lk_slice_free(s);
		rc = -ENOMEM;
		goto out;
	}
	/* A ticket of a slice deleted before its compile must never pass for this one's. */
	s->first_seq = ++t->slices_made << SEQ_SHIFT;
	s->seq = s->view_seq = s->base_seq = s->first_seq;
	t->used += quota;
	__atomic_store_n(&t->slices[slice], s, __ATOMIC_RELEASE);
	SP_LOG(DEBUG, "%s: slice %u: %u filters, %u of %u used", t->name, slice, quota, t->used,
	       t->capacity);
out:
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int
sp_lookup_slice_del(struct sp_lookup *t, uint16_t slice)
{
	struct lk_slice *s;

	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	s = slice < t->max_slices ? t->slices[slice] : NULL;
	if (s == NULL) {
		pthread_mutex_unlock(&t->lock);
		return -ENOENT;
	}
	__atomic_store_n(&t->slices[slice], NULL, __ATOMIC_RELEASE);
	t->used -= s->quota;
	/* A compile under way frees the slice when it ends: the writer does not wait for it. */
	s->deleted = s->compiling;
	pthread_mutex_unlock(&t->lock);
	if (!s->deleted) {
		lk_wait_readers(t);
		lk_slice_free(s);
	}
	SP_LOG(DEBUG, "%s: slice %u removed", t->name, slice);
	return 0;
}

/* The slice for a per-position call, under the lock. */
static int
locate(const struct sp_lookup *t, uint16_t slice, struct lk_slice **out)
{
	struct lk_slice *s = slice < t->max_slices ? t->slices[slice] : NULL;

	if (s == NULL)
		return -ENOENT;
	*out = s;
	return 0;
}

static void
store(struct lk_slot *slot, const struct sp_filter *f)
{
	const struct sp_result *r = &f->result;

	slot->f = lk_filter_of(&f->key, &f->mask);
	/* Field by field, so that padding compares equal when results do. */
	memset(&slot->res, 0, sizeof(slot->res));
	slot->res.endpoint = r->endpoint;
	slot->res.queue = r->queue;
	slot->res.nh_ip = r->nh_ip;
	slot->res.nh_port = r->nh_port;
	memcpy(slot->res.data, r->data, sizeof(r->data));
	slot->res.nh_family = r->nh_family;
	memcpy(slot->res.nh_ip6, r->nh_ip6, sizeof(r->nh_ip6));
	slot->used = true;
}

/* Record the change at pos and try to show it beside the base (locked). */
static void
note_change(struct lk_slice *s, uint32_t pos)
{
	s->dirty[pos / 64] |= 1ull << (pos % 64);
	s->seq++;
	s->last_change_ns = lk_now_ns();
	if (!s->pending && lk_changes_set(s->chg, s->view->base, s->truth, pos) != 0)
		s->pending = true;
}

/* Have the compiler fold the slice's changes in soon (locked). */
static void
ask_compile(struct sp_lookup *t, struct lk_slice *s)
{
	s->pending = true;
	s->compile_rc = 0;
	pthread_cond_signal(&t->work);
}

/*
 * Have the compiler fold the slice's changes in until *done reaches want
 * (locked; the lock is let go while waiting). A compile already under way
 * may end short of want: ask again. 0, or the compile's error.
 */
static int
compile_until(struct sp_lookup *t, struct lk_slice *s, const uint64_t *done, uint64_t want)
{
	while (*done < want) {
		ask_compile(t, s);
		pthread_cond_wait(&t->published, &t->lock);
		if (*done < want && s->compile_rc != 0 && s->compile_rc != -EAGAIN)
			return s->compile_rc;
	}
	return 0;
}

/*
 * Make the changes noted so far visible to the lookups (locked): 0, with
 * *retired the view to free after a grace period; or -EINPROGRESS and
 * *ticket: too much changed beside the base, and the compile asked for
 * shows it (sp_lookup_finish()).
 */
static int
publish(struct sp_lookup *t, struct lk_slice *s, struct lk_view **retired, uint64_t *ticket)
{
	struct lk_view *v;

	*retired = NULL;
	*ticket = s->seq;
	if (!s->pending) {
		v = lk_view_make(s->view->base, s->chg, s->truth);
		if (v != NULL) {
			*retired = s->view;
			__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
			s->view_seq = s->seq;
			return 0;
		}
	}
	ask_compile(t, s);
	return -EINPROGRESS;
}

int
sp_lookup_sync(struct sp_lookup *t, uint16_t slice)
{
	struct lk_slice *s;
	int rc;

	if (t == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	rc = locate(t, slice, &s);
	if (rc == 0)
		rc = compile_until(t, s, &s->base_seq, s->seq);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/*
 * After a grace period no lookup counts hits for what a position held
 * before: its counter restarts from there.
 */
static void
restart_hits(struct sp_lookup *t, uint16_t slice, const uint32_t *pos, uint32_t n,
	     struct lk_view *retired)
{
	struct lk_slice *s;
	uint32_t i;

	lk_view_retire(t, retired, false);
	if (retired == NULL)
		lk_wait_readers(t);
	pthread_mutex_lock(&t->lock);
	if (locate(t, slice, &s) == 0)
		for (i = 0; i < n; i++)
			s->truth[pos[i]].hits_zero = lk_hits_now(&s->hits, pos[i]);
	pthread_mutex_unlock(&t->lock);
}

int
sp_lookup_write_bulk_nowait(struct sp_lookup *t, uint16_t slice, const uint32_t *pos,
			    const struct sp_filter *f, uint32_t n, uint64_t *ticket)
{
	struct lk_view *retired;
	struct lk_slice *s;
	uint32_t i;
	int rc;

	if (t == NULL || ticket == NULL || (n > 0 && (pos == NULL || f == NULL)))
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	rc = locate(t, slice, &s);
	for (i = 0; rc == 0 && i < n; i++)
		if (pos[i] >= s->quota)
			rc = -ERANGE;
	if (rc != 0 || n == 0) {
		pthread_mutex_unlock(&t->lock);
		return rc;
	}
	for (i = 0; i < n; i++) {
		s->nb_used += !s->truth[pos[i]].used;
		store(&s->truth[pos[i]], &f[i]);
		note_change(s, pos[i]);
	}
	rc = publish(t, s, &retired, ticket);
	pthread_mutex_unlock(&t->lock);
	if (rc == 0)
		restart_hits(t, slice, pos, n, retired);
	return rc;
}

int
sp_lookup_delete_nowait(struct sp_lookup *t, uint16_t slice, uint32_t pos, uint64_t *ticket)
{
	struct lk_view *retired;
	struct lk_slice *s;
	int rc;

	if (t == NULL || ticket == NULL)
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	rc = locate(t, slice, &s);
	if (rc == 0 && pos >= s->quota)
		rc = -ERANGE;
	if (rc == 0 && !s->truth[pos].used)
		rc = -ENOENT;
	if (rc != 0) {
		pthread_mutex_unlock(&t->lock);
		return rc;
	}
	s->truth[pos].used = false;
	s->nb_used--;
	note_change(s, pos);
	rc = publish(t, s, &retired, ticket);
	pthread_mutex_unlock(&t->lock);
	if (rc == 0)
		lk_view_retire(t, retired, false);
	return rc;
}

int
sp_lookup_finish(struct sp_lookup *t, uint16_t slice, uint64_t ticket, const uint32_t *pos,
		 uint32_t n)
{
	struct lk_slice *s;
	int rc;

	if (t == NULL || (n > 0 && pos == NULL))
		return -EINVAL;
	pthread_mutex_lock(&t->lock);
	rc = locate(t, slice, &s);
	if (rc == 0 && ticket < s->first_seq)
		rc = -ENOENT; /* the slice of the ticket was deleted, this one made since */
	if (rc == 0 && s->view_seq < ticket) {
		rc = -EINPROGRESS;
		if (!s->compiling && s->compile_rc != 0 && s->compile_rc != -EAGAIN)
			rc = s->compile_rc; /* told once; the compiler tries again */
		if (!s->compiling)
			ask_compile(t, s); /* one that ended short of the ticket, or failed */
	}
	pthread_mutex_unlock(&t->lock);
	if (rc == 0)
		restart_hits(t, slice, pos, n, NULL);
	return rc;
}

/* A nowait write or delete (rc, ticket) seen through: its compile waited for (unlocked). */
static int
wait_visible(struct sp_lookup *t, uint16_t slice, int rc, uint64_t ticket, const uint32_t *pos,
	     uint32_t n)
{
	struct lk_slice *s;

	if (rc != -EINPROGRESS)
		return rc;
	pthread_mutex_lock(&t->lock);
	rc = locate(t, slice, &s);
	if (rc == 0)
		rc = compile_until(t, s, &s->view_seq, ticket);
	pthread_mutex_unlock(&t->lock);
	if (rc == 0)
		restart_hits(t, slice, pos, n, NULL);
	return rc;
}

int
sp_lookup_write_bulk(struct sp_lookup *t, uint16_t slice, const uint32_t *pos,
		     const struct sp_filter *f, uint32_t n)
{
	uint64_t ticket;
	int rc = sp_lookup_write_bulk_nowait(t, slice, pos, f, n, &ticket);

	return wait_visible(t, slice, rc, ticket, pos, n);
}

int
sp_lookup_write(struct sp_lookup *t, uint16_t slice, uint32_t pos, const struct sp_filter *f)
{
	if (f == NULL)
		return -EINVAL;
	return sp_lookup_write_bulk(t, slice, &pos, f, 1);
}

int
sp_lookup_delete(struct sp_lookup *t, uint16_t slice, uint32_t pos)
{
	uint64_t ticket;
	int rc = sp_lookup_delete_nowait(t, slice, pos, &ticket);

	return wait_visible(t, slice, rc, ticket, &pos, 0);
}

int
sp_lookup_read(const struct sp_lookup *t, uint16_t slice, uint32_t pos, struct sp_filter *f,
	       uint64_t *hits)
{
	struct sp_lookup *w = (struct sp_lookup *)(uintptr_t)t; /* the lock */
	const struct lk_slot *slot;
	struct lk_slice *s;
	int rc;

	if (t == NULL || f == NULL || hits == NULL)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	rc = locate(t, slice, &s);
	if (rc == 0 && pos >= s->quota)
		rc = -ERANGE;
	if (rc == 0 && !s->truth[pos].used)
		rc = -ENOENT;
	if (rc == 0) {
		slot = &s->truth[pos];
		*f = (struct sp_filter){.result = slot->res}; /* zero past the width */
		memcpy(f->key.b, slot->f.key.b, LK_KEY_BYTES);
		memcpy(f->mask.b, slot->f.mask.b, LK_KEY_BYTES);
		*hits = lk_hits_now(&s->hits, pos) - slot->hits_zero;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int
sp_lookup_next(const struct sp_lookup *t, uint16_t slice, uint32_t *pos)
{
	struct sp_lookup *w = (struct sp_lookup *)(uintptr_t)t;
	struct lk_slice *s;
	uint32_t p;
	int rc;

	if (t == NULL || pos == NULL)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	rc = locate(t, slice, &s);
	if (rc == 0) {
		for (p = *pos; p < s->quota && !s->truth[p].used; p++)
			;
		if (p < s->quota)
			*pos = p;
		else
			rc = -ENOENT;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int
sp_lookup_info(const struct sp_lookup *t, uint16_t slice, struct sp_lookup_info *info)
{
	struct sp_lookup *w = (struct sp_lookup *)(uintptr_t)t;
	struct lk_slice *s;
	int rc;

	if (t == NULL || info == NULL)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	rc = locate(t, slice, &s);
	if (rc == 0) {
		const struct lk_base *b = s->view->base;

		info->quota = s->quota;
		info->filters = s->nb_used;
		info->compiled = b != NULL ? b->n : 0;
		info->rules = b == NULL ? 0 : b->tree != NULL ? lk_tree_entries(b->tree)
							     : b->acl.nb_groups;
		info->form = b != NULL && b->tree != NULL ? "tree" :
			     b != NULL && b->acl.nb_ctx > 0 ? (b->acl.ranges ? "ranges" : "ternary") :
			     "list";
		info->classifier_bytes = lk_base_classifier_bytes(b);
		info->counter_bytes = (size_t)s->quota * sizeof(s->hits.count[0]);
		info->changes = s->view->n;
		info->copies = s->view->nb_copies;
		info->classifier = b != NULL && b->tree != NULL ? lk_tree_method() :
				   b != NULL && b->acl.nb_ctx > 0 ? lk_acl_method() : "list";
		info->flow_lookups = __atomic_load_n(&s->flows.lookups, __ATOMIC_RELAXED);
		info->flow_hits = __atomic_load_n(&s->flows.hits, __ATOMIC_RELAXED);
		info->flow_resting = __atomic_load_n(&s->flows.off, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* The odd filters before position limit compared with k until one matches: its position, or limit. */
static uint32_t
walk_odd(const struct lk_base *b, const struct lk_bits *k, uint32_t limit,
	 struct sp_lookup_walk *w)
{
	for (uint32_t i = 0; i < b->nb_odd && b->ent[b->odd_idx[i]].pos < limit; i++) {
		w->odd++;
		if (lk_match(&b->odd_filt[i], k))
			return b->ent[b->odd_idx[i]].pos;
	}
	return limit;
}

/* One key's walk through the slice's view (under the lock): 0, or -ENOTSUP for rte_acl's. */
static int
walk_view(const struct lk_view *v, const struct sp_key *key, struct sp_lookup_walk *w,
	  uint32_t *position)
{
	const struct lk_base *b = v->base;
	uint32_t pos = LK_NONE;

	if (b != NULL && b->tree == NULL && b->acl.nb_ctx > 0)
		return -ENOTSUP;
	w->keys++;
	w->changes += v->n;
	if (b != NULL && b->tree != NULL)
		pos = lk_tree_walk(b->tree, key->b, w);
	if (b != NULL) {
		struct lk_bits k = lk_bits_of(key);

		pos = walk_odd(b, &k, pos, w);
	}
	*position = pos == LK_NONE ? SP_LOOKUP_MISS : pos;
	return 0;
}

int
sp_lookup_walk(const struct sp_lookup *t, uint16_t slice, const struct sp_key *key,
	       struct sp_lookup_walk *w, uint32_t *position)
{
	struct sp_lookup *m = (struct sp_lookup *)(uintptr_t)t;
	struct lk_slice *s;
	int rc;

	if (t == NULL || key == NULL || w == NULL || position == NULL)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	rc = locate(t, slice, &s);
	if (rc == 0)
		rc = walk_view(s->view, key, w, position);
	pthread_mutex_unlock(&m->lock);
	return rc;
}
