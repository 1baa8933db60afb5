/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The slicepath lookup engine as the daemon uses it: one table of the set's
 * capacity, one slice whose quota is the set's filters, filter i at
 * position i, its result carrying its rule's index, all written in one
 * sp_lookup_write_bulk() (build time: until the lookups see them all).
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_memory.h>

#define SLICE 0

struct sp_engine {
	struct sp_lookup *t;
	struct sp_result res[BENCH_BURST];
	struct sp_result *results[BENCH_BURST];
	uint32_t pos[BENCH_BURST];
};

/* Filter f of the set, its result carrying its rule. */
static struct sp_filter
filter(const struct bench_set *s, uint32_t f)
{
	struct sp_filter out = s->x.filters[f];

	memset(&out.result, 0, sizeof(out.result));
	memcpy(out.result.data, &s->x.rule[f], sizeof(s->x.rule[f]));
	return out;
}

static int
sp_write(struct engine *e, uint32_t pos, uint32_t f)
{
	struct sp_engine *p = e->priv;
	struct sp_filter flt = filter(e->set, f);

	return sp_lookup_write(p->t, SLICE, pos, &flt);
}

static int
sp_erase(struct engine *e, uint32_t pos)
{
	struct sp_engine *p = e->priv;

	return sp_lookup_delete(p->t, SLICE, pos);
}

static int
sp_build(struct engine *e)
{
	const struct bench_set *s = e->set;
	struct sp_lookup_params params = {
		.name = "bench",
		.capacity = s->capacity,
		.max_slices = 1,
		.socket = SOCKET_ID_ANY,
		.qsbr = e->qsbr,
	};
	struct sp_engine *p = calloc(1, sizeof(*p));
	struct sp_filter *f = malloc(s->x.n * sizeof(*f));
	uint32_t *pos = malloc(s->x.n * sizeof(*pos));
	struct sp_lookup_info info;
	size_t heap = heap_allocated();
	double start;
	uint32_t i;
	int rc;

	if (p == NULL || f == NULL || pos == NULL) {
		free(p);
		free(f);
		free(pos);
		return -ENOMEM;
	}
	e->priv = p;
	for (i = 0; i < BENCH_BURST; i++)
		p->results[i] = &p->res[i];
	for (i = 0; i < s->x.n; i++) {
		f[i] = filter(s, i);
		pos[i] = i;
	}
	start = now_s();
	p->t = sp_lookup_create(&params);
	if (p->t == NULL) {
		free(f);
		free(pos);
		return -rte_errno;
	}
	rc = sp_lookup_slice_add(p->t, SLICE, (uint32_t)s->x.n);
	if (rc == 0)
		rc = sp_lookup_write_bulk(p->t, SLICE, pos, f, (uint32_t)s->x.n);
	if (rc == 0)
		rc = sp_lookup_sync(p->t, SLICE);
	e->build_s = now_s() - start;
	free(f);
	free(pos);
	if (rc == 0 && sp_lookup_info(p->t, SLICE, &info) == 0) {
		snprintf(e->alg, sizeof(e->alg), "%s", info.classifier);
		printf("  sp: %u filters compiled into %u rte_acl rules\n", info.compiled,
		       info.rules);
	}
	e->mem_bytes = heap_allocated() - heap;
	e->entries = (uint32_t)s->x.n;
	return rc;
}

static void
sp_lookup(struct engine *e, size_t first, uint16_t n, uint32_t *rule)
{
	struct sp_engine *p = e->priv;
	uint16_t i;

	sp_lookup_bulk(p->t, SLICE, &e->set->sp_keys[first], p->results, p->pos, n);
	for (i = 0; i < n; i++) {
		rule[i] = BENCH_MISS;
		if (p->pos[i] != SP_LOOKUP_MISS)
			memcpy(&rule[i], p->res[i].data, sizeof(rule[i]));
	}
}

static void
sp_free(struct engine *e)
{
	struct sp_engine *p = e->priv;

	if (p != NULL)
		sp_lookup_free(p->t);
	free(p);
	e->priv = NULL;
}

const struct engine_ops sp_engine_ops = {
	.name = "sp",
	.build = sp_build,
	.lookup = sp_lookup,
	.write = sp_write,
	.erase = sp_erase,
	.free = sp_free,
};
