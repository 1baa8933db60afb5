/* SPDX-License-Identifier: BSD-3-Clause */
/* The filter table as a slice sees it: first match by position, private, counted. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "sp_test.h"
#include "lookup/flows.h"
#include "lookup/hits.h"
#include "lookup/lookup.h"

#define MAX_SLICES 8
#define CAPACITY 100

static struct sp_lookup *
table_create(uint32_t capacity, struct rte_rcu_qsbr *qsbr)
{
	struct sp_lookup_params p = {
		.name = "test",
		.capacity = capacity,
		.max_slices = MAX_SLICES,
		.socket = SOCKET_ID_ANY,
		.qsbr = qsbr,
	};
	struct sp_lookup *t = sp_lookup_create(&p);

	assert_non_null(t);
	return t;
}

static int
setup(void **state)
{
	sp_test_eal_init();
	*state = table_create(CAPACITY, NULL);
	return 0;
}

static int
teardown(void **state)
{
	sp_lookup_free(*state);
	return 0;
}

/* A key whose first four bytes are the IPv4 address a.b.c.d, the rest zero. */
static struct sp_key
ip_key(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct sp_key k = {.b = {a, b, c, d}};

	return k;
}

/* dst prefix a.b.c.d/len; the result's endpoint tells which filter matched. */
static struct sp_filter
prefix_filter(uint8_t a, uint8_t b, uint8_t c, uint8_t d, unsigned int len, uint16_t tag)
{
	struct sp_filter f = {.key = ip_key(a, b, c, d), .result = {.endpoint = tag, .queue = tag}};
	unsigned int i;

	for (i = 0; i < len; i++)
		f.mask.b[i / 8] |= (uint8_t)(0x80 >> (i % 8));
	return f;
}

/* Position of the filter k matches in slice, or SP_LOOKUP_MISS; *tag its endpoint. */
static uint32_t
lookup1(struct sp_lookup *t, uint16_t slice, struct sp_key k, uint16_t *tag)
{
	const struct sp_key *keys[1] = {&k};
	struct sp_result res = {.endpoint = 0xdead};
	struct sp_result *results[1] = {&res};
	uint32_t pos = 0;
	uint16_t hits = sp_lookup_bulk(t, slice, keys, results, &pos, 1);

	assert_int_equal(hits, pos == SP_LOOKUP_MISS ? 0 : 1);
	if (tag != NULL)
		*tag = res.endpoint;
	return pos;
}

static void
write_ok(struct sp_lookup *t, uint16_t slice, uint32_t pos, struct sp_filter f)
{
	assert_int_equal(sp_lookup_write(t, slice, pos, &f), 0);
}

static void
test_create_errors(void **state)
{
	struct sp_lookup_params p = {.name = "bad", .capacity = 0, .max_slices = 1};

	(void)state;
	assert_null(sp_lookup_create(NULL));
	assert_null(sp_lookup_create(&p));
	p.capacity = 1;
	p.max_slices = 0;
	assert_null(sp_lookup_create(&p));
	sp_lookup_free(NULL);
}

static void
test_first_match_by_position(void **state)
{
	struct sp_lookup *t = *state;
	uint16_t tag;

	assert_int_equal(sp_lookup_slice_add(t, 1, 16), 0);
	/* Written in reverse order: position, not insertion time, decides. */
	write_ok(t, 1, 5, prefix_filter(10, 0, 0, 0, 8, 5));
	write_ok(t, 1, 0, prefix_filter(10, 1, 0, 0, 16, 100));

	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 2, 3), &tag), 0);
	assert_int_equal(tag, 100);
	assert_int_equal(lookup1(t, 1, ip_key(10, 2, 2, 3), &tag), 5);
	assert_int_equal(tag, 5);
	assert_int_equal(lookup1(t, 1, ip_key(11, 1, 2, 3), NULL), SP_LOOKUP_MISS);

	assert_int_equal(sp_lookup_delete(t, 1, 0), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 2, 3), &tag), 5);
	assert_int_equal(tag, 5);
	assert_int_equal(sp_lookup_delete(t, 1, 5), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 2, 3), NULL), SP_LOOKUP_MISS);
}

static void
test_bulk_mixed(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_key k[4] = {ip_key(10, 1, 0, 1), ip_key(9, 0, 0, 1), ip_key(10, 2, 0, 1),
			      ip_key(10, 1, 0, 2)};
	const struct sp_key *keys[4] = {&k[0], &k[1], &k[2], &k[3]};
	struct sp_result res[4];
	struct sp_result *results[4] = {&res[0], &res[1], &res[2], &res[3]};
	uint32_t pos[4];

	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	write_ok(t, 1, 2, prefix_filter(10, 1, 0, 0, 16, 12));
	write_ok(t, 1, 7, prefix_filter(10, 0, 0, 0, 8, 17));
	assert_int_equal(sp_lookup_bulk(t, 1, keys, results, pos, 4), 3);
	assert_int_equal(pos[0], 2);
	assert_int_equal(res[0].endpoint, 12);
	assert_int_equal(pos[1], SP_LOOKUP_MISS);
	assert_int_equal(pos[2], 7);
	assert_int_equal(res[2].endpoint, 17);
	assert_int_equal(pos[3], 2);
	assert_int_equal(res[3].queue, 12);
	assert_int_equal(sp_lookup_bulk(t, 1, keys, results, pos, 0), 0);
}

static void
test_replace(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_filter f;
	uint64_t hits;
	uint16_t tag;

	assert_int_equal(sp_lookup_slice_add(t, 1, 4), 0);
	write_ok(t, 1, 3, prefix_filter(10, 0, 0, 0, 8, 1));
	assert_int_equal(lookup1(t, 1, ip_key(10, 9, 9, 9), NULL), 3);
	write_ok(t, 1, 3, prefix_filter(20, 0, 0, 0, 8, 2));
	assert_int_equal(lookup1(t, 1, ip_key(10, 9, 9, 9), NULL), SP_LOOKUP_MISS);
	assert_int_equal(lookup1(t, 1, ip_key(20, 9, 9, 9), &tag), 3);
	assert_int_equal(tag, 2);
	assert_int_equal(sp_lookup_read(t, 1, 3, &f, &hits), 0);
	assert_int_equal(f.key.b[0], 20);
	assert_int_equal(f.result.endpoint, 2);
}

static void
test_private_tables(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_filter any = {.result = {.endpoint = 1}}; /* mask all zero: matches anything */
	uint32_t pos = 0;

	assert_int_equal(sp_lookup_slice_add(t, 1, 4), 0);
	assert_int_equal(sp_lookup_slice_add(t, 2, 4), 0);
	write_ok(t, 1, 0, any);
	assert_int_equal(lookup1(t, 1, ip_key(1, 2, 3, 4), NULL), 0);
	assert_int_equal(lookup1(t, 2, ip_key(1, 2, 3, 4), NULL), SP_LOOKUP_MISS);
	assert_int_equal(lookup1(t, 3, ip_key(1, 2, 3, 4), NULL), SP_LOOKUP_MISS);
	assert_int_equal(lookup1(t, MAX_SLICES, ip_key(1, 2, 3, 4), NULL), SP_LOOKUP_MISS);
	assert_int_equal(lookup1(t, UINT16_MAX, ip_key(1, 2, 3, 4), NULL), SP_LOOKUP_MISS);
	/* Nor does slice 2 see slice 1's filter through the management calls. */
	assert_int_equal(sp_lookup_next(t, 2, &pos), -ENOENT);
	assert_int_equal(sp_lookup_delete(t, 2, 0), -ENOENT);
	assert_int_equal(lookup1(t, 1, ip_key(1, 2, 3, 4), NULL), 0);
}

