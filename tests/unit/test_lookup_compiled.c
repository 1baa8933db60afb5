/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compiled table under rewrites, against a brute-force reference.
 * Rule-like filters (address prefixes, port ranges expanded by the shared
 * range helper, protocol) are compiled (tree, or rte_acl); then random
 * replacements, deletes and restores follow, each checked at once with
 * keys inside the rewritten filter's old and new boxes, inside random
 * filters, and anywhere. A rewritten compiled filter is stale until the
 * next compile: these lookups go through its promoted copies (changes.h).
 *
 * Built twice: for the 14-byte engine (the ipv4 option's key: IPv4
 * addresses, ports, protocol) and, as test_lookup_compiled_wide, for the
 * 40-byte one (-DLK_KEY_BYTES=SP_KEY_MAX_BYTES, src/lookup/width.h) with
 * the ipv6 option's 37-byte key: IPv6 prefixes to /128, ports, next header.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_vect.h>

#include <slicepath/ipv4.h>
#include <slicepath/ipv6.h>

#include "sp_test.h"
#include "lookup/lookup.h"
#include "common/range.h"

/* Where the key's fields lie: the ipv4 option's key, or the IPv6 5-tuple's. */
#if LK_KEY_BYTES == 14
#define ADDR_BYTES 4
#define DST_AT SP_IPV4_KEY_DST
#define SRC_AT SP_IPV4_KEY_SRC
#define PORTS_AT SP_IPV4_KEY_SPORT
#define PROTO_AT SP_IPV4_KEY_PROTO
#else
#define ADDR_BYTES 16
#define DST_AT SP_IPV6_KEY_DST
#define SRC_AT SP_IPV6_KEY_SRC
#define PORTS_AT SP_IPV6_KEY_SPORT
#define PROTO_AT SP_IPV6_KEY_NH
#endif

#define QUOTA 4096
#define NB_OPS 3000
#define KEYS_PER_OP 64
#define SLICE 1

struct ref {
	bool used;
	struct sp_filter f; /* key stored masked; result.endpoint: its rule */
};

