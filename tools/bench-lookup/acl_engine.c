/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK's rte_acl as the baseline, in two forms:
 *   acl         the same ternary filters as the slicepath engine: every key
 *               byte a BITMASK field, priority capacity - position, so the
 *               first position wins as in the engine;
 *   acl-ranges  the ClassBench rules themselves (prefixes, port ranges,
 *               protocol), for information: what rte_acl does without the
 *               expansion a ternary table needs.
 * Slices taking turns (bench.h) each have a context of their own.
 * rte_acl has no per-entry update: a write builds a whole new context of
 * its slice, publishes it to the lookups and frees the old one after a
 * grace period.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memory.h>

#define MAX_FIELDS 6
RTE_ACL_RULE_DEF(acl_rule, MAX_FIELDS);

/*
 * rte_acl's input rules: the first field is one byte, read alone; every
 * other input_index is a group read as 4 bytes from its first field's
 * offset, and its fields must fill the 4 bytes (a group of one byte never
 * matches). So byte 13 is a 4-byte field over bytes 12-15 whose other
 * bytes are don't-care (struct bench_key pads the key with zeros for it);
 * ternary_bytes gives the key bytes each field stands for.
 */
static const struct rte_acl_field_def ternary_defs[] = {
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1, .field_index = 0, .input_index = 0,
	 .offset = SP_IPV4_KEY_PROTO},
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 4, .field_index = 1, .input_index = 1,
	 .offset = SP_IPV4_KEY_DST},
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 4, .field_index = 2, .input_index = 2,
	 .offset = SP_IPV4_KEY_SRC},
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 2, .field_index = 3, .input_index = 3,
	 .offset = SP_IPV4_KEY_SPORT},
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 2, .field_index = 4, .input_index = 3,
	 .offset = SP_IPV4_KEY_DPORT},
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 4, .field_index = 5, .input_index = 4,
	 .offset = SP_IPV4_KEY_PROTO},
};

static const struct {
	uint8_t first, len;
} ternary_bytes[RTE_DIM(ternary_defs)] = {
	{SP_IPV4_KEY_PROTO, 1}, {SP_IPV4_KEY_DST, 4}, {SP_IPV4_KEY_SRC, 4}, {SP_IPV4_KEY_SPORT, 2}, {SP_IPV4_KEY_DPORT, 2}, {SP_IPV4_KEY_ZERO, 1},
};

static const struct rte_acl_field_def ranges_defs[] = {
	{.type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1, .field_index = 0, .input_index = 0,
	 .offset = SP_IPV4_KEY_PROTO},
	{.type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = 1, .input_index = 1,
	 .offset = SP_IPV4_KEY_DST},
	{.type = RTE_ACL_FIELD_TYPE_MASK, .size = 4, .field_index = 2, .input_index = 2,
	 .offset = SP_IPV4_KEY_SRC},
	{.type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 3, .input_index = 3,
	 .offset = SP_IPV4_KEY_SPORT},
	{.type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2, .field_index = 4, .input_index = 3,
	 .offset = SP_IPV4_KEY_DPORT},
};

/* How the entries of a set become rte_acl rules. */
struct acl_form {
	const struct rte_acl_field_def *defs;
	uint32_t nb_fields;
	uint32_t (*entries)(const struct bench_set *s);
	/* The slice of position pos: that of the entry there at the start. */
	uint16_t (*slice)(const struct bench_set *s, uint32_t pos);
	/* Rule for entry item of the set at position pos (values in host order). */
	void (*fill)(const struct bench_set *s, uint32_t pos, uint32_t item, struct acl_rule *r);
};

/* Fastest first. */
static const struct {
	enum rte_acl_classify_alg alg;
	const char *name;
} algs[] = {
	{RTE_ACL_CLASSIFY_AVX512X32, "avx512x32"}, {RTE_ACL_CLASSIFY_AVX512X16, "avx512x16"},
	{RTE_ACL_CLASSIFY_AVX2, "avx2"},           {RTE_ACL_CLASSIFY_SSE, "sse"},
	{RTE_ACL_CLASSIFY_SCALAR, "scalar"},
};

struct acl_engine {
	const struct acl_form *form;
	struct rte_acl_ctx **ctx; /* by slice, the lookups': RCU-protected */
	struct acl_rule *rule;   /* by position */
	bool *used;
	struct acl_rule *scratch; /* the used rules, for rte_acl_add_rules() */
	uint32_t n;
	enum rte_acl_classify_alg alg;
	uint32_t results[BENCH_BURST];
};

/*
 * What rte_acl wants for field i from key (or mask) bytes b: the field's
 * bytes big-endian as a host-order number, zero outside the key bytes it
 * stands for.
 */
static uint32_t
field_value(const uint8_t *b, unsigned int i)
{
	unsigned int j, first = ternary_bytes[i].first, end = first + ternary_bytes[i].len;
	uint32_t v = 0;

	for (j = ternary_defs[i].offset; j < ternary_defs[i].offset + ternary_defs[i].size; j++)
		v = v << 8 | (j >= first && j < end ? b[j] : 0);
	return v;
}

