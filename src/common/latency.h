/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency histogram, log-linear: values below 16 ns exact, above 16 buckets
 * per power of two (within 6.25 %), so percentiles cost no memory per
 * sample. The generator keeps one per stream, slicepathd one per lcore for
 * the time frames spend inside it (docs/guide-operator.md).
 */
#ifndef SP_LATENCY_H
#define SP_LATENCY_H

#include <stdint.h>

#include <jansson.h>

#define SP_LAT_BUCKETS (64 * 16)

struct sp_latency {
	uint64_t count, sum_ns, max_ns;
	uint64_t bucket[SP_LAT_BUCKETS];
};

void sp_latency_add(struct sp_latency *l, uint64_t ns);
/* The smallest value at or above which fraction q (0 to 1) of the samples lie, bucket precision. */
uint64_t sp_latency_quantile(const struct sp_latency *l, double q);
/* The largest value bucket b holds. */
uint64_t sp_latency_bucket_top(unsigned int b);
struct sp_latency_summary {
	uint64_t count, mean, p50, p99, p999, max; /* ns */
};

void sp_latency_summarize(const struct sp_latency *l, struct sp_latency_summary *s);
/* The summary as JSON: {"count", "mean", "p50", "p99", "p999", "max"}. */
json_t *sp_latency_json(const struct sp_latency *l);
/*
 * Add l to acc (one lcore's to the node's). acc's count is what its buckets
 * hold, so that a histogram read while an lcore adds to it stays consistent.
 */
void sp_latency_merge(struct sp_latency *acc, const struct sp_latency *l);

#endif
