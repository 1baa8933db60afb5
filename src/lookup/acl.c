/* SPDX-License-Identifier: BSD-3-Clause */
#include "acl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "base.h"

/* Members scanned for the matching one after rte_acl named the group. */
#define MAX_MEMBERS 64

enum { F_BYTE12, F_0_3, F_4_7, F_8_9, F_10_11, F_BYTE13, NB_FIELDS };
RTE_ACL_RULE_DEF(lk_rule, NB_FIELDS);

/*
 * rte_acl reads its first field as one byte and every other input group as
 * 4 bytes from the group's first offset, and a group must be filled (one of
 * a lone byte builds but never matches). So byte 12 is the one-byte field
 * and byte 13 a 4-byte field over bytes 10-13 whose other bytes are
 * don't-care: no read goes past the 14 key bytes, so rte_acl reads the
 * callers' keys where they are.
 */
#define FIELD(i, t, sz, in, off)                                                                   \
	{.type = RTE_ACL_FIELD_TYPE_##t, .size = sz, .field_index = i, .input_index = in,          \
	 .offset = off}
#define DEFS(ports)                                                                                \
	{                                                                                          \
		FIELD(F_BYTE12, BITMASK, 1, 0, 12), FIELD(F_0_3, BITMASK, 4, 1, 0),               \
		FIELD(F_4_7, BITMASK, 4, 2, 4), FIELD(F_8_9, ports, 2, 3, 8),                      \
		FIELD(F_10_11, ports, 2, 3, 10), FIELD(F_BYTE13, BITMASK, 4, 4, 10),               \
	}
static const struct rte_acl_field_def ternary_defs[NB_FIELDS] = DEFS(BITMASK);
static const struct rte_acl_field_def range_defs[NB_FIELDS] = DEFS(RANGE);

/* The key bytes each field stands for. */
static const struct {
	uint8_t first, len;
} field_bytes[NB_FIELDS] = {{12, 1}, {0, 4}, {4, 4}, {8, 2}, {10, 2}, {13, 1}};

/* Everything but bytes 8-11: what members of one group have in common. */
static const struct lk_bits outside_ranges = {
	.b = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}};

static unsigned int acl_seq; /* rte_acl returns an existing context of the same name */

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

/* A filter's box in the two 16-bit fields of bytes 8-9 and 10-11. */
struct lk_ports {
	uint16_t lo[2];
	uint16_t hi[2];
};

bool
lk_acl_takes(const struct lk_filter *f)
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

static struct lk_ports
box_of(const struct lk_filter *f)
{
	struct lk_ports p;
	unsigned int j;

	for (j = 0; j < 2; j++) {
		p.lo[j] = (uint16_t)field_of(f->key.b, F_8_9 + j);
		p.hi[j] = p.lo[j] | (uint16_t)~field_of(f->mask.b, F_8_9 + j);
	}
	return p;
}

