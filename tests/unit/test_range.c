/* SPDX-License-Identifier: BSD-3-Clause */
/* Range-to-prefix expansion: exact, disjoint, ordered and minimal, over many ranges. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sp_test.h"

#include "common/range.h"

#define SPACE (UINT16_MAX + 1u)

struct cover {
	struct sp_prefix16 p[SP_RANGE_MAX_PREFIXES];
	unsigned int n;
};

/*
 * The reference: walk the binary trie of 16-bit values and take every node
 * whose whole block lies inside [lo, hi] without descending further. Those
 * nodes are the maximal prefixes inside the range: the unique minimal cover.
 */
static void
ref_walk(uint32_t base, uint32_t size, uint32_t lo, uint32_t hi, struct cover *c)
{
	uint32_t last = base + size - 1;

	if (last < lo || base > hi)
		return;
	if (base >= lo && last <= hi) {
		assert_true(c->n < SP_RANGE_MAX_PREFIXES);
		c->p[c->n].value = (uint16_t)base;
		c->p[c->n].mask = (uint16_t)~(size - 1);
		c->n++;
		return;
	}
	ref_walk(base, size / 2, lo, hi, c);
	ref_walk(base + size / 2, size / 2, lo, hi, c);
}

static struct cover
expand(uint16_t lo, uint16_t hi)
{
	struct cover c;
	int n = sp_range_to_prefixes(lo, hi, c.p, SP_RANGE_MAX_PREFIXES);

	assert_in_range(n, 1, SP_RANGE_MAX_PREFIXES);
	c.n = (unsigned int)n;
	return c;
}

/* One more than the prefix's last value (32 bits: may be 65536). */
static uint32_t
block_end(struct sp_prefix16 p)
{
	return (uint32_t)p.value + (uint16_t)~p.mask + 1;
}

/*
 * Well-formed prefixes (ones at the top of the mask, no value bits below
 * it) laid end to end from lo to hi: their union is exactly [lo, hi] and
 * they are disjoint. Equal to the reference, so the count is minimal.
 */
static void
check_range(uint16_t lo, uint16_t hi)
{
	struct cover c = expand(lo, hi), ref = {.n = 0};
	uint32_t next = lo;
	unsigned int i;
	uint16_t low_bits;

	for (i = 0; i < c.n; i++) {
		low_bits = (uint16_t)~c.p[i].mask;
		assert_int_equal(low_bits & (low_bits + 1u), 0);
		assert_int_equal(c.p[i].value & low_bits, 0);
		assert_int_equal(c.p[i].value, next);
		next = block_end(c.p[i]);
	}
	assert_int_equal(next, (uint32_t)hi + 1);

	ref_walk(0, SPACE, lo, hi, &ref);
	assert_int_equal(c.n, ref.n);
	assert_memory_equal(c.p, ref.p, c.n * sizeof(c.p[0]));
}

/* Every range with both ends in [first, first + width). */
static void
check_window(uint32_t first, uint32_t width)
{
	uint32_t lo, hi;

	for (lo = first; lo < first + width; lo++)
		for (hi = lo; hi < first + width; hi++)
			check_range((uint16_t)lo, (uint16_t)hi);
}

static void
test_windows(void **state)
{
	(void)state;
	check_window(0, 300);
	check_window(0x8000 - 150, 300); /* across the top bit */
	check_window(0x1000 - 100, 200);
	check_window(SPACE - 300, 300);
}

/* Every range that starts at 0 or ends at 65535: the one-sided ranges of firewall rules. */
static void
test_one_sided(void **state)
{
	uint32_t v;

	(void)state;
	for (v = 0; v < SPACE; v++) {
		check_range(0, (uint16_t)v);
		check_range((uint16_t)v, UINT16_MAX);
	}
}

static void
random_range(uint16_t *lo, uint16_t *hi)
{
	uint16_t a = (uint16_t)sp_test_rnd(), b = (uint16_t)sp_test_rnd();

	*lo = a < b ? a : b;
	*hi = a < b ? b : a;
}

static void
test_random(void **state)
{
	uint16_t lo, hi;
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		random_range(&lo, &hi);
		check_range(lo, hi);
	}
}

/* The prefixes as the ternary table will use them: each value matches one prefix iff in range. */
static void
test_ternary_match(void **state)
{
	struct cover c;
	unsigned int i, matched;
	uint32_t v;
	uint16_t lo, hi;
	int r;

	(void)state;
	for (r = 0; r < 64; r++) {
		random_range(&lo, &hi);
		c = expand(lo, hi);
		for (v = 0; v < SPACE; v++) {
			matched = 0;
			for (i = 0; i < c.n; i++)
				matched += (v & c.p[i].mask) == c.p[i].value;
			assert_int_equal(matched, v >= lo && v <= hi);
		}
	}
}

static void
test_extremes(void **state)
{
	struct sp_prefix16 p[SP_RANGE_MAX_PREFIXES];

	(void)state;
	assert_int_equal(sp_range_to_prefixes(0, UINT16_MAX, p, 1), 1);
	assert_int_equal(p[0].value, 0);
	assert_int_equal(p[0].mask, 0);
	assert_int_equal(sp_range_to_prefixes(80, 80, p, 1), 1);
	assert_int_equal(p[0].value, 80);
	assert_int_equal(p[0].mask, UINT16_MAX);
	/* The worst case, and the reason for SP_RANGE_MAX_PREFIXES. */
	assert_int_equal(sp_range_to_prefixes(1, UINT16_MAX - 1, p, SP_RANGE_MAX_PREFIXES),
			 SP_RANGE_MAX_PREFIXES);
	assert_int_equal(sp_range_to_prefixes(1024, UINT16_MAX, p, SP_RANGE_MAX_PREFIXES), 6);
}

static void
test_errors(void **state)
{
	struct sp_prefix16 p[SP_RANGE_MAX_PREFIXES];

	(void)state;
	assert_int_equal(sp_range_to_prefixes(2, 1, p, SP_RANGE_MAX_PREFIXES), -EINVAL);
	assert_int_equal(sp_range_to_prefixes(UINT16_MAX, 0, p, SP_RANGE_MAX_PREFIXES), -EINVAL);
	assert_int_equal(sp_range_to_prefixes(0, 0, p, 0), -ENOSPC);
	assert_int_equal(sp_range_to_prefixes(1, UINT16_MAX - 1, p, SP_RANGE_MAX_PREFIXES - 1),
			 -ENOSPC);
	assert_int_equal(sp_range_to_prefixes(1, 2, p, 1), -ENOSPC);
	assert_int_equal(sp_range_to_prefixes(1, 2, p, 2), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_one_sided),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_ternary_match),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
