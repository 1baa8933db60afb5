/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compiler thread: folds a slice's changes into a new base, off the
 * fast path. It snapshots the slice's filters under the lock, compiles
 * them without it (seconds at 128K filters, while writes go on against the
 * old base), then re-bases the changes made meanwhile on the new base and
 * publishes both at once. Lookups see either the old view or the new, each
 * complete; the old is freed after a grace period.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "breathe.h"
#include "table.h"
#include "../common/log.h"

SP_LOG_TYPE("lookup")

/*
 * A slice's compiles take at most 1/COMPILE_SHARE of the time: after one of
 * d ns, the next waits (COMPILE_SHARE - 1) d. A compile streams the slice's
 * filters through the shared caches several times over (snapshot, split,
 * build, the old base freed), so a slice rewriting 100K filters flat out,
 * compiled back to back, cost 63 other slices' lookups 36 % on the 2-vCPU
 * VM (a share of 10: 10 % of their lookups, 20: 0-2 %, 40: none); its own
 * writes wait instead (pending answers, docs/lookup.md).
 */
#define COMPILE_SHARE 20

/* Writes that pause this long get compiled in; a slice writing on keeps its changes. */
#define QUIET_NS (50 * 1000 * 1000ull)
/* Changes that trigger a compile even while writes go on: half the room. */
static bool
busy(const struct lk_changes *c)
{
	return c->n - c->nb_copies >= LK_WRITES_MAX / 2 || c->nb_copies >= LK_COPIES_MAX / 2;
}
#define POLL_MS 10

uint64_t
lk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Without RCU (no qsbr) the lookups run on the writer's thread, so only a
 * compile that writer waits for can free what they read.
 */
static bool
wants_compile(const struct sp_lookup *t, const struct lk_slice *s, uint64_t now)
{
	if (now < s->next_compile_ns)
		return false;
	if (s->pending || t->qsbr == NULL)
		return s->pending;
	return s->chg->n > 0 && (busy(s->chg) || now - s->last_change_ns >= QUIET_NS);
}

/* Pending slices first: a writer waits for them. */
static struct lk_slice *
pick(struct sp_lookup *t)
{
	struct lk_slice *s, *later = NULL;
	uint64_t now = lk_now_ns();
	uint16_t i;

	for (i = 0; i < t->max_slices; i++) {
		s = t->slices[i];
		if (s == NULL || !wants_compile(t, s, now))
			continue;
		if (s->pending)
			return s;
		if (later == NULL)
			later = s;
	}
	return later;
}

/* The slice's filters in position order, and the dirty bits cleared: under the lock. */
static struct lk_base *
snapshot(const struct sp_lookup *t, struct lk_slice *s)
{
	uint32_t pos, n = 0;
	struct lk_base *b;

	for (pos = 0; pos < s->quota; pos++)
		n += s->truth[pos].used;
	b = lk_base_alloc(n, t->socket);
	if (b == NULL)
		return NULL;
	n = 0;
	for (pos = 0; pos < s->quota; pos++) {
		if (!s->truth[pos].used)
			continue;
		b->ent[n].pos = pos;
		b->ent[n].res = s->truth[pos].res;
		b->filt[n++] = s->truth[pos].f;
	}
	memset(s->dirty, 0, ((s->quota + 63) / 64) * sizeof(s->dirty[0]));
	return b;
}

/*
 * The changes made since the snapshot, re-based on base b (locked). A
 * writer waits for one turn of REBASE_TURN at most: the lock is let go
 * between turns, each change clearing its dirty bit as it is taken and a
 * write made meanwhile setting it again. 0 with *out; -EAGAIN if they do
 * not fit beside b or keep coming (the compile starts again from a new
 * snapshot); -ENOMEM; -ECANCELED if the slice was deleted meanwhile
 * (s->deleted).
 */
#define REBASE_TURN 16
#define REBASE_TURNS 256
static int
rebase(struct sp_lookup *t, struct lk_slice *s, const struct lk_base *b, struct lk_changes **out)
{
	struct lk_changes *c = lk_changes_new();
	uint32_t words = (s->quota + 63) / 64;

	*out = NULL;
	if (c == NULL)
		return -ENOMEM;
	for (unsigned int turn = 0; turn < REBASE_TURNS; turn++) {
		uint32_t done = 0;

		for (uint32_t w = 0; w < words && done < REBASE_TURN; w++)
			while (s->dirty[w] != 0 && done < REBASE_TURN) {
				uint32_t pos = w * 64 + (uint32_t)__builtin_ctzll(s->dirty[w]);

				s->dirty[w] &= s->dirty[w] - 1;
				if (lk_changes_set(c, b, s->truth, pos) != 0) {
					lk_changes_free(c);
					return -EAGAIN;
				}
				done++;
			}
		if (done < REBASE_TURN) { /* every word seen clean, under the lock */
			*out = c;
			return 0;
		}
		pthread_mutex_unlock(&t->lock);
		pthread_mutex_lock(&t->lock);
		if (s->deleted) {
			lk_changes_free(c);
			return -ECANCELED;
		}
	}
	lk_changes_free(c);
	return -EAGAIN;
}