uint32_t
lk_acl_ports_lo(const struct lk_filter *f)
{
	struct lk_ports p = box_of(f);

	return (uint32_t)p.lo[0] << 16 | p.lo[1];
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
 * Without ranges, each rank is its own group. Sets a's groups and returns
 * their boxes (NULL: no memory).
 */
static struct lk_ports *
group(const struct lk_base *b, struct lk_acl *a, bool ranges, int socket)
{
	struct lk_ports *box = malloc(b->nb_acl * sizeof(*box));
	uint32_t *run_first = malloc((b->nb_acl + 1) * sizeof(*run_first));
	uint32_t i, r, nb_runs = 0;

	a->ranges = ranges;
	a->group_first = rte_malloc_socket("lk_acl_groups", (b->nb_acl + 1) *
					   sizeof(a->group_first[0]), 0, socket);
	if (box == NULL || run_first == NULL || a->group_first == NULL) {
		free(box);
		free(run_first);
		return NULL;
	}
	for (i = 0; i < b->nb_acl; i++) {
		struct lk_ports p = box_of(&b->filt[b->mem[i].idx]);

		if (ranges && nb_runs > 0 &&
		    extends(b, run_first[nb_runs - 1], &box[nb_runs - 1], &p, i, 1)) {
			box[nb_runs - 1].hi[1] = p.hi[1];
			continue;
		}
		run_first[nb_runs] = i;
		box[nb_runs++] = p;
	}
	run_first[nb_runs] = b->nb_acl;
	a->nb_groups = 0;
	for (r = 0; r < nb_runs; r++) {
		uint32_t g = a->nb_groups;

		/* box[g - 1] is written only once run r has been read */
		if (ranges && g > 0 && run_first[r + 1] - a->group_first[g - 1] <= MAX_MEMBERS &&
		    extends(b, a->group_first[g - 1], &box[g - 1], &box[r], run_first[r], 0)) {
			box[g - 1].hi[0] = box[r].hi[0];
			continue;
		}
		a->group_first[g] = run_first[r];
		box[g] = box[r];
		a->nb_groups++;
	}
	a->group_first[a->nb_groups] = b->nb_acl;
	free(run_first);
	return box;
}

bool
lk_acl_ranges_pay(const struct lk_base *b)
{
	struct lk_acl a = {0};
	struct lk_ports *box = group(b, &a, true, SOCKET_ID_ANY);
	bool pays = box != NULL && a.nb_groups * 2 <= b->nb_acl;

	free(box);
	lk_acl_free(&a);
	return pays;
}

static void
field(struct rte_acl_field *f, unsigned int i, uint32_t v, uint32_t m)
{
	switch (ternary_defs[i].size) { /* the same sizes in both forms */
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

/*
 * What rte_acl returns for group g (0 is its "no match"): a lone filter's
 * index + 1, so that most lookups need no table to find their filter; or,
 * flagged, the group's first rank and member count, so that finding the
 * member reads the members alone.
 */
#define GROUP_FLAG (1u << 31)
#define COUNT_SHIFT 25 /* members - 1 in bits 25-30, first rank below */
#define RANK_MASK ((1u << COUNT_SHIFT) - 1)
_Static_assert(MAX_MEMBERS - 1 < 1 << (31 - COUNT_SHIFT), "a member count fits its bits");
/* Ranks fit below: a table holds at most 1 Mi filters (config.c). */
static uint32_t
userdata(const struct lk_base *b, const struct lk_acl *a, uint32_t g)
{
	uint32_t first = a->group_first[g], count = a->group_first[g + 1] - first;

	return count == 1 ? b->mem[first].idx + 1
			  : GROUP_FLAG | (count - 1) << COUNT_SHIFT | first;
}

static inline uint32_t
members_of(uint32_t u)
{
	return ((u & ~GROUP_FLAG) >> COUNT_SHIFT) + 1;
}

/* Group g, of box box, as an rte_acl rule: values in host order. */
static void
make_rule(const struct lk_base *b, const struct lk_acl *a, uint32_t g, const struct lk_ports *box,
	  struct lk_rule *r)
{
	uint32_t first = a->group_first[g];
	const struct lk_filter *f = &b->filt[b->mem[first].idx];
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->data.category_mask = 1;
	r->data.priority = RTE_ACL_MAX_PRIORITY - (int32_t)first;
	r->data.userdata = userdata(b, a, g);
	for (i = 0; i < NB_FIELDS; i++) {
		uint32_t v = field_of(f->key.b, i), m = field_of(f->mask.b, i);

		if (a->ranges && (i == F_8_9 || i == F_10_11)) {
			v = box->lo[i - F_8_9];
			m = box->hi[i - F_8_9];
		}
		/* F_BYTE13 is read as bytes 10-13: byte 13 is its lowest */
		field(&r->field[i], i, v, m);
	}
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
lk_acl_method(void)
{
	int i = __atomic_load_n(&alg_used, __ATOMIC_RELAXED);

	return i < 0 ? "none yet" : alg_names[i];
}

/* One rte_acl context of groups [g0, g1): NULL with *rc set on failure. */
static struct rte_acl_ctx *
build_ctx(const struct lk_base *b, const struct lk_acl *a, const struct lk_ports *box, uint32_t g0,
	  uint32_t g1, int socket, int *rc)
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
		make_rule(b, a, g, &box[g], &rule);
		*rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)&rule, 1);
	}
	memcpy(cfg.defs, a->ranges ? range_defs : ternary_defs, sizeof(cfg.defs[0]) * NB_FIELDS);
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
build_contexts(const struct lk_base *b, struct lk_acl *a, const struct lk_ports *box, uint32_t g0,
	       uint32_t g1, int socket)
{
	struct rte_acl_ctx *ctx;
	int rc;

	ctx = build_ctx(b, a, box, g0, g1, socket, &rc);
	if (ctx != NULL) {
		a->ctx[a->nb_ctx++] = ctx;
		return 0;
	}
	if (g1 - g0 == 1 || rc == -EINVAL)
		return rc;
	rc = build_contexts(b, a, box, g0, g0 + (g1 - g0) / 2, socket);
	if (rc == 0)
		rc = build_contexts(b, a, box, g0 + (g1 - g0) / 2, g1, socket);
	return rc;
}

int
lk_acl_build(const struct lk_base *b, struct lk_acl *a, bool ranges, int socket)
{
	struct lk_ports *box = group(b, a, ranges, socket);
	int rc = -ENOMEM;

	if (box != NULL)
		a->ctx = rte_zmalloc_socket("lk_acl_ctx", a->nb_groups * sizeof(a->ctx[0]), 0,
					    socket);
	if (a->ctx != NULL)
		rc = build_contexts(b, a, box, 0, a->nb_groups, socket);
	free(box);
	return rc;
}

void
lk_acl_free(struct lk_acl *a)
{
	uint32_t i;

	for (i = 0; i < a->nb_ctx; i++)
		rte_acl_free(a->ctx[i]);
	rte_free(a->ctx);
	rte_free(a->group_first);
	memset(a, 0, sizeof(*a));
}

/* The last of len members from rank r whose lo, masked by m, is at most x: there is one. */
static inline uint32_t
last_at_most(const struct lk_base *b, uint32_t r, uint32_t len, uint32_t m, uint32_t x)
{
	while (len > 1) {
		uint32_t half = len / 2;

		r = (b->mem[r + half].lo & m) <= x ? r + half : r;
		len -= half;
	}
	return r;
}

/*
 * The index of the filter rte_acl's answer u stands for. A group's members
 * tile its box in runs along bytes 10-11, the runs in order along bytes
 * 8-9: the key's run is the last whose bytes 8-9 start at most at the
 * key's, and its member the last of that run's and those before it to
 * start at most at (that start, the key's bytes 10-11). Two binary searches
 * over at most MAX_MEMBERS.
 */
static inline uint32_t
member(const struct lk_base *b, uint32_t u, const uint8_t *k)
{
	uint32_t r, len, run;

	if (!(u & GROUP_FLAG))
		return u - 1;
	r = u & RANK_MASK;
	len = members_of(u);
	run = last_at_most(b, r, len, 0xffff0000u, (uint32_t)k[8] << 24 | (uint32_t)k[9] << 16);
	r = last_at_most(b, r, run - r + 1, UINT32_MAX,
			 (b->mem[run].lo & 0xffff0000u) | (uint32_t)k[10] << 8 | k[11]);
	return b->mem[r].idx;
}

/*
 * rte_acl's answers u[0..n) as filter indexes, in two passes: the members
 * of every group named are fetched before any is searched, so that the
 * cache misses of a burst overlap.
 */
static void
members(const struct lk_base *b, const uint8_t *const *keys, const uint32_t *u, uint32_t *idx,
	uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (u[i] & GROUP_FLAG) /* the search's first probe */
			rte_prefetch0(&b->mem[(u[i] & RANK_MASK) + members_of(u[i]) / 2]);
	for (i = 0; i < n; i++)
		idx[i] = u[i] == 0 ? LK_NONE : member(b, u[i], keys[i]);
}

void
lk_acl_classify(const struct lk_base *b, const struct lk_acl *a, const uint8_t *const *keys,
		uint32_t *idx, uint32_t n)
{
	const uint8_t *data[LK_BURST];
	uint32_t todo[LK_BURST], rule[LK_BURST], i, j, left = n;

	if (a->nb_ctx == 1) { /* the usual case: no bookkeeping */
		rte_acl_classify(a->ctx[0], (const uint8_t **)(uintptr_t)keys, rule, n, 1);
		members(b, keys, rule, idx, n);
		return;
	}
	for (i = 0; i < n; i++) {
		idx[i] = LK_NONE;
		todo[i] = i;
	}
	for (j = 0; j < a->nb_ctx && left > 0; j++) {
		uint32_t still = 0;

		for (i = 0; i < left; i++)
			data[i] = keys[todo[i]];
		rte_acl_classify(a->ctx[j], data, rule, left, 1);
		for (i = 0; i < left; i++) {
			if (rule[i] != 0)
				idx[todo[i]] = member(b, rule[i], keys[todo[i]]);
			else
				todo[still++] = todo[i];
		}
		left = still;
	}
}
