/* SPDX-License-Identifier: BSD-3-Clause */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_malloc.h>

/* Members scanned for the matching one after rte_acl named the group. */
#define MAX_MEMBERS 64

enum { F_BYTE12, F_0_3, F_4_7, F_8_9, F_10_11, F_BYTE13, NB_FIELDS };
RTE_ACL_RULE_DEF(lk_rule, NB_FIELDS);

/*
 * rte_acl reads its first field as one byte and every other input group as
 * 4 bytes from the group's first offset, and a group must be filled (one of
 * a lone byte builds but never matches). So byte 12 is the one-byte field
 * and byte 13 a 4-byte field over bytes 12-15 whose other bytes are
 * don't-care; the keys handed to rte_acl are 16 bytes for that read.
 */
#define FIELD(i, t, sz, in, off)                                                                   \
	{.type = RTE_ACL_FIELD_TYPE_##t, .size = sz, .field_index = i, .input_index = in,          \
	 .offset = off}
static const struct rte_acl_field_def defs[NB_FIELDS] = {
	FIELD(F_BYTE12, BITMASK, 1, 0, 12), FIELD(F_0_3, BITMASK, 4, 1, 0),
	FIELD(F_4_7, BITMASK, 4, 2, 4),     FIELD(F_8_9, RANGE, 2, 3, 8),
	FIELD(F_10_11, RANGE, 2, 3, 10),    FIELD(F_BYTE13, BITMASK, 4, 4, 12),
};
/* The key bytes each field stands for. */
static const struct {
	uint8_t first, len;
} field_bytes[NB_FIELDS] = {{12, 1}, {0, 4}, {4, 4}, {8, 2}, {10, 2}, {13, 1}};
#define RANGE_OFF 8

/* Everything but bytes 8-11: what members of one group have in common. */
static const struct lk_bits outside_ranges = {
	.b = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}};

static unsigned int acl_seq; /* rte_acl returns an existing context of the same name */

static uint16_t
be16_at(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Field i of b (key or mask bytes) as a number, its first byte the highest. */
static uint32_t
field_of(const uint8_t *b, unsigned int i)
{
	uint32_t v = 0;
	unsigned int j;

	for (j = 0; j < field_bytes[i].len; j++)
		v = v << 8 | b[field_bytes[i].first + j];
	return v;
}

/* A prefix within every field: what rte_acl compiles without exploding. */
static bool
acl_friendly(const struct lk_filter *f)
{
	unsigned int i;

	for (i = 0; i < NB_FIELDS; i++) {
		uint32_t bits = 8 * field_bytes[i].len;
		uint32_t inv = ~field_of(f->mask.b, i) & (uint32_t)((1ull << bits) - 1);

		if ((inv & (inv + 1)) != 0)
			return false;
	}
	return true;
}

struct lk_base *
lk_base_alloc(uint32_t n, int socket)
{
	struct lk_base *b = rte_zmalloc_socket("lk_base", sizeof(*b), 0, socket);

	if (b == NULL)
		return NULL;
	b->n = n;
	if (n == 0)
		return b;
	b->ent = rte_malloc_socket("lk_base_ent", n * sizeof(b->ent[0]), 0, socket);
	b->filt = rte_malloc_socket("lk_base_filt", n * sizeof(b->filt[0]), 0, socket);
	if (b->ent == NULL || b->filt == NULL) {
		lk_base_free(b);
		return NULL;
	}
	return b;
}

void
lk_base_free(struct lk_base *b)
{
	uint32_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->nb_ctx; i++)
		rte_acl_free(b->ctx[i]);
	rte_free(b->ctx);
	rte_free(b->ent);
	rte_free(b->filt);
	rte_free(b->mem);
	rte_free(b->group_first);
	rte_free(b->odd_idx);
	rte_free(b->odd_filt);
	rte_free(b);
}

static void
ports_of(const struct lk_filter *f, struct lk_ports *p)
{
	unsigned int j;

	for (j = 0; j < 2; j++) {
		p->lo[j] = (uint16_t)field_of(f->key.b, F_8_9 + j);
		p->hi[j] = p->lo[j] | (uint16_t)~field_of(f->mask.b, F_8_9 + j);
	}
}

