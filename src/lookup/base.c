/* SPDX-License-Identifier: BSD-3-Clause */
#include "base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>


/* Keys (one per filter, evenly picked) and rounds that time the two forms. */
#define SAMPLE_KEYS 8192u
#define SAMPLE_ROUNDS 3

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
	if (b == NULL)
		return;
	lk_acl_free(&b->acl);
	lk_tree_free(b->tree);
	rte_free(b->ent);
	rte_free(b->filt);
	rte_free(b->mem);
	rte_free(b->acl_bits);
	rte_free(b->odd_idx);
	rte_free(b->odd_filt);
	rte_free(b->results);
	free(b->sig);
	rte_free(b);
}

static bool
tree_form(enum sp_lookup_form form)
{
	return form == SP_LOOKUP_FORM_AUTO || form == SP_LOOKUP_FORM_TREE;
}

/* Sort the filters into the compiled ones and the odd ones (all of a small table). */
static bool
compiled(const struct lk_base *b, enum sp_lookup_form form, uint32_t i)
{
	if (lk_base_scanned(b))
		return false;
	return tree_form(form) ? lk_tree_takes(&b->filt[i]) : lk_acl_takes(&b->filt[i]);
}

static int
split(struct lk_base *b, enum sp_lookup_form form, int socket)
{
	uint32_t i;

	b->sig = malloc(b->n * sizeof(b->sig[0]));
	b->mem = rte_malloc_socket("lk_base_mem", b->n * sizeof(b->mem[0]), 0, socket);
	b->acl_bits = rte_zmalloc_socket("lk_base_bits", (b->n + 63) / 64 * sizeof(uint64_t), 0,
					 socket);
	if (b->sig == NULL || b->mem == NULL || b->acl_bits == NULL)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		const struct lk_filter *f = &b->filt[i];

		b->sig[i] = (uint32_t)f->key.b[0] | (uint32_t)f->key.b[4] << 8 |
			    (uint32_t)f->mask.b[0] << 16 | (uint32_t)f->mask.b[4] << 24;
		if (compiled(b, form, i)) {
			b->acl_bits[i / 64] |= 1ull << (i % 64);
			b->mem[b->nb_acl].lo = lk_acl_ports_lo(&b->filt[i]);
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
		if (compiled(b, form, i))
			continue;
		b->odd_idx[b->nb_odd] = i;
		b->odd_filt[b->nb_odd++] = b->filt[i];
	}
	return 0;
}

/* TSC cycles form a takes to look up keys, in bursts. */
static uint64_t
time_form(const struct lk_base *b, const struct lk_acl *a, const uint8_t *const *keys, uint32_t n)
{
	uint32_t idx[LK_BURST], i;
	uint64_t start = rte_rdtsc_precise();

	for (i = 0; i + LK_BURST / 2 <= n; i += LK_BURST / 2)
		lk_acl_classify(b, a, &keys[i], idx, LK_BURST / 2);
	return rte_rdtsc_precise() - start;
}

/*
 * Is the ranges form faster than the ternary one on keys of the filters
 * themselves (a key in each of evenly picked filters, its don't-care bits
 * random)? Best of a few alternated rounds.
 */
static bool
ranges_faster(const struct lk_base *b, const struct lk_acl *ranges, const struct lk_acl *ternary)
{
	uint32_t n = RTE_MIN(b->nb_acl, SAMPLE_KEYS), i, r;
	struct lk_bits *keys = malloc(n * sizeof(*keys));
	const uint8_t **data = malloc(n * sizeof(*data));
	uint64_t best[2] = {UINT64_MAX, UINT64_MAX}, x = 0x9e3779b97f4a7c15ull;
	bool faster = false;

	for (i = 0; keys != NULL && data != NULL && i < n; i++) {
		const struct lk_filter *f = &b->filt[b->mem[(uint64_t)i * b->nb_acl / n].idx];

		for (r = 0; r < 2; r++) {
			x ^= x << 13; /* xorshift64 */
			x ^= x >> 7;
			x ^= x << 17;
			keys[i].w[r] = f->key.w[r] | (x & ~f->mask.w[r]);
		}
		data[i] = keys[i].b;
	}
	for (r = 0; keys != NULL && data != NULL && r < SAMPLE_ROUNDS; r++) {
		best[0] = RTE_MIN(best[0], time_form(b, ranges, data, n));
		best[1] = RTE_MIN(best[1], time_form(b, ternary, data, n));
		faster = best[0] < best[1];
	}
	free(keys);
	free(data);
	return faster;
}

/*
 * The tree's filters' distinct results, the index of each filter's in
 * res[r] (LK_TREE_RES_NONE past the 16 bits a leaf entry holds): a slice's
 * results are its queues and next hops, few enough to stay in the caches,
 * where the filters' own entries would be a line each.
 */