static void
test_bits_outside_mask_ignored(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_filter f = prefix_filter(10, 1, 0xff, 0xff, 16, 1), back;
	struct sp_key k;
	uint64_t hits;
	unsigned int i;

	memset(&f.key.b[4], 0xa5, SP_KEY_BYTES - 4); /* junk outside the /16 */
	f.mask.b[SP_KEY_BYTES - 1] = 0x0f;           /* and a nibble in the last byte */
	f.key.b[SP_KEY_BYTES - 1] = 0x37;
	assert_int_equal(sp_lookup_slice_add(t, 1, 2), 0);
	write_ok(t, 1, 1, f);

	assert_int_equal(sp_lookup_read(t, 1, 1, &back, &hits), 0);
	assert_memory_equal(back.mask.b, f.mask.b, SP_KEY_BYTES);
	for (i = 0; i < SP_KEY_BYTES; i++)
		assert_int_equal(back.key.b[i], f.key.b[i] & f.mask.b[i]);

	k = ip_key(10, 1, 77, 88);
	k.b[SP_KEY_BYTES - 1] = 0xf7; /* masked nibble 7 matches, high nibble ignored */
	assert_int_equal(lookup1(t, 1, k, NULL), 1);
	k.b[SP_KEY_BYTES - 1] = 0x06;
	assert_int_equal(lookup1(t, 1, k, NULL), SP_LOOKUP_MISS);
	/* Every key byte counts where the mask says so, including bytes 6 and 7. */
	for (i = 0; i < SP_KEY_BYTES; i++) {
		struct sp_filter one = {.result = {.endpoint = 9}};

		one.key.b[i] = 0x80;
		one.mask.b[i] = 0x80;
		write_ok(t, 1, 0, one);
		k = (struct sp_key){{0}};
		assert_int_equal(lookup1(t, 1, k, NULL), SP_LOOKUP_MISS);
		k.b[i] = 0x80;
		assert_int_equal(lookup1(t, 1, k, NULL), 0);
	}
}

/*
 * The same once compiled: rte_acl's fields (masks that are prefixes within
 * bytes 0-3, 4-7, 8-9, 10-11, 12, 13) and the odd masks scanned beside it.
 */
static void
test_every_byte_compiled(void **state)
{
	static const uint8_t field_first[SP_KEY_BYTES] = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 10, 10, 12, 13};
	struct sp_lookup *t = *state;
	struct sp_filter f[2 * SP_KEY_BYTES];
	uint32_t pos[2 * SP_KEY_BYTES];
	struct sp_lookup_info info;
	struct sp_key k;
	unsigned int i;

	memset(f, 0, sizeof(f));
	for (i = 0; i < SP_KEY_BYTES; i++) {
		pos[i] = i;
		f[i].key.b[i] = 0x5a;
		memset(&f[i].mask.b[field_first[i]], 0xff, i + 1 - field_first[i]);
		pos[SP_KEY_BYTES + i] = SP_KEY_BYTES + i;
		f[SP_KEY_BYTES + i].key.b[i] = 0x01;
		f[SP_KEY_BYTES + i].mask.b[i] = 0x81; /* not a prefix: scanned beside rte_acl */
	}
	assert_int_equal(sp_lookup_slice_add(t, 1, 2 * SP_KEY_BYTES), 0);
	assert_int_equal(sp_lookup_write_bulk(t, 1, pos, f, 2 * SP_KEY_BYTES), 0);
	assert_int_equal(sp_lookup_sync(t, 1), 0);
	assert_int_equal(sp_lookup_info(t, 1, &info), 0);
	assert_int_equal(info.compiled, 2 * SP_KEY_BYTES);
	assert_int_equal(info.rules, SP_KEY_BYTES);
	assert_int_equal(info.changes, 0);
	for (i = 0; i < SP_KEY_BYTES; i++) {
		k = (struct sp_key){{0}};
		k.b[i] = 0x5a;
		assert_int_equal(lookup1(t, 1, k, NULL), i);
		k.b[i] = 0x5b; /* & 0x81 is 0x01 */
		assert_int_equal(lookup1(t, 1, k, NULL), SP_KEY_BYTES + i);
		k.b[i] = 0x5c;
		assert_int_equal(lookup1(t, 1, k, NULL), SP_LOOKUP_MISS);
	}
}

/* One key's walk (sp_lookup_walk) into a fresh count; its position checked against a lookup's. */
static struct sp_lookup_walk
walk1(struct sp_lookup *t, uint16_t slice, struct sp_key k)
{
	struct sp_lookup_walk w = {0};
	uint32_t pos = 0;

	assert_int_equal(sp_lookup_walk(t, slice, &k, &w, &pos), 0);
	assert_int_equal(pos, lookup1(t, slice, k, NULL));
	assert_int_equal(w.keys, 1);
	return w;
}

/*
 * The profile's count of a lookup's work: a scanned table's filters
 * compared up to the match; a tree's levels and leaf entries, its odd
 * filters before the tree's answer; the position the lookup gives.
 */
static void
test_walk_counts_what_a_lookup_reads(void **state)
{
	enum { TREE = 40, ODD_LATE = 50 };
	struct sp_lookup *t = *state;
	struct sp_lookup_walk w, sum = {0};
	struct sp_filter odd = {0};
	struct sp_key k = ip_key(10, 0, 2, 1);
	uint32_t pos;

	/* Five filters: scanned, each one compared until the match. */
	assert_int_equal(sp_lookup_slice_add(t, 1, 5), 0);
	for (uint8_t i = 0; i < 5; i++)
		write_ok(t, 1, i, prefix_filter(10, 0, i, 0, 24, i));
	assert_int_equal(sp_lookup_sync(t, 1), 0);
	w = walk1(t, 1, ip_key(10, 0, 2, 1));
	assert_int_equal(w.odd, 3);
	assert_int_equal(w.trees + w.levels + w.entries + w.leaf_lines, 0);
	assert_int_equal(walk1(t, 1, ip_key(10, 9, 0, 1)).odd, 5);

	/* A tree of 40 /24s at 1-40 between two odd filters (a mask of bits 0x81 in byte 0):
	 * at 0 one no 10/8 key matches, at 50 one every 10/8 key does. */
	assert_int_equal(sp_lookup_slice_add(t, 2, 64), 0);
	odd.mask.b[0] = 0x81;
	odd.key.b[0] = 0x01;
	write_ok(t, 2, 0, odd);
	for (uint8_t i = 0; i < TREE; i++)
		write_ok(t, 2, 1u + i, prefix_filter(10, 0, i, 0, 24, i));
	odd.key.b[0] = 0x00;
	write_ok(t, 2, ODD_LATE, odd);
	assert_int_equal(sp_lookup_sync(t, 2), 0);
	for (uint8_t i = 0; i < TREE; i++) {
		w = walk1(t, 2, ip_key(10, 0, i, 1));
		/* More filters than a leaf holds: a node at least, then one leaf's entries. */
		assert_int_equal(w.trees, 1);
		assert_int_equal(w.trees_read, 1);
		assert_true(w.levels >= 1);
		assert_true(w.entries >= 1 && w.entries <= 16);
		assert_true(w.leaf_lines >= 1 && w.leaf_lines <= 9);
		assert_int_equal(w.odd, 1); /* the one at 0; the one at 50 comes after the tree's */
		assert_int_equal(w.changes, 0);
		sum.levels += w.levels;
		sum.entries += w.entries;
	}
	/* A leaf is scanned to its match: not every key's is its first entry. */
	assert_true(sum.entries > TREE);
	w = walk1(t, 2, ip_key(10, 1, 0, 1)); /* the tree misses; the odd filter at 50 answers */
	assert_int_equal(w.odd, 2);

	/* Errors: no such slice, nothing to count into, rte_acl's insides. */
	assert_int_equal(sp_lookup_walk(t, 3, &k, &w, &pos), -ENOENT);
	assert_int_equal(sp_lookup_walk(t, 1, NULL, &w, &pos), -EINVAL);
	assert_int_equal(sp_lookup_walk(t, 1, &k, NULL, &pos), -EINVAL);
}