/* Filters of ranks r and q agree outside bytes 8-11 and in their results. */
static bool
same_rest(const struct lk_base *b, uint32_t r, uint32_t q)
{
	uint32_t i = b->mem[r].idx, j = b->mem[q].idx;
	const struct lk_filter *x = &b->filt[i], *y = &b->filt[j];
	unsigned int w;

	for (w = 0; w < 2; w++)
		if (((x->key.w[w] ^ y->key.w[w]) | (x->mask.w[w] ^ y->mask.w[w])) &
		    outside_ranges.w[w])
			return false;
	return memcmp(&b->ent[i].res, &b->ent[j].res, sizeof(b->ent[i].res)) == 0;
}

/*
 * Can box a (ranks [first, next)) and the box of rank or run next be one
 * box: same rest, equal in field `same`, adjacent in field `grow`?
 */
static bool
extends(const struct lk_base *b, uint32_t first, const struct lk_ports *a,
	const struct lk_ports *next_box, uint32_t next, unsigned int grow)
{
	unsigned int same = 1 - grow;

	return next - first < MAX_MEMBERS && same_rest(b, first, next) &&
	       a->lo[same] == next_box->lo[same] && a->hi[same] == next_box->hi[same] &&
	       a->hi[grow] != UINT16_MAX && next_box->lo[grow] == a->hi[grow] + 1;
}

/*
 * Groups of consecutive ranks that tile a box: first runs along bytes
 * 10-11 (a range's prefixes, in order), then runs of runs along bytes 8-9
 * (the cross product of two ranges). A filter rte_acl does not take may
 * lie between members: it is searched beside, and the lower index wins.
 * Sets group_first and returns the boxes (NULL: no memory).
 */
static struct lk_ports *
merge_groups(struct lk_base *b)
{
	struct lk_ports *box = malloc(b->nb_acl * sizeof(*box));
	uint32_t *run_first = malloc((b->nb_acl + 1) * sizeof(*run_first));
	uint32_t i, r, nb_runs = 0;

	if (box == NULL || run_first == NULL) {
		free(box);
		free(run_first);
		return NULL;
	}
	for (i = 0; i < b->nb_acl; i++) {
		if (nb_runs > 0 &&
		    extends(b, run_first[nb_runs - 1], &box[nb_runs - 1], &b->mem[i].box, i, 1)) {
			box[nb_runs - 1].hi[1] = b->mem[i].box.hi[1];
			continue;
		}
		run_first[nb_runs] = i;
		box[nb_runs++] = b->mem[i].box;
	}
	run_first[nb_runs] = b->nb_acl;
	b->nb_groups = 0;
	for (r = 0; r < nb_runs; r++) {
		uint32_t g = b->nb_groups;

		/* box[g - 1] is written only once run r has been read */
		if (g > 0 && run_first[r + 1] - b->group_first[g - 1] <= MAX_MEMBERS &&
		    extends(b, b->group_first[g - 1], &box[g - 1], &box[r], run_first[r], 0)) {
			box[g - 1].hi[0] = box[r].hi[0];
			continue;
		}
		b->group_first[g] = run_first[r];
		box[g] = box[r];
		b->nb_groups++;
	}
	b->group_first[b->nb_groups] = b->nb_acl;
	free(run_first);
	return box;
}

static void
field(struct rte_acl_field *f, unsigned int i, uint32_t v, uint32_t m)
{
	switch (defs[i].size) {
	case 1:
		f->value.u8 = (uint8_t)v;
		f->mask_range.u8 = (uint8_t)m;
		break;
	case 2:
		f->value.u16 = (uint16_t)v;
		f->mask_range.u16 = (uint16_t)m;
		break;
	default:
		f->value.u32 = v;
		f->mask_range.u32 = m;
		break;
	}
}