/* A slice deleted while it compiled (locked on entry and exit): its writer did not wait. */
static void
free_deleted(struct sp_lookup *t, struct lk_slice *s, struct lk_base *b)
{
	pthread_mutex_unlock(&t->lock);
	lk_base_free(b);
	lk_wait_readers(t);
	lk_slice_free(s);
	pthread_mutex_lock(&t->lock);
}

/* Compile s (the lock held on entry and exit, released while compiling): 0 or -errno. */
static int
compile(struct sp_lookup *t, struct lk_slice *s)
{
	struct lk_changes *c = NULL;
	struct lk_view *v = NULL, *old;
	struct lk_base *b;
	uint64_t start = lk_now_ns(), end, snap_seq = s->seq;
	int rc = -ENOMEM;

	s->compiling = true;
	b = snapshot(t, s);
	pthread_mutex_unlock(&t->lock);
	if (b != NULL)
		rc = lk_base_compile(b, t->form, t->socket);
	pthread_mutex_lock(&t->lock);
	if (rc == 0 && !s->deleted)
		rc = rebase(t, s, b, &c);
	if (s->deleted) {
		free_deleted(t, s, b);
		return 0;
	}
	if (rc == 0) {
		v = lk_view_make(b, c, s->truth);
		if (v == NULL)
			rc = -ENOMEM;
	}
	s->compiling = false;
	s->compile_rc = rc;
	if (rc != 0) {
		if (rc != -EAGAIN)
			SP_LOG(ERR, "%s: cannot compile %u filters: %s", t->name,
			       b != NULL ? b->n : 0, strerror(-rc));
		lk_changes_free(c);
		lk_base_free(b);
		pthread_cond_broadcast(&t->published);
		return rc;
	}
	end = lk_now_ns();
	s->next_compile_ns = end + (COMPILE_SHARE - 1) * (end - start);
	old = s->view;
	lk_changes_free(s->chg);
	s->chg = c;
	__atomic_store_n(&s->view, v, __ATOMIC_RELEASE);
	s->view_seq = s->seq;
	s->base_seq = snap_seq;
	s->pending = false;
	SP_LOG(DEBUG, "%s: compiled %u filters into %u rules in %.3f s, %u changes beside", t->name,
	       b->n, b->acl.nb_groups, (double)(end - start) / 1e9, c->n);
	pthread_cond_broadcast(&t->published);
	pthread_mutex_unlock(&t->lock);
	lk_view_retire(t, old, true);
	pthread_mutex_lock(&t->lock);
	return 0;
}

/* Every LK_HITS_FOLD_NS, the slices' hit counters into their totals (hits.h; locked). */
static void
fold_hits(struct sp_lookup *t)
{
	uint64_t now = lk_now_ns();

	if (now < t->next_fold_ns)
		return;
	t->next_fold_ns = now + LK_HITS_FOLD_NS;
	for (uint16_t i = 0; i < t->max_slices; i++)
		if (t->slices[i] != NULL)
			lk_hits_fold(&t->slices[i]->hits);
}

static void *
compiler_main(void *arg)
{
	struct sp_lookup *t = arg;
	struct lk_slice *s;
	struct timespec until;
	int rc;

	lk_breathe_start();
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		fold_hits(t);
		s = pick(t);
		if (s != NULL) {
			rc = compile(t, s);
			/* A failed compile is retried, but not in a tight loop. */
			if (rc != 0 && rc != -EAGAIN) {
				clock_gettime(CLOCK_MONOTONIC, &until);
				until.tv_sec += 1;
				pthread_cond_timedwait(&t->work, &t->lock, &until);
			}
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += POLL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->work, &t->lock, &until);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int
lk_compiler_start(struct sp_lookup *t)
{
	pthread_condattr_t attr;
	int rc;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&t->work, &attr);
	pthread_cond_init(&t->published, NULL);
	pthread_condattr_destroy(&attr);
	/* On the CPUs no lcore has (the main lcore's if there are none), as DPDK's own threads. */
	rc = rte_ctrl_thread_create(&t->compiler, "sp-lookup-cc", NULL, compiler_main, t);
	if (rc != 0)
		return rc < 0 ? rc : -rc;
	t->compiler_started = true;
	return 0;
}

void
lk_compiler_stop(struct sp_lookup *t)
{
	if (!t->compiler_started)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->work);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->compiler, NULL);
	t->compiler_started = false;
}