/* A slice compiled into rte_acl: its walk is not counted. */
static void
test_walk_of_an_acl_table_is_refused(void **state)
{
	struct sp_lookup_params p = {.name = "acl", .capacity = CAPACITY, .max_slices = MAX_SLICES,
				     .socket = SOCKET_ID_ANY, .form = SP_LOOKUP_FORM_TERNARY};
	struct sp_lookup *t = sp_lookup_create(&p);
	struct sp_key k = ip_key(10, 0, 2, 1);
	struct sp_lookup_walk w = {0};
	uint32_t pos;

	(void)state;
	assert_non_null(t);
	assert_int_equal(sp_lookup_slice_add(t, 1, 20), 0);
	for (uint8_t i = 0; i < 20; i++)
		write_ok(t, 1, i, prefix_filter(10, 0, i, 0, 24, i));
	assert_int_equal(sp_lookup_sync(t, 1), 0);
	assert_int_equal(sp_lookup_walk(t, 1, &k, &w, &pos), -ENOTSUP);
	assert_int_equal(w.keys, 0);
	sp_lookup_free(t);
}

static uint64_t
hits_at(struct sp_lookup *t, uint16_t slice, uint32_t pos)
{
	struct sp_filter f;
	uint64_t hits = UINT64_MAX;

	assert_int_equal(sp_lookup_read(t, slice, pos, &f, &hits), 0);
	return hits;
}

/*
 * The lookup lcore's 32-bit counters wrap; the totals do not: a fold takes
 * each counter's gain since the last one, read any time after.
 */
static void
test_hit_counters_fold_across_the_wrap(void **state)
{
	struct lk_hits h;

	(void)state;
	assert_int_equal(lk_hits_init(&h, 2, SOCKET_ID_ANY), 0);
	h.count[0] = 0xfffffff0u; /* the lcore counted that many */
	lk_hits_fold(&h);
	assert_true(lk_hits_now(&h, 0) == 0xfffffff0ull);
	h.count[0] += 0x20; /* wraps to 0x10 */
	assert_true(lk_hits_now(&h, 0) == 0x100000010ull);
	lk_hits_fold(&h);
	assert_true(lk_hits_now(&h, 0) == 0x100000010ull);
	h.count[0] += 0xffffffffu; /* as much as one fold can take */
	lk_hits_fold(&h);
	assert_true(lk_hits_now(&h, 0) == 0x20000000full);
	assert_true(lk_hits_now(&h, 1) == 0);
	lk_hits_free(&h);
}

static void
test_hit_counters(void **state)
{
	struct sp_lookup *t = *state;
	int i;

	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	write_ok(t, 1, 1, prefix_filter(10, 1, 0, 0, 16, 1));
	write_ok(t, 1, 4, prefix_filter(10, 0, 0, 0, 8, 4));
	for (i = 0; i < 3; i++)
		lookup1(t, 1, ip_key(10, 1, 0, (uint8_t)i), NULL);
	for (i = 0; i < 5; i++)
		lookup1(t, 1, ip_key(10, 2, 0, (uint8_t)i), NULL);
	lookup1(t, 1, ip_key(99, 2, 0, 0), NULL);
	assert_int_equal(hits_at(t, 1, 1), 3);
	assert_int_equal(hits_at(t, 1, 4), 5);

	/* A write, even of the same filter, starts the count again. */
	write_ok(t, 1, 4, prefix_filter(10, 0, 0, 0, 8, 4));
	assert_int_equal(hits_at(t, 1, 4), 0);
	assert_int_equal(hits_at(t, 1, 1), 3);
	lookup1(t, 1, ip_key(10, 2, 0, 0), NULL);
	assert_int_equal(hits_at(t, 1, 4), 1);
	assert_int_equal(sp_lookup_delete(t, 1, 1), 0);
	write_ok(t, 1, 1, prefix_filter(10, 1, 0, 0, 16, 1));
	assert_int_equal(hits_at(t, 1, 1), 0);
}

/* A packet as the NPE hands it to sp_lookup_bulk_deferred(): slice, key, result and filter in one object. */
struct pkt {
	uint16_t slice;
	struct sp_key key;
	struct sp_result res;
	uint32_t pos;
};

static const struct sp_lookup_fields pkt_fields = {
	.slice = offsetof(struct pkt, slice),
	.key = offsetof(struct pkt, key),
	.result = offsetof(struct pkt, res),
	.position = offsetof(struct pkt, pos),
};

/* Flow cache hits counted later reach the counters only through sp_lookup_count_deferred(). */
static void
test_hits_counted_later(void **state)
{
	struct sp_lookup *t = *state;
	struct pkt p[2] = {{.slice = 1, .key = ip_key(10, 1, 0, 1), .res = {.endpoint = 0xdead}},
			   {.slice = 1, .key = ip_key(10, 1, 0, 1), .res = {.endpoint = 0xdead}}};
	void *objs[2] = {&p[0], &p[1]};
	struct sp_lookup_deferred_hits later = {.n = 0};
	int i;

	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	write_ok(t, 1, 3, prefix_filter(10, 1, 0, 0, 16, 3));
	assert_int_equal(lookup1(t, 1, p[0].key, NULL), 3); /* now in the flow cache, counted */
	assert_int_equal(sp_lookup_bulk_deferred(t, objs, &pkt_fields, 2, &later), 2);
	assert_int_equal(p[0].pos, 3);
	assert_int_equal(p[1].pos, 3);
	assert_int_equal(p[0].res.endpoint, 3);
	assert_int_equal(p[1].res.endpoint, 3);
	assert_int_equal(later.n, 2);
	assert_int_equal(hits_at(t, 1, 3), 1);
	sp_lookup_count_deferred(&later);
	assert_int_equal(later.n, 0);
	assert_int_equal(hits_at(t, 1, 3), 3);

	/* A list without room for a batch is counted before it. */
	for (i = 0; i < SP_LOOKUP_DEFERRED_HITS / 2; i++)
		sp_lookup_bulk_deferred(t, objs, &pkt_fields, 2, &later);
	assert_int_equal(later.n, SP_LOOKUP_DEFERRED_HITS);
	assert_int_equal(hits_at(t, 1, 3), 3);
	sp_lookup_bulk_deferred(t, objs, &pkt_fields, 2, &later);
	assert_int_equal(later.n, 2);
	assert_int_equal(hits_at(t, 1, 3), 3 + SP_LOOKUP_DEFERRED_HITS);
	sp_lookup_count_deferred(&later);
	assert_int_equal(hits_at(t, 1, 3), 5 + SP_LOOKUP_DEFERRED_HITS);

	/* None to look up: nothing read, nothing counted. */
	assert_int_equal(sp_lookup_bulk_deferred(t, objs, &pkt_fields, 0, &later), 0);
	assert_int_equal(sp_lookup_bulk(t, 1, NULL, NULL, NULL, 0), 0);
	assert_int_equal(later.n, 0);
}

/*
 * Objects looked up through every phase of the flow cache (with it, timed,
 * and without it: the classifier's answers written into the objects too):
 * a new key, a repeated one and one that no filter matches each time; the
 * miss's result untouched and its position SP_LOOKUP_MISS.
 */