/* Group g, of box box, as an rte_acl rule: values in host order. */
static void
make_rule(const struct lk_base *b, uint32_t g, const struct lk_ports *box, struct lk_rule *r)
{
	uint32_t first = b->group_first[g];
	const struct lk_filter *f = &b->filt[b->mem[first].idx];

	memset(r, 0, sizeof(*r));
	r->data.category_mask = 1;
	r->data.priority = RTE_ACL_MAX_PRIORITY - (int32_t)first;
	r->data.userdata = g + 1; /* 0 is rte_acl's "no match" */
	field(&r->field[F_BYTE12], F_BYTE12, f->key.b[12], f->mask.b[12]);
	field(&r->field[F_0_3], F_0_3, field_of(f->key.b, F_0_3), field_of(f->mask.b, F_0_3));
	field(&r->field[F_4_7], F_4_7, field_of(f->key.b, F_4_7), field_of(f->mask.b, F_4_7));
	field(&r->field[F_8_9], F_8_9, box->lo[0], box->hi[0]);
	field(&r->field[F_10_11], F_10_11, box->lo[1], box->hi[1]);
	/* bytes 12-15 as read, byte 13 alone cared for */
	field(&r->field[F_BYTE13], F_BYTE13, (uint32_t)f->key.b[13] << 16,
	      (uint32_t)f->mask.b[13] << 16);
}

/* Fastest first; rte_acl_set_ctx_classify() refuses what the CPU or EAL cannot run. */
static const enum rte_acl_classify_alg algs[] = {
	RTE_ACL_CLASSIFY_AVX512X32, RTE_ACL_CLASSIFY_AVX512X16, RTE_ACL_CLASSIFY_AVX2,
	RTE_ACL_CLASSIFY_SSE,       RTE_ACL_CLASSIFY_NEON,      RTE_ACL_CLASSIFY_ALTIVEC,
	RTE_ACL_CLASSIFY_SCALAR,
};
static const char *const alg_names[] = {"avx512x32", "avx512x16", "avx2",  "sse",
					"neon",      "altivec",   "scalar"};
static int alg_used = -1;

static int
set_classifier(struct rte_acl_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(algs); i++) {
		if (rte_acl_set_ctx_classify(ctx, algs[i]) == 0) {
			__atomic_store_n(&alg_used, (int)i, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -ENOTSUP;
}

const char *
lk_base_classifier(void)
{
	int i = __atomic_load_n(&alg_used, __ATOMIC_RELAXED);

	return i < 0 ? "none yet" : alg_names[i];
}

/* One rte_acl context of groups [g0, g1): NULL with *rc set on failure. */
static struct rte_acl_ctx *
build_acl(const struct lk_base *b, const struct lk_ports *box, uint32_t g0, uint32_t g1,
	  int socket, int *rc)
{
	char name[RTE_ACL_NAMESIZE];
	struct rte_acl_param p = {
		.name = name,
		.socket_id = socket,
		.rule_size = RTE_ACL_RULE_SZ(NB_FIELDS),
		.max_rule_num = g1 - g0,
	};
	struct rte_acl_config cfg = {.num_categories = 1, .num_fields = NB_FIELDS};
	struct rte_acl_ctx *ctx;
	struct lk_rule rule;
	uint32_t g;

	snprintf(name, sizeof(name), "splk%u", __atomic_fetch_add(&acl_seq, 1, __ATOMIC_RELAXED));
	ctx = rte_acl_create(&p);
	if (ctx == NULL) {
		*rc = -ENOMEM;
		return NULL;
	}
	for (g = g0, *rc = 0; g < g1 && *rc == 0; g++) {
		make_rule(b, g, &box[g], &rule);
		*rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)&rule, 1);
	}
	memcpy(cfg.defs, defs, sizeof(defs));
	if (*rc == 0)
		*rc = rte_acl_build(ctx, &cfg);
	if (*rc == 0)
		*rc = set_classifier(ctx);
	if (*rc != 0) {
		rte_acl_free(ctx);
		return NULL;
	}
	return ctx;
}

/* Contexts for groups [g0, g1), halving the range wherever rte_acl gives up. */
static int
build_contexts(struct lk_base *b, const struct lk_ports *box, uint32_t g0, uint32_t g1,
	       int socket)
{
	struct rte_acl_ctx *ctx;
	int rc;

	ctx = build_acl(b, box, g0, g1, socket, &rc);
	if (ctx != NULL) {
		b->ctx[b->nb_ctx++] = ctx;
		return 0;
	}
	if (g1 - g0 == 1 || rc == -EINVAL)
		return rc;
	rc = build_contexts(b, box, g0, g0 + (g1 - g0) / 2, socket);
	if (rc == 0)
		rc = build_contexts(b, box, g0 + (g1 - g0) / 2, g1, socket);
	return rc;
}