static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)(sp_test_rnd() % n);
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* An address prefix of ClassBench-like length (ClassBench-ng's for IPv6) into bytes off on. */
static void
rnd_prefix(struct sp_filter *f, unsigned int off)
{
#if LK_KEY_BYTES == 14
	static const unsigned int lens[] = {0, 8, 16, 24, 28, 32, 32};
#else
	static const unsigned int lens[] = {0, 16, 32, 40, 48, 56, 64, 96, 120, 128, 128};
#endif
	unsigned int len = lens[rnd(RTE_DIM(lens))];

	for (unsigned int i = 0; i < ADDR_BYTES; i++) {
		unsigned int bits = len > 8 * i ? RTE_MIN(len - 8 * i, 8u) : 0;
		uint8_t mask = (uint8_t)(0xff00u >> bits);

		f->mask.b[off + i] = mask;
		f->key.b[off + i] = (uint8_t)sp_test_rnd() & mask;
	}
}

/* A port range: the wildcard, one port, the high ports, or random bounds. */
static void
rnd_range(uint16_t *lo, uint16_t *hi)
{
	uint16_t a = (uint16_t)rnd(65536), b = (uint16_t)rnd(65536);

	switch (rnd(4)) {
	case 0:
		*lo = 0, *hi = 65535;
		break;
	case 1:
		*lo = *hi = a;
		break;
	case 2:
		*lo = 1024, *hi = 65535;
		break;
	default:
		*lo = RTE_MIN(a, b), *hi = RTE_MAX(a, b);
		break;
	}
}

/* Rules expanded to filters from position *pos on, while they fit: as the control API would. */
static void
make_rules(struct ref *table, struct ref *orig)
{
	uint32_t pos = 0, rule = 0;

	while (pos < QUOTA) {
		struct sp_prefix16 sp[SP_RANGE_MAX_PREFIXES], dp[SP_RANGE_MAX_PREFIXES];
		struct sp_filter f = {.result = {.endpoint = (uint16_t)rule}};
		uint16_t lo, hi;
		int ns, nd;

		rnd_prefix(&f, DST_AT);
		rnd_prefix(&f, SRC_AT);
		rnd_range(&lo, &hi);
		ns = sp_range_to_prefixes(lo, hi, sp, SP_RANGE_MAX_PREFIXES);
		rnd_range(&lo, &hi);
		nd = sp_range_to_prefixes(lo, hi, dp, SP_RANGE_MAX_PREFIXES);
		assert_true(ns > 0 && nd > 0);
		if (rnd(3) != 0) {
			f.key.b[PROTO_AT] = rnd(2) ? 6 : 17;
			f.mask.b[PROTO_AT] = 0xff;
		}
		f.result.queue = (uint16_t)~f.result.endpoint;
		for (int i = 0; i < ns && pos < QUOTA; i++) {
			for (int j = 0; j < nd && pos < QUOTA; j++, pos++) {
				put16(&f.key.b[PORTS_AT], sp[i].value);
				put16(&f.mask.b[PORTS_AT], sp[i].mask);
				put16(&f.key.b[PORTS_AT + 2], dp[j].value);
				put16(&f.mask.b[PORTS_AT + 2], dp[j].mask);
				table[pos] = orig[pos] = (struct ref){.used = true, .f = f};
			}
		}
		rule++;
	}
}

static bool
ref_match(const struct ref *r, const struct sp_key *k)
{
	for (unsigned int i = 0; i < LK_KEY_BYTES; i++)
		if ((k->b[i] & r->f.mask.b[i]) != r->f.key.b[i])
			return false;
	return true;
}

static uint32_t
ref_lookup(const struct ref *table, const struct sp_key *k)
{
	for (uint32_t pos = 0; pos < QUOTA; pos++)
		if (table[pos].used && ref_match(&table[pos], k))
			return pos;
	return SP_LOOKUP_MISS;
}

/* A key in f's box: its bits where the mask says, random elsewhere. */
static struct sp_key
key_in(const struct sp_filter *f)
{
	struct sp_key k = {{0}};

	for (unsigned int i = 0; i < LK_KEY_BYTES; i++)
		k.b[i] = (uint8_t)(f->key.b[i] | (sp_test_rnd() & ~f->mask.b[i]));
	return k;
}

static void
check_keys(struct sp_lookup *t, const struct ref *table, const struct sp_key *k, uint16_t n)
{
	const struct sp_key *kp[KEYS_PER_OP];
	struct sp_result res[KEYS_PER_OP], *rp[KEYS_PER_OP];
	uint32_t pos[KEYS_PER_OP];

	for (uint16_t i = 0; i < n; i++) {
		kp[i] = &k[i];
		rp[i] = &res[i];
	}
	sp_lookup_bulk(t, SLICE, kp, rp, pos, n);
	for (uint16_t i = 0; i < n; i++) {
		uint32_t want = ref_lookup(table, &k[i]);

		if (pos[i] != want)
			print_message("key %u: engine says %u, reference %u\n", i, pos[i], want);
		assert_int_equal(pos[i], want);
		if (want != SP_LOOKUP_MISS) {
			assert_int_equal(res[i].endpoint, table[want].f.result.endpoint);
			assert_int_equal(res[i].queue, (uint16_t)~res[i].endpoint);
		}
	}
}

/* A form, and the SIMD width the tree's walk may use (0: what the CPU and EAL allow). */
struct variant {
	enum sp_lookup_form form;
	uint16_t simd_bits;
};

/* The walk a tree takes: AVX2's where the CPU has it and the width allows (tree.h). */
static const char *
tree_method_expected(void)
{
#ifdef RTE_ARCH_X86
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0 &&
			       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256 ?
		       "tree-avx2" : "tree-sse";
#else
	return "tree-scalar";
#endif
}

static void
test_rewrites_of_compiled_filters(void **state)
{
	const struct variant *variant = *state;
	const enum sp_lookup_form *form = &variant->form;
	struct sp_lookup_params p = {.name = "compiled", .capacity = QUOTA, .max_slices = 2,
				     .socket = SOCKET_ID_ANY, .form = *form};
	uint16_t simd_bits;
	struct ref *table = calloc(QUOTA, sizeof(*table)), *orig = calloc(QUOTA, sizeof(*orig));
	struct sp_filter *all = calloc(QUOTA, sizeof(*all));
	uint32_t *positions = calloc(QUOTA, sizeof(*positions)), max_copies = 0, stale_ops = 0;
	struct sp_lookup_info info;
	struct sp_lookup *t;
	struct sp_key k[KEYS_PER_OP];

	assert_non_null(table);
	assert_non_null(orig);
	assert_non_null(all);
	assert_non_null(positions);
	sp_test_eal_init();
	simd_bits = rte_vect_get_max_simd_bitwidth();
	if (variant->simd_bits != 0)
		assert_int_equal(rte_vect_set_max_simd_bitwidth(variant->simd_bits), 0);
	make_rules(table, orig);
	for (uint32_t i = 0; i < QUOTA; i++) {
		all[i] = orig[i].f;
		positions[i] = i;
	}
	t = sp_lookup_create(&p);
	assert_non_null(t);
	assert_int_equal(sp_lookup_slice_add(t, SLICE, QUOTA), 0);
	assert_int_equal(sp_lookup_write_bulk(t, SLICE, positions, all, QUOTA), 0);
	assert_int_equal(sp_lookup_sync(t, SLICE), 0);
	assert_int_equal(sp_lookup_info(t, SLICE, &info), 0);
	assert_int_equal(info.compiled, QUOTA);
	assert_int_equal(strcmp(info.form, "ranges") == 0, *form == SP_LOOKUP_FORM_RANGES);
	assert_int_equal(strcmp(info.form, "tree") == 0, *form == SP_LOOKUP_FORM_TREE);
	if (*form == SP_LOOKUP_FORM_TREE)
		assert_string_equal(info.classifier, tree_method_expected());
	print_message("%u filters compiled into %u rules (%s form, %s)\n", info.compiled, info.rules,
		      info.form, info.classifier);

	for (uint32_t op = 0; op < NB_OPS; op++) {
		uint32_t pos = rnd(QUOTA), other = rnd(QUOTA);
		const struct sp_filter old = table[pos].f;
		unsigned int i, what = rnd(10);

		if (what < 4) { /* another rule's filter */
			assert_int_equal(sp_lookup_write(t, SLICE, pos, &orig[other].f), 0);
			table[pos] = orig[other];
		} else if (what < 7 && table[pos].used) {
			assert_int_equal(sp_lookup_delete(t, SLICE, pos), 0);
			table[pos].used = false;
		} else { /* back to what was compiled */
			assert_int_equal(sp_lookup_write(t, SLICE, pos, &orig[pos].f), 0);
			table[pos] = orig[pos];
		}
		for (i = 0; i < KEYS_PER_OP; i++) {
			switch (i % 4) {
			case 0:
				k[i] = key_in(&old);
				break;
			case 1:
				k[i] = key_in(&orig[other].f);
				break;
			case 2:
				k[i] = key_in(&orig[rnd(QUOTA)].f);
				break;
			default:
				for (unsigned int j = 0; j < LK_KEY_BYTES; j++)
					k[i].b[j] = (uint8_t)sp_test_rnd();
				break;
			}
		}
		check_keys(t, table, k, KEYS_PER_OP);
		assert_int_equal(sp_lookup_info(t, SLICE, &info), 0);
		max_copies = RTE_MAX(max_copies, info.copies);
		stale_ops += info.copies > 0;
	}
	print_message("%u rewrites; copies beside the base: up to %u, present after %u of them\n",
		      NB_OPS, max_copies, stale_ops);
	/* Worth something only if stale compiled filters and their copies were exercised. */
	assert_true(stale_ops > NB_OPS / 10);
	sp_lookup_free(t);
	free(table);
	free(orig);
	free(all);
	free(positions);
	if (variant->simd_bits != 0)
		assert_int_equal(rte_vect_set_max_simd_bitwidth(simd_bits), 0);
}

#if LK_KEY_BYTES != 14
/* rte_acl's forms are laid out for 14-byte keys: a wider table refuses them. */
static void
test_rte_acl_forms_refused(void **state)
{
	struct sp_lookup_params p = {.name = "wide", .capacity = 16, .max_slices = 2,
				     .socket = SOCKET_ID_ANY, .form = SP_LOOKUP_FORM_TERNARY};

	(void)state;
	sp_test_eal_init();
	assert_null(sp_lookup_create(&p));
	assert_int_equal(rte_errno, EINVAL);
	p.form = SP_LOOKUP_FORM_RANGES;
	assert_null(sp_lookup_create(&p));
}
#endif

int
main(void)
{
	static const struct variant tree = {.form = SP_LOOKUP_FORM_TREE},
				    tree_128 = {.form = SP_LOOKUP_FORM_TREE, .simd_bits = RTE_VECT_SIMD_128};
#if LK_KEY_BYTES == 14
	static const struct variant ternary = {.form = SP_LOOKUP_FORM_TERNARY},
				    ranges = {.form = SP_LOOKUP_FORM_RANGES};
#endif
	const struct CMUnitTest tests[] = {
		{"rewrites, tree form", test_rewrites_of_compiled_filters, NULL, NULL,
		 (void *)(uintptr_t)&tree},
		{"rewrites, tree form, a 128-bit walk", test_rewrites_of_compiled_filters, NULL, NULL,
		 (void *)(uintptr_t)&tree_128},
#if LK_KEY_BYTES == 14
		{"rewrites, ternary form", test_rewrites_of_compiled_filters, NULL, NULL,
		 (void *)(uintptr_t)&ternary},
		{"rewrites, ranges form", test_rewrites_of_compiled_filters, NULL, NULL,
		 (void *)(uintptr_t)&ranges},
#else
		cmocka_unit_test(test_rte_acl_forms_refused),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
