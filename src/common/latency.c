/* SPDX-License-Identifier: BSD-3-Clause */
#include "latency.h"

#include <inttypes.h>
#include <stdio.h>

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

uint64_t
sp_latency_bucket_top(unsigned int b)
{
	unsigned int k;

	if (b < SUB)
		return b;
	k = b / SUB + SUB_BITS - 1;
	return ((uint64_t)(SUB + b % SUB) << (k - SUB_BITS)) + (UINT64_C(1) << (k - SUB_BITS)) - 1;
}

void
sp_latency_add(struct sp_latency *l, uint64_t ns)
{
	unsigned int b = bucket_of(ns);

	l->bucket[b < SP_LAT_BUCKETS ? b : SP_LAT_BUCKETS - 1]++;
	l->count++;
	l->sum_ns += ns;
	if (ns > l->max_ns)
		l->max_ns = ns;
}

uint64_t
sp_latency_quantile(const struct sp_latency *l, double q)
{
	uint64_t want, seen = 0;

	if (l->count == 0)
		return 0;
	want = (uint64_t)(q * (double)l->count + 0.5);
	if (want == 0)
		want = 1;
	for (unsigned int b = 0; b < SP_LAT_BUCKETS; b++) {
		seen += l->bucket[b];
		if (seen >= want)
			return sp_latency_bucket_top(b) < l->max_ns ? sp_latency_bucket_top(b)
								    : l->max_ns;
	}
	return l->max_ns;
}

void
sp_latency_summarize(const struct sp_latency *l, struct sp_latency_summary *s)
{
	s->count = l->count;
	s->mean = l->count > 0 ? l->sum_ns / l->count : 0;
	s->p50 = sp_latency_quantile(l, 0.5);
	s->p99 = sp_latency_quantile(l, 0.99);
	s->p999 = sp_latency_quantile(l, 0.999);
	s->max = l->max_ns;
}

json_t *
sp_latency_json(const struct sp_latency *l)
{
	struct sp_latency_summary s;

	json_t *o = json_object();

	sp_latency_summarize(l, &s);
#define SET_FIELD(name, unit) json_object_set_new(o, #name, json_integer((json_int_t)s.name));
	SP_LATENCY_SUMMARY(SET_FIELD)
#undef SET_FIELD
	return o;
}

void
sp_latency_summary_from_json(json_t *o, struct sp_latency_summary *s)
{
#define GET_FIELD(name, unit) s->name = (uint64_t)json_integer_value(json_object_get(o, #name));
	SP_LATENCY_SUMMARY(GET_FIELD)
#undef GET_FIELD
}

json_t *
sp_latency_histogram_json(const struct sp_latency *l)
{
	json_t *buckets = json_object(), *r;
	char top[24];

	for (unsigned int b = 0; b < SP_LAT_BUCKETS; b++) {
		if (l->bucket[b] == 0)
			continue;
		snprintf(top, sizeof(top), "%" PRIu64, sp_latency_bucket_top(b));
		json_object_set_new(buckets, top, json_integer((json_int_t)l->bucket[b]));
	}
	r = sp_latency_json(l);
	json_object_set_new(r, SP_LATENCY_SUM, json_integer((json_int_t)l->sum_ns));
	json_object_set_new(r, SP_LATENCY_BUCKETS, buckets);
	return r;
}

void
sp_latency_merge(struct sp_latency *acc, const struct sp_latency *l)
{
	acc->sum_ns += l->sum_ns;
	if (l->max_ns > acc->max_ns)
		acc->max_ns = l->max_ns;
	for (unsigned int b = 0; b < SP_LAT_BUCKETS; b++) {
		uint64_t n = l->bucket[b];

		acc->bucket[b] += n;
		acc->count += n;
	}
}
