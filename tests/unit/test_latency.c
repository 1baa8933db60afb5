/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The latency histogram (common/latency.h) the generator keeps per stream and
 * slicepathd per lcore: percentiles within a bucket's 6.25 %, small values
 * exact, lcores' histograms merged into the node's, and the JSON stats.get
 * shows of them (residence_ns) read back by its readers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/latency.h"

static void
test_latency_percentiles(void **state)
{
	static struct sp_latency l;

	(void)state;
	assert_int_equal(sp_latency_quantile(&l, 0.5), 0);
	/* 1 to 1000 us: the percentiles within the buckets' 6.25 %. */
	for (uint64_t us = 1; us <= 1000; us++)
		sp_latency_add(&l, us * 1000);
	assert_int_equal(l.count, 1000);
	assert_int_equal(l.max_ns, 1000000);
	assert_true(sp_latency_quantile(&l, 0.5) >= 500000 &&
		    sp_latency_quantile(&l, 0.5) <= 500000 * 1.0625);
	assert_true(sp_latency_quantile(&l, 0.99) >= 990000 &&
		    sp_latency_quantile(&l, 0.99) <= 1000000);
	assert_int_equal(sp_latency_quantile(&l, 1), 1000000);
	/* Small values are exact. */
	memset(&l, 0, sizeof(l));
	sp_latency_add(&l, 3);
	sp_latency_add(&l, 9);
	assert_int_equal(sp_latency_quantile(&l, 0.5), 3);
	assert_int_equal(sp_latency_quantile(&l, 1), 9);
}

static void
test_bucket_tops_bound_their_values(void **state)
{
	static struct sp_latency l;

	(void)state;
	/* Every value lies in a bucket whose top is at or above it, within 6.25 %. */
	for (uint64_t ns = 1; ns < (UINT64_C(1) << 40); ns = ns * 3 + 1) {
		memset(&l, 0, sizeof(l));
		sp_latency_add(&l, ns);
		for (unsigned int b = 0; b < SP_LAT_BUCKETS; b++) {
			if (l.bucket[b] == 0)
				continue;
			assert_true(sp_latency_bucket_top(b) >= ns);
			assert_true((double)sp_latency_bucket_top(b) <= (double)ns * 1.0625);
			assert_true(b == 0 || sp_latency_bucket_top(b - 1) < ns);
		}
	}
}

static void
test_merge_sums_lcores(void **state)
{
	static struct sp_latency a, b, node;

	(void)state;
	for (uint64_t ns = 100; ns < 200; ns++)
		sp_latency_add(&a, ns);
	sp_latency_add(&b, 5000000);
	sp_latency_merge(&node, &a);
	sp_latency_merge(&node, &b);
	assert_int_equal(node.count, 101);
	assert_int_equal(node.sum_ns, a.sum_ns + 5000000);
	assert_int_equal(node.max_ns, 5000000);
	assert_true(sp_latency_quantile(&node, 0.5) >= 150 && sp_latency_quantile(&node, 0.5) < 160);
	assert_int_equal(sp_latency_quantile(&node, 1), 5000000);
	/* A bucket an lcore filled after its count was read still counts: count is the buckets'. */
	a.bucket[3]++;
	memset(&node, 0, sizeof(node));
	sp_latency_merge(&node, &a);
	assert_int_equal(node.count, 101);
}

static void
test_histogram_json_as_stats_get_shows_it(void **state)
{
	static struct sp_latency l;
	struct sp_latency_summary s;
	json_t *o;
	char *text;

	(void)state;
	sp_latency_add(&l, 3);
	sp_latency_add(&l, 9);
	o = sp_latency_histogram_json(&l);
	text = json_dumps(o, JSON_COMPACT);
	assert_string_equal(text, "{\"count\":2,\"mean\":6,\"p50\":3,\"p99\":9,\"p999\":9,"
			    "\"max\":9,\"sum\":12,\"buckets\":{\"3\":1,\"9\":1}}");
	/* What slicectl stats, the metrics and the generator's table read back. */
	sp_latency_summary_from_json(o, &s);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.mean, 6);
	assert_int_equal(s.p50, 3);
	assert_int_equal(s.p99, 9);
	assert_int_equal(s.p999, 9);
	assert_int_equal(s.max, 9);
	free(text);
	json_decref(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_percentiles),
		cmocka_unit_test(test_bucket_tops_bound_their_values),
		cmocka_unit_test(test_merge_sums_lcores),
		cmocka_unit_test(test_histogram_json_as_stats_get_shows_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