static void
set_field(struct rte_acl_field *f, unsigned int size, uint32_t value, uint32_t mask_range)
{
	switch (size) {
	case 1:
		f->value.u8 = (uint8_t)value;
		f->mask_range.u8 = (uint8_t)mask_range;
		break;
	case 2:
		f->value.u16 = (uint16_t)value;
		f->mask_range.u16 = (uint16_t)mask_range;
		break;
	default:
		f->value.u32 = value;
		f->mask_range.u32 = mask_range;
		break;
	}
}

static void
rule_data(struct acl_rule *r, uint32_t priority, uint32_t rule)
{
	memset(r, 0, sizeof(*r));
	r->data.category_mask = 1;
	r->data.priority = priority;
	r->data.userdata = rule + 1; /* 0 is "no match" */
}

static uint32_t
filters(const struct bench_set *s)
{
	return (uint32_t)s->x.n;
}

static uint16_t
filter_slice(const struct bench_set *s, uint32_t pos)
{
	return bench_rule_slice(s, s->x.rule[pos]);
}

static void
fill_ternary(const struct bench_set *s, uint32_t pos, uint32_t f, struct acl_rule *r)
{
	const struct sp_filter *flt = &s->x.filters[f];
	unsigned int i;

	rule_data(r, s->capacity - pos, s->x.rule[f]);
	for (i = 0; i < RTE_DIM(ternary_defs); i++)
		set_field(&r->field[ternary_defs[i].field_index], ternary_defs[i].size,
			  field_value(flt->key.b, i), field_value(flt->mask.b, i));
}

static uint32_t
rules(const struct bench_set *s)
{
	return (uint32_t)s->x.nb_rules;
}

static uint16_t
rule_slice(const struct bench_set *s, uint32_t pos)
{
	return bench_rule_slice(s, pos);
}

static void
fill_ranges(const struct bench_set *s, uint32_t pos, uint32_t rule, struct acl_rule *r)
{
	const struct cb_rule *cr = &s->rules[rule];

	rule_data(r, s->capacity - pos, rule);
	set_field(&r->field[0], 1, cr->proto, cr->proto_mask);
	set_field(&r->field[1], 4, cr->dst, cr->dst_len);
	set_field(&r->field[2], 4, cr->src, cr->src_len);
	set_field(&r->field[3], 2, cr->sport_lo, cr->sport_hi);
	set_field(&r->field[4], 2, cr->dport_lo, cr->dport_hi);
}

static const struct acl_form ternary = {ternary_defs, RTE_DIM(ternary_defs), filters,
					filter_slice, fill_ternary};
static const struct acl_form ranges = {ranges_defs, RTE_DIM(ranges_defs), rules, rule_slice,
				       fill_ranges};

/* The first algorithm of algs this machine (and EAL's SIMD width) lets ctx use. */
static int
choose_alg(struct acl_engine *p, struct engine *e, struct rte_acl_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(algs); i++) {
		if (rte_acl_set_ctx_classify(ctx, algs[i].alg) == 0) {
			p->alg = algs[i].alg;
			snprintf(e->alg, sizeof(e->alg), "%s", algs[i].name);
			return 0;
		}
	}
	return -ENOTSUP;
}

/* A new context of the slice's used rules in *ctx; its rte_acl_build() time in *build_s. */
static int
build_ctx(struct engine *e, uint16_t slice, struct rte_acl_ctx **ctx, double *build_s)
{
	static unsigned int generation; /* rte_acl_create() returns any context of the same name */
	struct acl_engine *p = e->priv;
	struct rte_acl_config cfg = {.num_categories = 1, .num_fields = p->form->nb_fields};
	struct rte_acl_param param = {.socket_id = SOCKET_ID_ANY,
				      .rule_size = RTE_ACL_RULE_SZ(MAX_FIELDS)};
	char name[RTE_ACL_NAMESIZE];
	uint32_t pos, n = 0;
	double start;
	int rc;

	snprintf(name, sizeof(name), "bench-acl-%u", generation++);
	param.name = name;
	memcpy(cfg.defs, p->form->defs, p->form->nb_fields * sizeof(cfg.defs[0]));
	for (pos = 0; pos < p->n; pos++)
		if (p->used[pos] && p->form->slice(e->set, pos) == slice)
			p->scratch[n++] = p->rule[pos];
	param.max_rule_num = RTE_MAX(n, 1u); /* its rules' room: each slice's context its own */
	*ctx = rte_acl_create(&param);
	if (*ctx == NULL)
		return -rte_errno;
	rc = rte_acl_add_rules(*ctx, (const struct rte_acl_rule *)p->scratch, n);
	start = now_s();
	if (rc == 0)
		rc = rte_acl_build(*ctx, &cfg);
	*build_s = now_s() - start;
	if (rc == 0)
		rc = p->alg != RTE_ACL_CLASSIFY_DEFAULT ? rte_acl_set_ctx_classify(*ctx, p->alg)
							: choose_alg(p, e, *ctx);
	if (rc != 0) {
		rte_acl_free(*ctx);
		*ctx = NULL;
	}
	return rc;
}