static int
dedup_results(struct lk_base *b, uint16_t *res, int socket)
{
	uint32_t slots = 64, *table;
	struct sp_result *seen;

	while (slots < 2 * b->nb_acl)
		slots *= 2;
	table = malloc(slots * sizeof(*table));
	seen = malloc(b->nb_acl * sizeof(*seen));
	if (table == NULL || seen == NULL) {
		free(table);
		free(seen);
		return -ENOMEM;
	}
	memset(table, 0xff, slots * sizeof(*table));
	for (uint32_t r = 0; r < b->nb_acl; r++) {
		const struct sp_result *x = &b->ent[b->mem[r].idx].res;
		uint32_t h = rte_hash_crc(x, sizeof(*x), 0) & (slots - 1);

		while (table[h] != UINT32_MAX && memcmp(&seen[table[h]], x, sizeof(*x)) != 0)
			h = (h + 1) & (slots - 1);
		if (table[h] == UINT32_MAX && b->nb_results < LK_TREE_RES_NONE) {
			table[h] = b->nb_results;
			seen[b->nb_results++] = *x;
		}
		res[r] = table[h] != UINT32_MAX ? (uint16_t)table[h] : LK_TREE_RES_NONE;
	}
	free(table);
	b->results = rte_malloc_socket("lk_base_res", RTE_MAX(1u, b->nb_results) * sizeof(*seen),
				       0, socket);
	if (b->results != NULL)
		memcpy(b->results, seen, b->nb_results * sizeof(*seen));
	free(seen);
	return b->results != NULL ? 0 : -ENOMEM;
}

static int
build_tree(struct lk_base *b, int socket)
{
	struct lk_tree_box *boxes = malloc((size_t)b->nb_acl * sizeof(*boxes));
	uint16_t *res = malloc((size_t)b->nb_acl * sizeof(*res) + 1);
	int rc = boxes != NULL && res != NULL ? dedup_results(b, res, socket) : -ENOMEM;

	for (uint32_t r = 0; rc == 0 && r < b->nb_acl; r++) {
		uint32_t idx = b->mem[r].idx;

		boxes[r] = lk_tree_box_of(&b->filt[idx], b->ent[idx].pos);
		boxes[r].res = res[r];
	}
	if (rc == 0) {
		b->tree = lk_tree_build(boxes, b->nb_acl, socket);
		rc = b->tree != NULL ? 0 : -ENOMEM;
	}
	free(boxes);
	free(res);
	return rc;
}

int
lk_base_compile(struct lk_base *b, enum sp_lookup_form form, int socket)
{
	struct lk_acl ranges = {0};
	int rc;

	if (b->n == 0)
		return 0;
	rc = split(b, form, socket);
	if (rc != 0 || b->nb_acl == 0)
		return rc;
	if (tree_form(form))
		return build_tree(b, socket);
	if (form == SP_LOOKUP_FORM_RANGES)
		return lk_acl_build(b, &b->acl, true, socket);
	rc = lk_acl_build(b, &b->acl, false, socket);
	if (rc != 0 || form == SP_LOOKUP_FORM_TERNARY || !lk_acl_ranges_pay(b))
		return rc;
	if (lk_acl_build(b, &ranges, true, socket) == 0 && ranges_faster(b, &ranges, &b->acl)) {
		lk_acl_free(&b->acl);
		b->acl = ranges;
	} else {
		lk_acl_free(&ranges);
	}
	return 0;
}

size_t
lk_base_classifier_bytes(const struct lk_base *b)
{
	if (b == NULL || b->tree == NULL)
		return 0;
	return lk_tree_bytes(b->tree) + (size_t)b->nb_results * sizeof(b->results[0]);
}

uint32_t
lk_base_find(const struct lk_base *b, uint32_t pos)
{
	uint32_t i;

	if (b == NULL)
		return LK_NONE;
	/* Positions ascend from 0 by index, so a position's index is at most the position, and
	 * equal where they are dense below it (a table filled in order): then no search. */
	if (pos < b->n && b->ent[pos].pos == pos)
		return pos;
	i = LK_LOWER_BOUND(b->ent, pos < b->n ? pos + 1 : b->n, pos, pos);
	return i < b->n && b->ent[i].pos == pos ? i : LK_NONE;
}

/* Keys i .. i + n - 1 of one base that rte_acl holds. */
static void
classify_acl(const struct lk_base *b, const uint8_t *const *keys, struct lk_tree_hit *hits,
	     uint32_t n)
{
	uint32_t idx[LK_BURST];

	lk_acl_classify(b, &b->acl, keys, idx, n);
	for (uint32_t i = 0; i < n; i++)
		hits[i] = (struct lk_tree_hit){
			.pos = idx[i] != LK_NONE ? b->ent[idx[i]].pos : LK_NONE,
			.res = LK_TREE_RES_NONE};
}

void
lk_base_classify(const struct lk_base *const *bases, const uint8_t *const *keys,
		 struct lk_tree_hit *hits, uint32_t n)
{
	const struct lk_tree *trees[LK_BURST];
	const uint8_t *tree_keys[LK_BURST];
	struct lk_tree_hit tree_hits[LK_BURST];
	uint32_t at[LK_BURST], m = 0, i, j;

	/* Mostly every key's base is a tree: the keys walk as they are, their answers in place. */
	for (i = 0; i < n && bases[i] != NULL && bases[i]->tree != NULL; i++)
		trees[i] = bases[i]->tree;
	if (i == n) {
		lk_tree_classify(trees, keys, hits, n);
		return;
	}
	for (i = 0; i < n; i = j) {
		const struct lk_base *b = bases[i];

		for (j = i + 1; j < n && bases[j] == b; j++)
			;
		if (b != NULL && b->tree != NULL) {
			for (uint32_t x = i; x < j; x++) {
				trees[m] = b->tree;
				tree_keys[m] = keys[x];
				at[m++] = x;
			}
		} else if (b != NULL && b->acl.nb_ctx > 0) {
			classify_acl(b, &keys[i], &hits[i], j - i);
		} else {
			for (uint32_t x = i; x < j; x++)
				hits[x].pos = LK_NONE;
		}
	}
	if (m > 0)
		lk_tree_classify(trees, tree_keys, tree_hits, m);
	for (i = 0; i < m; i++)
		hits[at[i]] = tree_hits[i];
}