static void
test_fields_through_the_phases(void **state)
{
	struct sp_lookup *t = *state;
	const uint32_t total = LK_FLOW_PERIOD + 8 * LK_FLOW_PROBE;
	struct sp_lookup_deferred_hits later = {.n = 0};
	struct sp_lookup_info info;
	uint32_t i;

	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	write_ok(t, 1, 3, prefix_filter(10, 0, 0, 0, 8, 7));
	for (i = 0; i < total; i++) {
		struct pkt p[3] = {
			{.slice = 1, .key = ip_key(10, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i)},
			{.slice = 1, .key = ip_key(10, 1, 0, 1)},
			{.slice = 1, .key = ip_key(11, 1, 0, (uint8_t)i), .res = {.endpoint = 0xdead}},
		};
		void *objs[3] = {&p[0], &p[1], &p[2]};

		assert_int_equal(sp_lookup_bulk_deferred(t, objs, &pkt_fields, 3, &later), 2);
		assert_int_equal(p[0].pos, 3);
		assert_int_equal(p[0].res.endpoint, 7);
		assert_int_equal(p[1].pos, 3);
		assert_int_equal(p[1].res.endpoint, 7);
		assert_int_equal(p[2].pos, SP_LOOKUP_MISS);
		assert_int_equal(p[2].res.endpoint, 0xdead);
		sp_lookup_count_deferred(&later);
	}
	assert_int_equal(hits_at(t, 1, 3), 2 * total);
	assert_int_equal(sp_lookup_info(t, 1, &info), 0);
	assert_int_equal(info.flow_lookups, 3 * total);
}

/*
 * Objects of several slices in one call, in runs and interleaved, and of a
 * slice that does not exist: each gets its own slice's answer and hit,
 * through the classifier (the first round) and the flow cache (the second),
 * from a compiled table and from one of writes alike.
 */
static void
test_objects_of_many_slices(void **state)
{
	struct sp_lookup *t = *state;
	enum { N = 96 }; /* past one chunk of the classifier's (LK_BURST, 64) */
	struct sp_lookup_deferred_hits later = {.n = 0};
	uint64_t own[4] = {0}, wide[4] = {0};
	struct pkt p[N];
	void *objs[N];
	uint32_t i;

	for (uint16_t sl = 1; sl <= 3; sl++) {
		assert_int_equal(sp_lookup_slice_add(t, sl, 8), 0);
		/* Slice sl: 10.sl/16 at position sl, tagged 10 * sl; 10/8 at 5, tagged 50 + sl. */
		write_ok(t, sl, sl, prefix_filter(10, (uint8_t)sl, 0, 0, 16, (uint16_t)(10 * sl)));
		write_ok(t, sl, 5, prefix_filter(10, 0, 0, 0, 8, (uint16_t)(50 + sl)));
	}
	assert_int_equal(sp_lookup_sync(t, 2), 0); /* one compiled, the others as writes */
	for (int round = 0; round < 2; round++) {
		uint16_t expect = 0;

		for (i = 0; i < N; i++) {
			/* Runs of three, then one slice each; slice 7 (none) now and then. */
			uint16_t sl = i < N / 2 ? (uint16_t)(1 + i / 3 % 3) : (uint16_t)(1 + i % 3);

			p[i] = (struct pkt){
				.slice = i % 17 == 16 ? 7 : sl,
				.key = i % 5 == 4 ? ip_key(11, 0, 0, 1) : ip_key(10, (uint8_t)(i % 4), 0, 1),
				.res = {.endpoint = 0xdead}};
			objs[i] = &p[i];
			expect += p[i].slice != 7 && p[i].key.b[0] == 10;
		}
		assert_int_equal(sp_lookup_bulk_deferred(t, objs, &pkt_fields, N, &later), expect);
		sp_lookup_count_deferred(&later);
		for (i = 0; i < N; i++) {
			uint16_t sl = p[i].slice;
			bool mine = p[i].key.b[1] == sl;

			if (sl == 7 || p[i].key.b[0] != 10) {
				assert_int_equal(p[i].pos, SP_LOOKUP_MISS);
				assert_int_equal(p[i].res.endpoint, 0xdead);
				continue;
			}
			assert_int_equal(p[i].pos, mine ? sl : 5);
			assert_int_equal(p[i].res.endpoint, mine ? 10 * sl : 50 + sl);
			own[sl] += mine;
			wide[sl] += !mine;
		}
	}
	for (uint16_t sl = 1; sl <= 3; sl++) {
		assert_int_equal(hits_at(t, sl, sl), own[sl]);
		assert_int_equal(hits_at(t, sl, 5), wide[sl]);
	}
}

/*
 * The slice's flow cache (flows.h): repeated keys, more keys than its entries
 * (so they share sets), a burst that repeats a key, and every change made
 * between lookups of the same keys: each answer and hit count is the table's.
 */
static void
test_flow_cache_follows_the_table(void **state)
{
	struct sp_lookup *t = *state;
	enum { KEYS = 1200 }; /* more than LK_FLOWS */
	struct sp_key k[2] = {ip_key(10, 1, 0, 1), ip_key(10, 1, 0, 1)};
	const struct sp_key *keys[2] = {&k[0], &k[1]};
	struct sp_result res[2];
	struct sp_result *results[2] = {&res[0], &res[1]};
	uint32_t pos[2];
	uint16_t tag;
	int round, i;

	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), NULL), SP_LOOKUP_MISS);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), NULL), SP_LOOKUP_MISS);
	write_ok(t, 1, 3, prefix_filter(10, 1, 0, 0, 16, 3));
	for (round = 0; round < 3; round++)
		for (i = 0; i < KEYS; i++) {
			assert_int_equal(lookup1(t, 1, ip_key(10, 1, (uint8_t)(i / 256), (uint8_t)i),
					 &tag), 3);
			assert_int_equal(tag, 3);
		}
	assert_int_equal(hits_at(t, 1, 3), 3 * KEYS);
	assert_int_equal(sp_lookup_bulk(t, 1, keys, results, pos, 2), 2);
	assert_int_equal(pos[0], 3);
	assert_int_equal(pos[1], 3);
	assert_int_equal(hits_at(t, 1, 3), 3 * KEYS + 2);

	/* An earlier position takes over, then goes; a replacement changes the result. */
	write_ok(t, 1, 0, prefix_filter(10, 1, 0, 0, 24, 7));
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), &tag), 0);
	assert_int_equal(tag, 7);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 1, 1), &tag), 3);
	assert_int_equal(sp_lookup_delete(t, 1, 0), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), &tag), 3);
	write_ok(t, 1, 3, prefix_filter(10, 1, 0, 0, 16, 9));
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), &tag), 3);
	assert_int_equal(tag, 9);
	assert_int_equal(hits_at(t, 1, 3), 1);
	assert_int_equal(sp_lookup_delete(t, 1, 3), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), NULL), SP_LOOKUP_MISS);

	/* A slice made again starts with nothing cached. */
	write_ok(t, 1, 2, prefix_filter(10, 1, 0, 0, 16, 2));
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), NULL), 2);
	assert_int_equal(sp_lookup_slice_del(t, 1), 0);
	assert_int_equal(sp_lookup_slice_add(t, 1, 8), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 0, 1), NULL), SP_LOOKUP_MISS);
}

/*
 * The cache times itself with and without (flows.h): through a period and
 * its probes, new keys and repeated ones, and changes made in every phase,
 * each answer and hit count is the table's, and every lookup is counted.
 */
