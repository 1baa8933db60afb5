/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency histogram: values below 16 ns exact, above 16 buckets per power
 * of two (within 6.25 %), so percentiles cost no memory per sample.
 */
#include "gen.h"

#define SUB_BITS 4
#define SUB (1u << SUB_BITS)

static unsigned int
bucket_of(uint64_t ns)
{
	unsigned int k;

	if (ns < SUB)
		return (unsigned int)ns;
	k = 63u - (unsigned int)__builtin_clzll(ns); /* ns >= 2^k, k >= SUB_BITS */
	return (k - SUB_BITS + 1) * SUB + (unsigned int)((ns >> (k - SUB_BITS)) & (SUB - 1));
}

/* The largest value bucket b holds. */
static uint64_t
bucket_top(unsigned int b)
{
	unsigned int k;

	if (b < SUB)
		return b;
	k = b / SUB + SUB_BITS - 1;
	return ((uint64_t)(SUB + b % SUB) << (k - SUB_BITS)) + (UINT64_C(1) << (k - SUB_BITS)) - 1;
}

void
gen_latency_add(struct gen_latency *l, uint64_t ns)
{
	unsigned int b = bucket_of(ns);

	l->bucket[b < GEN_LAT_BUCKETS ? b : GEN_LAT_BUCKETS - 1]++;
	l->count++;
	l->sum_ns += ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
}

uint64_t
gen_latency_quantile(const struct gen_latency *l, double q)
{
	uint64_t want, seen = 0;

	if (l->count == 0)
		return 0;
	want = (uint64_t)(q * (double)l->count + 0.5);
	if (want == 0)
		want = 1;
	for (unsigned int b = 0; b < GEN_LAT_BUCKETS; b++) {
		seen += l->bucket[b];
		if (seen >= want)
			return bucket_top(b) < l->max_ns ? bucket_top(b) : l->max_ns;
	}
	return l->max_ns;
}