static int
acl_build_form(struct engine *e, const struct acl_form *form)
{
	struct acl_engine *p = calloc(1, sizeof(*p));
	size_t heap = heap_allocated();
	uint32_t pos;
	int rc = 0;

	if (p == NULL)
		return -ENOMEM;
	e->priv = p;
	p->form = form;
	p->n = form->entries(e->set);
	p->ctx = calloc(e->set->nb_slices, sizeof(*p->ctx));
	p->rule = calloc(RTE_MAX(p->n, 1u), sizeof(*p->rule));
	p->scratch = calloc(RTE_MAX(p->n, 1u), sizeof(*p->scratch));
	p->used = calloc(RTE_MAX(p->n, 1u), sizeof(*p->used));
	if (p->ctx == NULL || p->rule == NULL || p->scratch == NULL || p->used == NULL)
		return -ENOMEM;
	for (pos = 0; pos < p->n; pos++) {
		form->fill(e->set, pos, pos, &p->rule[pos]);
		p->used[pos] = true;
	}
	e->build_s = 0;
	for (uint16_t sl = 0; sl < e->set->nb_slices && rc == 0; sl++) {
		double build_s;

		rc = build_ctx(e, sl, &p->ctx[sl], &build_s);
		e->build_s += build_s;
	}
	e->mem_bytes = heap_allocated() - heap;
	e->entries = p->n;
	return rc;
}

static int
acl_build(struct engine *e)
{
	return acl_build_form(e, &ternary);
}

static int
acl_ranges_build(struct engine *e)
{
	return acl_build_form(e, &ranges);
}

/* A call's bursts, each classified by its slice's context: one context, one slice's keys. */
static void
acl_lookup(struct engine *e, size_t first, uint16_t n, uint32_t *rule)
{
	struct acl_engine *p = e->priv;
	const struct bench_set *s = e->set;

	for (uint16_t at = 0, m; at < n; at += m) {
		struct rte_acl_ctx *ctx =
			__atomic_load_n(&p->ctx[bench_burst_slice(s, first + at)], __ATOMIC_ACQUIRE);

		m = (uint16_t)RTE_MIN(n - at, s->burst);
		rte_acl_classify(ctx, &s->acl_keys[first + at], p->results, m, 1);
		for (uint16_t i = 0; i < m; i++)
			rule[at + i] = p->results[i] - 1; /* no match (0) becomes BENCH_MISS */
	}
}

/*
 * Publish a context of the current rules of position pos's slice; free the
 * old one once no lookup can hold it.
 */
static int
rebuild(struct engine *e, uint32_t pos)
{
	struct acl_engine *p = e->priv;
	uint16_t slice = p->form->slice(e->set, pos);
	struct rte_acl_ctx *ctx, *old = p->ctx[slice];
	double build_s, t0 = now_s();
	int rc = build_ctx(e, slice, &ctx, &build_s);

	if (rc != 0)
		return rc;
	__atomic_store_n(&p->ctx[slice], ctx, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(e->qsbr, RTE_QSBR_THRID_INVALID);
	rte_acl_free(old);
	e->held_us = (now_s() - t0) * 1e6; /* the whole rebuild holds the writer */
	return 0;
}

static int
acl_write(struct engine *e, uint32_t pos, uint32_t f)
{
	struct acl_engine *p = e->priv;

	if (pos >= p->n || f >= p->n)
		return -ERANGE;
	p->form->fill(e->set, pos, f, &p->rule[pos]);
	p->used[pos] = true;
	return rebuild(e, pos);
}

static int
acl_erase(struct engine *e, uint32_t pos)
{
	struct acl_engine *p = e->priv;

	if (pos >= p->n)
		return -ERANGE;
	if (!p->used[pos])
		return -ENOENT;
	p->used[pos] = false;
	return rebuild(e, pos);
}

static void
acl_free(struct engine *e)
{
	struct acl_engine *p = e->priv;

	if (p != NULL && p->ctx != NULL)
		for (uint16_t sl = 0; sl < e->set->nb_slices; sl++)
			rte_acl_free(p->ctx[sl]);
	if (p != NULL) {
		free(p->ctx);
		free(p->rule);
		free(p->scratch);
		free(p->used);
	}
	free(p);
	e->priv = NULL;
}

const struct engine_ops acl_engine_ops = {
	.name = "acl",
	.build = acl_build,
	.lookup = acl_lookup,
	.write = acl_write,
	.erase = acl_erase,
	.free = acl_free,
};

/* For information only: its entries are rules, not the filters the others hold. */
const struct engine_ops acl_ranges_engine_ops = {
	.name = "acl-ranges",
	.build = acl_ranges_build,
	.lookup = acl_lookup,
	.free = acl_free,
};