static void
test_flow_cache_answers_through_its_phases(void **state)
{
	struct sp_lookup *t = *state;
	const uint32_t total = LK_FLOW_PERIOD + 8 * LK_FLOW_PROBE;
	struct sp_lookup_info info;
	uint32_t i, since_write = 0;
	uint16_t tag, want = 3;

	assert_int_equal(sp_lookup_slice_add(t, 1, 16), 0);
	write_ok(t, 1, 3, prefix_filter(10, 0, 0, 0, 8, want));
	/* More filters than a scanned table holds (base.c's SCAN_ONLY): a tree, and the cache. */
	for (uint8_t p = 4; p < 16; p++)
		write_ok(t, 1, p, prefix_filter(p, 0, 0, 0, 8, p));
	assert_int_equal(sp_lookup_sync(t, 1), 0);
	assert_int_equal(sp_lookup_info(t, 1, &info), 0);
	assert_string_equal(info.form, "tree");
	for (i = 0; i < total; i++) {
		/* Every third key new, the others one of eight; a change every 100 * 2^k lookups. */
		struct sp_key k = i % 3 == 0 ? ip_key(10, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i)
					     : ip_key(10, 1, 0, (uint8_t)(i % 8));

		if (i > 0 && (i % 100 == 0) && ((i / 100) & (i / 100 - 1)) == 0) {
			want = (uint16_t)(i / 100);
			write_ok(t, 1, 3, prefix_filter(10, 0, 0, 0, 8, want));
			since_write = 0;
		}
		assert_int_equal(lookup1(t, 1, k, &tag), 3);
		assert_int_equal(tag, want);
		since_write++;
	}
	assert_int_equal(hits_at(t, 1, 3), since_write);
	assert_int_equal(sp_lookup_info(t, 1, &info), 0);
	assert_int_equal(info.flow_lookups, total);
	assert_true(info.flow_hits > 0 && info.flow_hits < total);
}

/* The mode that cost fewer cycles a lookup is kept; a tie keeps the cache. */
static void
test_flow_cache_choice(void **state)
{
	(void)state;
	assert_true(lk_flows_choose((const uint64_t[2]){1000, 500}, (const uint32_t[2]){100, 100}));
	assert_false(lk_flows_choose((const uint64_t[2]){500, 1000}, (const uint32_t[2]){100, 100}));
	assert_true(lk_flows_choose((const uint64_t[2]){500, 500}, (const uint32_t[2]){100, 100}));
	/* per lookup: 10 without, 12.5 with */
	assert_false(lk_flows_choose((const uint64_t[2]){1000, 2500}, (const uint32_t[2]){100, 200}));
	/* per lookup: 10 without, 7.5 with */
	assert_true(lk_flows_choose((const uint64_t[2]){1000, 1500}, (const uint32_t[2]){100, 200}));
}

static void
test_read_back(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_filter f = {.key = {{0xc0, 0xa8, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
			      .mask = {{0xff, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff}},
			      .result = {.endpoint = 3,
					 .queue = 7,
					 .nh_ip = 0x0100000a,
					 .nh_port = 0x3412,
					 .data = {1, 2, 3, 4, 5, 6, 7, 8}}};
	struct sp_filter back;
	uint64_t hits = 42;

	assert_int_equal(sp_lookup_slice_add(t, 1, 3), 0);
	write_ok(t, 1, 2, f);
	assert_int_equal(sp_lookup_read(t, 1, 2, &back, &hits), 0);
	assert_int_equal(hits, 0);
	assert_memory_equal(back.key.b, f.key.b, SP_KEY_BYTES);
	assert_memory_equal(back.mask.b, f.mask.b, SP_KEY_BYTES);
	assert_int_equal(back.result.endpoint, 3);
	assert_int_equal(back.result.queue, 7);
	assert_int_equal(back.result.nh_ip, 0x0100000a);
	assert_int_equal(back.result.nh_port, 0x3412);
	assert_memory_equal(back.result.data, f.result.data, SP_RESULT_DATA_BYTES);
	assert_int_equal(sp_lookup_read(t, 1, 1, &back, &hits), -ENOENT);
}

static void
test_next_lists_positions(void **state)
{
	struct sp_lookup *t = *state;
	const uint32_t want[] = {0, 3, 4, 9};
	uint32_t pos, n = 0;
	unsigned int i;

	assert_int_equal(sp_lookup_slice_add(t, 1, 10), 0);
	pos = 0;
	assert_int_equal(sp_lookup_next(t, 1, &pos), -ENOENT);
	for (i = RTE_DIM(want); i-- > 0;)
		write_ok(t, 1, want[i], prefix_filter(10, 0, 0, 0, 8, (uint16_t)want[i]));
	for (pos = 0; sp_lookup_next(t, 1, &pos) == 0; pos++) {
		assert_true(n < RTE_DIM(want));
		assert_int_equal(pos, want[n++]);
	}
	assert_int_equal(n, RTE_DIM(want));
	pos = 10;
	assert_int_equal(sp_lookup_next(t, 1, &pos), -ENOENT);
	pos = UINT32_MAX;
	assert_int_equal(sp_lookup_next(t, 1, &pos), -ENOENT);

	/* Deleting the last one: listing (and lookups) stop at the new last. */
	assert_int_equal(sp_lookup_delete(t, 1, 9), 0);
	pos = 5;
	assert_int_equal(sp_lookup_next(t, 1, &pos), -ENOENT);
	pos = 4;
	assert_int_equal(sp_lookup_next(t, 1, &pos), 0);
	assert_int_equal(pos, 4);
}

/* Slice 1 holds 10.0.0.0/8 at position 2 of 4; check it still does, and only that. */
static void
assert_unchanged(struct sp_lookup *t)
{
	struct sp_filter f;
	uint64_t hits;
	uint32_t pos = 0;
	uint16_t tag;

	assert_int_equal(lookup1(t, 1, ip_key(10, 1, 1, 1), &tag), 2);
	assert_int_equal(tag, 2);
	assert_int_equal(lookup1(t, 1, ip_key(11, 1, 1, 1), NULL), SP_LOOKUP_MISS);
	assert_int_equal(sp_lookup_next(t, 1, &pos), 0);
	assert_int_equal(pos, 2);
	pos = 3;
	assert_int_equal(sp_lookup_next(t, 1, &pos), -ENOENT);
	assert_int_equal(sp_lookup_read(t, 1, 2, &f, &hits), 0);
	assert_int_equal(f.key.b[0], 10);
	assert_int_equal(f.mask.b[1], 0);
}

static void
test_errors_change_nothing(void **state)
{
	struct sp_lookup *t = *state;
	struct sp_filter f = prefix_filter(11, 0, 0, 0, 8, 9);
	uint64_t hits;
	uint32_t pos = 0;

	assert_int_equal(sp_lookup_slice_add(t, 1, 4), 0);
	write_ok(t, 1, 2, prefix_filter(10, 0, 0, 0, 8, 2));
	assert_unchanged(t);

	assert_int_equal(sp_lookup_slice_add(t, 1, 4), -EEXIST);
	assert_int_equal(sp_lookup_slice_add(t, 2, 0), -EINVAL);
	assert_int_equal(sp_lookup_slice_add(t, MAX_SLICES, 1), -EINVAL);
	assert_int_equal(sp_lookup_slice_add(t, 2, CAPACITY), -ENOSPC);
	assert_int_equal(sp_lookup_slice_add(NULL, 2, 1), -EINVAL);
	assert_int_equal(sp_lookup_slice_del(t, 2), -ENOENT);
	assert_int_equal(sp_lookup_slice_del(t, MAX_SLICES), -ENOENT);
	assert_int_equal(sp_lookup_slice_del(NULL, 1), -EINVAL);
	assert_unchanged(t);

	assert_int_equal(sp_lookup_write(t, 1, 4, &f), -ERANGE);
	assert_int_equal(sp_lookup_write(t, 1, UINT32_MAX, &f), -ERANGE);
	assert_int_equal(sp_lookup_write(t, 2, 0, &f), -ENOENT);
	assert_int_equal(sp_lookup_write(t, MAX_SLICES, 0, &f), -ENOENT);
	assert_int_equal(sp_lookup_write(t, 1, 0, NULL), -EINVAL);
	assert_int_equal(sp_lookup_write(NULL, 1, 0, &f), -EINVAL);
	assert_unchanged(t);

	/* A bulk write with one bad position writes none of them. */
	{
		struct sp_filter two[2] = {f, f};
		uint32_t at[2] = {0, 4};

		assert_int_equal(sp_lookup_write_bulk(t, 1, at, two, 2), -ERANGE);
		assert_int_equal(sp_lookup_write_bulk(t, 2, at, two, 1), -ENOENT);
		assert_int_equal(sp_lookup_write_bulk(t, 1, NULL, two, 1), -EINVAL);
		assert_int_equal(sp_lookup_sync(t, 2), -ENOENT);
		assert_unchanged(t);
	}

	assert_int_equal(sp_lookup_delete(t, 1, 0), -ENOENT);
	assert_int_equal(sp_lookup_delete(t, 1, 4), -ERANGE);
	assert_int_equal(sp_lookup_delete(t, 2, 2), -ENOENT);
	assert_int_equal(sp_lookup_delete(NULL, 1, 2), -EINVAL);
	assert_unchanged(t);

	assert_int_equal(sp_lookup_read(t, 1, 0, &f, &hits), -ENOENT);
	assert_int_equal(sp_lookup_read(t, 1, 4, &f, &hits), -ERANGE);
	assert_int_equal(sp_lookup_read(t, 2, 2, &f, &hits), -ENOENT);
	assert_int_equal(sp_lookup_read(t, 1, 2, NULL, &hits), -EINVAL);
	assert_int_equal(sp_lookup_read(t, 1, 2, &f, NULL), -EINVAL);
	assert_int_equal(sp_lookup_read(NULL, 1, 2, &f, &hits), -EINVAL);
	assert_int_equal(sp_lookup_next(t, 2, &pos), -ENOENT);
	assert_int_equal(sp_lookup_next(t, 1, NULL), -EINVAL);
	assert_int_equal(sp_lookup_next(NULL, 1, &pos), -EINVAL);
	assert_unchanged(t);
}

static void
test_capacity_and_quota(void **state)
{
	struct sp_lookup *t = *state;

	assert_int_equal(sp_lookup_slice_add(t, 1, 60), 0);
	assert_int_equal(sp_lookup_slice_add(t, 2, 41), -ENOSPC);
	assert_int_equal(sp_lookup_slice_add(t, 2, 40), 0);
	assert_int_equal(sp_lookup_slice_add(t, 3, 1), -ENOSPC);
	/* The quota is the slice's table size. */
	write_ok(t, 1, 59, prefix_filter(10, 0, 0, 0, 8, 1));
	assert_int_equal(sp_lookup_write(t, 2, 40, &(struct sp_filter){0}), -ERANGE);

	assert_int_equal(sp_lookup_slice_del(t, 1), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 0, 0, 1), NULL), SP_LOOKUP_MISS);
	assert_int_equal(sp_lookup_slice_add(t, 3, 60), 0);
	assert_int_equal(sp_lookup_slice_add(t, 1, 1), -ENOSPC);
	/* A slice added again starts empty. */
	assert_int_equal(sp_lookup_slice_del(t, 3), 0);
	assert_int_equal(sp_lookup_slice_add(t, 1, 60), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 0, 0, 1), NULL), SP_LOOKUP_MISS);
}