/* Sort the filters into rte_acl's and the others. */
static int
split(struct lk_base *b, int socket)
{
	uint32_t i;

	b->mem = rte_malloc_socket("lk_base_mem", b->n * sizeof(b->mem[0]), 0, socket);
	b->group_first = rte_malloc_socket("lk_base_groups", (b->n + 1) * sizeof(b->group_first[0]),
					   0, socket);
	if (b->mem == NULL || b->group_first == NULL)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		if (acl_friendly(&b->filt[i])) {
			ports_of(&b->filt[i], &b->mem[b->nb_acl].box);
			b->mem[b->nb_acl++].idx = i;
		} else {
			b->nb_odd++;
		}
	}
	if (b->nb_odd == 0)
		return 0;
	b->odd_idx = rte_malloc_socket("lk_base_odd", b->nb_odd * sizeof(b->odd_idx[0]), 0, socket);
	b->odd_filt = rte_malloc_socket("lk_base_odd", b->nb_odd * sizeof(b->odd_filt[0]), 0,
					socket);
	if (b->odd_idx == NULL || b->odd_filt == NULL)
		return -ENOMEM;
	b->nb_odd = 0;
	for (i = 0; i < b->n; i++) {
		if (acl_friendly(&b->filt[i]))
			continue;
		b->odd_idx[b->nb_odd] = i;
		b->odd_filt[b->nb_odd++] = b->filt[i];
	}
	return 0;
}

int
lk_base_compile(struct lk_base *b, int socket)
{
	struct lk_ports *box;
	int rc;

	if (b->n == 0)
		return 0;
	rc = split(b, socket);
	if (rc != 0 || b->nb_acl == 0)
		return rc;
	box = merge_groups(b);
	b->ctx = rte_zmalloc_socket("lk_base_ctx", b->nb_groups * sizeof(b->ctx[0]), 0, socket);
	rc = box != NULL && b->ctx != NULL ? build_contexts(b, box, 0, b->nb_groups, socket)
					   : -ENOMEM;
	free(box);
	return rc;
}

uint32_t
lk_base_find(const struct lk_base *b, uint32_t pos)
{
	uint32_t lo = 0, hi = b != NULL ? b->n : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->ent[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (b != NULL ? b->n : 0) && b->ent[lo].pos == pos ? lo : LK_NONE;
}

/* The index of group g's member whose box holds the key's bytes 8-11. */
static inline uint32_t
member(const struct lk_base *b, uint32_t g, const struct lk_bits *k)
{
	uint32_t r = b->group_first[g], end = b->group_first[g + 1];
	uint16_t x, y;

	if (end - r == 1)
		return b->mem[r].idx;
	x = be16_at(&k->b[RANGE_OFF]);
	y = be16_at(&k->b[RANGE_OFF + 2]);
	for (; r < end; r++) {
		const struct lk_ports *p = &b->mem[r].box;

		if (x >= p->lo[0] && x <= p->hi[0] && y >= p->lo[1] && y <= p->hi[1])
			return b->mem[r].idx;
	}
	return LK_NONE; /* unreachable: the members tile the group's box */
}

void
lk_base_classify(const struct lk_base *b, const struct lk_bits *keys, uint32_t *idx, uint32_t n)
{
	const uint8_t *data[LK_BURST];
	uint32_t todo[LK_BURST], rule[LK_BURST], i, j, left = n;

	for (i = 0; i < n; i++) {
		idx[i] = LK_NONE;
		todo[i] = i;
	}
	if (b == NULL)
		return;
	for (j = 0; j < b->nb_ctx && left > 0; j++) {
		uint32_t still = 0;

		for (i = 0; i < left; i++)
			data[i] = keys[todo[i]].b;
		rte_acl_classify(b->ctx[j], data, rule, left, 1);
		for (i = 0; i < left; i++) {
			if (rule[i] != 0)
				idx[todo[i]] = member(b, rule[i] - 1, &keys[todo[i]]);
			else
				todo[still++] = todo[i];
		}
		left = still;
	}
}

bool
lk_base_in_acl(const struct lk_base *b, uint32_t idx)
{
	return acl_friendly(&b->filt[idx]);
}