/* ---- randomized differential test against a brute-force reference ---- */

#define R_QUOTA 1024
#define R_OPS 8000
#define R_ROUNDS 10
#define R_KEYS_PER_ROUND 10000
#define R_BURST 32

struct ref_filter {
	bool used;
	struct sp_key key; /* masked */
	struct sp_key mask;
	uint16_t tag;
	uint64_t hits;
};

static void
rnd_bytes(uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)sp_test_rnd();
}

/*
 * Masks of several shapes: prefixes, whole fields, sparse bits, dense bits.
 * None shorter than 8 bits, so that random keys miss often enough to test
 * misses too (wildcards have their own test).
 */
static struct sp_key
rnd_mask(void)
{
	struct sp_key m = {{0}};
	unsigned int i, len;

	switch (sp_test_rnd() % 4) {
	case 0: /* a destination prefix, maybe with the protocol */
		len = 8 + (unsigned int)(sp_test_rnd() % 25);
		for (i = 0; i < len; i++)
			m.b[i / 8] |= (uint8_t)(0x80 >> (i % 8));
		if (sp_test_rnd() % 2)
			m.b[12] = 0xff;
		break;
	case 1: /* a few whole bytes, at least one */
		m.b[sp_test_rnd() % SP_KEY_BYTES] = 0xff;
		for (i = 0; i < SP_KEY_BYTES; i++)
			m.b[i] |= sp_test_rnd() % 5 == 0 ? 0xff : 0;
		break;
	case 2: /* sparse random bits, about one per byte */
		for (i = 0; i < SP_KEY_BYTES; i++)
			m.b[i] = (uint8_t)(sp_test_rnd() & sp_test_rnd() & sp_test_rnd());
		m.b[sp_test_rnd() % SP_KEY_BYTES] |= 0x81;
		break;
	default: /* dense: practically an exact match */
		rnd_bytes(m.b, SP_KEY_BYTES);
		break;
	}
	return m;
}

static bool
ref_matches(const struct ref_filter *r, const struct sp_key *k)
{
	unsigned int i;

	for (i = 0; i < SP_KEY_BYTES; i++)
		if ((k->b[i] & r->mask.b[i]) != r->key.b[i])
			return false;
	return true;
}

static uint32_t
ref_lookup(struct ref_filter *ref, const struct sp_key *k)
{
	uint32_t pos;

	for (pos = 0; pos < R_QUOTA; pos++)
		if (ref[pos].used && ref_matches(&ref[pos], k))
			return pos;
	return SP_LOOKUP_MISS;
}

static void
rnd_op(struct sp_lookup *t, struct ref_filter *ref, uint16_t *next_tag)
{
	uint32_t pos = (uint32_t)(sp_test_rnd() % R_QUOTA);
	struct sp_filter f = {.mask = rnd_mask()};
	unsigned int i;

	if (sp_test_rnd() % 4 == 0) {
		assert_int_equal(sp_lookup_delete(t, 1, pos), ref[pos].used ? 0 : -ENOENT);
		ref[pos].used = false;
		return;
	}
	rnd_bytes(f.key.b, SP_KEY_BYTES); /* unmasked: the table must mask it */
	f.result.endpoint = (*next_tag)++;
	assert_int_equal(sp_lookup_write(t, 1, pos, &f), 0);
	ref[pos].used = true;
	ref[pos].mask = f.mask;
	for (i = 0; i < SP_KEY_BYTES; i++)
		ref[pos].key.b[i] = f.key.b[i] & f.mask.b[i];
	ref[pos].tag = f.result.endpoint;
	ref[pos].hits = 0;
}

/* Half random keys, half keys that some filter matches (its key, other bits random). */
static struct sp_key
rnd_key(const struct ref_filter *ref)
{
	const struct ref_filter *r = &ref[sp_test_rnd() % R_QUOTA];
	struct sp_key k;
	unsigned int i;

	rnd_bytes(k.b, SP_KEY_BYTES);
	if (sp_test_rnd() % 2 && r->used)
		for (i = 0; i < SP_KEY_BYTES; i++)
			k.b[i] = r->key.b[i] | (k.b[i] & (uint8_t)~r->mask.b[i]);
	return k;
}

static void
check_burst(struct sp_lookup *t, struct ref_filter *ref, unsigned int *nb_hits)
{
	struct sp_key k[R_BURST];
	const struct sp_key *keys[R_BURST];
	struct sp_result res[R_BURST];
	struct sp_result *results[R_BURST];
	uint32_t pos[R_BURST], want[R_BURST];
	uint16_t i, hits = 0;

	for (i = 0; i < R_BURST; i++) {
		k[i] = rnd_key(ref);
		keys[i] = &k[i];
		results[i] = &res[i];
	}
	for (i = 0; i < R_BURST; i++) {
		want[i] = ref_lookup(ref, &k[i]);
		if (want[i] != SP_LOOKUP_MISS) {
			ref[want[i]].hits++;
			hits++;
		}
		pos[i] = ~want[i]; /* must be overwritten */
	}
	assert_int_equal(sp_lookup_bulk(t, 1, keys, results, pos, R_BURST), hits);
	for (i = 0; i < R_BURST; i++) {
		assert_int_equal(pos[i], want[i]);
		if (want[i] != SP_LOOKUP_MISS)
			assert_int_equal(res[i].endpoint, ref[want[i]].tag);
	}
	*nb_hits += hits;
}

static void
test_random_differential(void **state)
{
	struct sp_lookup *t = *state;
	struct ref_filter *ref = calloc(R_QUOTA, sizeof(*ref));
	unsigned int round, i, nb_hits = 0, nb_keys = 0;
	uint16_t tag = 0;
	uint32_t pos;
	uint64_t hits;
	struct sp_filter f;

	assert_non_null(ref);
	sp_lookup_free(t);
	*state = t = table_create(R_QUOTA, NULL);
	assert_int_equal(sp_lookup_slice_add(t, 1, R_QUOTA), 0);
	for (round = 0; round < R_ROUNDS; round++) {
		for (i = 0; i < R_OPS / R_ROUNDS; i++)
			rnd_op(t, ref, &tag);
		for (i = 0; i < R_KEYS_PER_ROUND / R_BURST; i++)
			check_burst(t, ref, &nb_hits);
		nb_keys += R_KEYS_PER_ROUND / R_BURST * R_BURST;
	}
	/* Every filter reads back as written, with the hits the reference counted. */
	for (pos = 0; pos < R_QUOTA; pos++) {
		if (!ref[pos].used) {
			assert_int_equal(sp_lookup_read(t, 1, pos, &f, &hits), -ENOENT);
			continue;
		}
		assert_int_equal(sp_lookup_read(t, 1, pos, &f, &hits), 0);
		assert_memory_equal(f.key.b, ref[pos].key.b, SP_KEY_BYTES);
		assert_memory_equal(f.mask.b, ref[pos].mask.b, SP_KEY_BYTES);
		assert_int_equal(f.result.endpoint, ref[pos].tag);
		assert_int_equal(hits, ref[pos].hits);
	}
	/* The test is only worth something if both outcomes were common. */
	print_message("%u keys, %u hits\n", nb_keys, nb_hits);
	assert_true(nb_hits > nb_keys / 4 && nb_hits < nb_keys * 3 / 4);
	free(ref);
}

/* ---- lookups racing updates, with RCU ---- */

#define RACE_ROUNDS 500

struct racer {
	struct sp_lookup *t;
	struct rte_rcu_qsbr *qsbr;
	bool deleting; /* set before the slice is removed: from then on misses are right */
	bool stop;
	uint64_t lookups; /* the writer starts once there are some */
	uint64_t wrong;
};

/*
 * The lookup lcore: position 0 always holds a filter for 10/8 whose result
 * carries one value in endpoint, queue and next hop; a torn or freed entry
 * would show up as a miss, another position or a mismatch.
 */
static void *
race_reader(void *arg)
{
	struct racer *r = arg;
	struct sp_key k = ip_key(10, 1, 2, 3);
	const struct sp_key *keys[1] = {&k};
	struct sp_result res;
	struct sp_result *results[1] = {&res};
	uint32_t pos;

	rte_rcu_qsbr_thread_register(r->qsbr, 0);
	rte_rcu_qsbr_thread_online(r->qsbr, 0);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (sp_lookup_bulk(r->t, 1, keys, results, &pos, 1) == 0) {
			if (!__atomic_load_n(&r->deleting, __ATOMIC_ACQUIRE))
				r->wrong++;
		} else if (pos != 0 || res.endpoint != res.queue || res.nh_ip != res.endpoint) {
			r->wrong++;
		}
		__atomic_store_n(&r->lookups, r->lookups + 1, __ATOMIC_RELEASE);
		rte_rcu_qsbr_quiescent(r->qsbr, 0);
		/* On a one-CPU machine the writer must get to run too. */
		if (r->lookups % 256 == 0)
			sched_yield();
	}
	rte_rcu_qsbr_thread_offline(r->qsbr, 0);
	rte_rcu_qsbr_thread_unregister(r->qsbr, 0);
	return NULL;
}

/* Threads inherit the EAL main lcore's CPU; let the reader run on another one. */
static void
unpin(pthread_t thread)
{
	long cpu, nb_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t all;

	CPU_ZERO(&all);
	for (cpu = 0; cpu < nb_cpus && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	assert_int_equal(pthread_setaffinity_np(thread, sizeof(all), &all), 0);
}

static void
test_updates_under_lookups(void **state)
{
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1),
						RTE_CACHE_LINE_SIZE);
	struct racer r = {.qsbr = qsbr};
	struct sp_filter f = prefix_filter(10, 0, 0, 0, 8, 0);
	pthread_t reader;
	uint16_t i;

	assert_non_null(qsbr);
	assert_int_equal(rte_rcu_qsbr_init(qsbr, 1), 0);
	sp_lookup_free(*state);
	*state = r.t = table_create(CAPACITY, qsbr);
	assert_int_equal(sp_lookup_slice_add(r.t, 1, 4), 0);
	write_ok(r.t, 1, 0, f);
	assert_int_equal(pthread_create(&reader, NULL, race_reader, &r), 0);
	unpin(reader);
	while (__atomic_load_n(&r.lookups, __ATOMIC_ACQUIRE) == 0)
		sched_yield();
	for (i = 1; i <= RACE_ROUNDS; i++) {
		f.result.endpoint = f.result.queue = i;
		f.result.nh_ip = i;
		write_ok(r.t, 1, 0, f); /* replace under the reader's feet */
		write_ok(r.t, 1, 1 + i % 3, f);
		assert_int_equal(sp_lookup_delete(r.t, 1, 1 + i % 3), 0);
	}
	/* Removing a slice while it is looked up: misses, never a crash. */
	__atomic_store_n(&r.deleting, true, __ATOMIC_RELEASE);
	assert_int_equal(sp_lookup_slice_del(r.t, 1), 0);
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(reader, NULL), 0);
	print_message("%" PRIu64 " lookups during %u replacements\n", r.lookups, RACE_ROUNDS);
	assert_int_equal(r.wrong, 0);
	sp_lookup_free(r.t);
	*state = NULL;
	rte_free(qsbr);
}

/* ---- the RCU contract: nothing a lookup may hold is freed before it says so ---- */

struct slow_reader {
	struct rte_rcu_qsbr *qsbr;
	bool online;
	bool quiescent; /* set just before reporting the quiescent state */
};

/* A lookup lcore that stays inside a (pretend) lookup for 20 ms. */
static void *
slow_reader(void *arg)
{
	struct slow_reader *r = arg;

	rte_rcu_qsbr_thread_register(r->qsbr, 0);
	rte_rcu_qsbr_thread_online(r->qsbr, 0);
	__atomic_store_n(&r->online, true, __ATOMIC_RELEASE);
	rte_delay_us_sleep(20 * 1000);
	__atomic_store_n(&r->quiescent, true, __ATOMIC_RELEASE);
	rte_rcu_qsbr_quiescent(r->qsbr, 0);
	rte_rcu_qsbr_thread_offline(r->qsbr, 0);
	rte_rcu_qsbr_thread_unregister(r->qsbr, 0);
	return NULL;
}

enum retiring_op { REPLACE, DELETE, SLICE_DEL };

/* Run op while a lookup is in progress: it must return only after that lookup ended. */
static void
assert_waits_for_reader(struct sp_lookup *t, struct rte_rcu_qsbr *qsbr, enum retiring_op op)
{
	struct slow_reader r = {.qsbr = qsbr};
	pthread_t reader;

	assert_int_equal(pthread_create(&reader, NULL, slow_reader, &r), 0);
	unpin(reader);
	while (!__atomic_load_n(&r.online, __ATOMIC_ACQUIRE))
		sched_yield();
	switch (op) {
	case REPLACE:
		write_ok(t, 1, 0, prefix_filter(10, 0, 0, 0, 8, 2));
		break;
	case DELETE:
		assert_int_equal(sp_lookup_delete(t, 1, 0), 0);
		break;
	case SLICE_DEL:
		assert_int_equal(sp_lookup_slice_del(t, 1), 0);
		break;
	}
	assert_true(__atomic_load_n(&r.quiescent, __ATOMIC_ACQUIRE));
	assert_int_equal(pthread_join(reader, NULL), 0);
}

static void
test_writer_waits_for_readers(void **state)
{
	struct rte_rcu_qsbr *qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1),
						RTE_CACHE_LINE_SIZE);
	struct sp_lookup *t;

	assert_non_null(qsbr);
	assert_int_equal(rte_rcu_qsbr_init(qsbr, 1), 0);
	sp_lookup_free(*state);
	*state = t = table_create(CAPACITY, qsbr);
	assert_int_equal(sp_lookup_slice_add(t, 1, 4), 0);
	write_ok(t, 1, 0, prefix_filter(10, 0, 0, 0, 8, 1));
	assert_waits_for_reader(t, qsbr, REPLACE);
	assert_waits_for_reader(t, qsbr, DELETE);
	assert_waits_for_reader(t, qsbr, SLICE_DEL);
	sp_lookup_free(t);
	*state = NULL;
	rte_free(qsbr);
}

/* Poll sp_lookup_finish() as the management thread does, for up to 10 s. */
static int
finish_within(struct sp_lookup *t, uint16_t slice, uint64_t ticket, const uint32_t *pos,
	      uint32_t n)
{
	int rc = -EINPROGRESS;

	for (unsigned int ms = 0; ms < 10000 && rc == -EINPROGRESS; ms++) {
		rc = sp_lookup_finish(t, slice, ticket, pos, n);
		if (rc == -EINPROGRESS)
			usleep(1000);
	}
	return rc;
}

/*
 * A _nowait write that needs a compile is taken at once (reads show it),
 * shown to the lookups by its compile, and only then finished, its hit
 * counters restarting; one that fits beside the compiled filters is
 * visible when it returns. Deleting a slice while it compiles does not wait.
 */
static void
test_nowait_writes_show_with_their_compile(void **state __rte_unused)
{
	enum { N = 600 };
	struct sp_lookup *t = table_create(4 * N, NULL);
	static struct sp_filter f[N];
	static uint32_t pos[N];
	struct sp_filter back;
	uint64_t ticket, hits;
	uint16_t tag;

	assert_int_equal(sp_lookup_slice_add(t, 1, N), 0);
	assert_int_equal(sp_lookup_slice_add(t, 2, 2 * N), 0);
	for (uint32_t i = 0; i < N; i++) {
		f[i] = prefix_filter(10, (uint8_t)(i >> 8), (uint8_t)i, 0, 24, (uint16_t)(i + 1));
		pos[i] = i;
	}
	/* More than fits beside an empty base: a compile shows them. */
	assert_int_equal(sp_lookup_write_bulk_nowait(t, 1, pos, f, N, &ticket), -EINPROGRESS);
	assert_int_equal(sp_lookup_read(t, 1, N - 1, &back, &hits), 0);
	assert_int_equal(back.result.endpoint, N);
	assert_int_equal(finish_within(t, 1, ticket, pos, N), 0);
	for (uint32_t i = 0; i < N; i += 37) {
		assert_int_equal(lookup1(t, 1, ip_key(10, (uint8_t)(i >> 8), (uint8_t)i, 9), &tag), i);
		assert_int_equal(tag, i + 1);
	}
	assert_int_equal(sp_lookup_read(t, 1, 37, &back, &hits), 0);
	assert_int_equal(hits, 1);
	/* Finished again: still 0, and the counters restart. */
	assert_int_equal(sp_lookup_finish(t, 1, ticket, pos, N), 0);
	assert_int_equal(sp_lookup_read(t, 1, 37, &back, &hits), 0);
	assert_int_equal(hits, 0);

	/* One write beside the compiled filters: visible when it returns. */
	f[0] = prefix_filter(10, 0, 37, 0, 24, 999);
	assert_int_equal(sp_lookup_write_bulk_nowait(t, 1, &pos[0], &f[0], 1, &ticket), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 0, 37, 1), &tag), 0);
	assert_int_equal(tag, 999);
	assert_int_equal(sp_lookup_delete_nowait(t, 1, 0, &ticket), 0);
	assert_int_equal(lookup1(t, 1, ip_key(10, 0, 37, 1), &tag), 37);
	assert_int_equal(sp_lookup_delete_nowait(t, 1, 0, &ticket), -ENOENT);
	assert_int_equal(sp_lookup_write_bulk_nowait(t, 1, &pos[0], &f[0], 1, NULL), -EINVAL);
	pos[1] = N;
	assert_int_equal(sp_lookup_write_bulk_nowait(t, 1, &pos[1], &f[1], 1, &ticket), -ERANGE);
	pos[1] = 1;

	/* A slice deleted while its compile runs: gone at once, freed by the compiler. */
	assert_int_equal(sp_lookup_write_bulk_nowait(t, 2, pos, f, N, &ticket), -EINPROGRESS);
	assert_int_equal(sp_lookup_slice_del(t, 2), 0);
	assert_int_equal(sp_lookup_finish(t, 2, ticket, pos, N), -ENOENT);
	assert_int_equal(lookup1(t, 2, ip_key(10, 0, 1, 1), NULL), SP_LOOKUP_MISS);
	assert_int_equal(sp_lookup_slice_add(t, 2, N), 0);
	assert_int_equal(sp_lookup_write_bulk(t, 2, pos, f, N), 0);
	assert_int_equal(lookup1(t, 2, ip_key(10, 0, 1, 1), NULL), 1);
	/* The deleted slice's ticket is not the new slice's, whatever it has written. */
	assert_int_equal(sp_lookup_finish(t, 2, ticket, pos, N), -ENOENT);
	sp_lookup_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test_setup_teardown(test_first_match_by_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bulk_mixed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bits_outside_mask_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_byte_compiled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_counts_what_a_lookup_reads, setup, teardown),
		cmocka_unit_test(test_walk_of_an_acl_table_is_refused),
		cmocka_unit_test_setup_teardown(test_hit_counters, setup, teardown),
		cmocka_unit_test(test_hit_counters_fold_across_the_wrap),
		cmocka_unit_test_setup_teardown(test_flow_cache_follows_the_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_cache_answers_through_its_phases, setup,
						teardown),
		cmocka_unit_test(test_flow_cache_choice),
		cmocka_unit_test_setup_teardown(test_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_next_lists_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hits_counted_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_objects_of_many_slices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields_through_the_phases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity_and_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_differential, setup, teardown),
		cmocka_unit_test_setup_teardown(test_updates_under_lookups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_waits_for_readers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nowait_writes_show_with_their_compile, setup,
						teardown),
	};

	sp_test_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
