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

/*
 * The summary's fields, each listed once: X(name, unit). JSON names them
 * name ("p99", in ns); telemetry name unit ("p99_ns"; "count" has none).
 */
#define SP_LATENCY_SUMMARY(X)                                                                      \
	X(count, "")                                                                               \
	X(mean, "_ns")                                                                             \
	X(p50, "_ns")                                                                              \
	X(p99, "_ns")                                                                              \
	X(p999, "_ns")                                                                             \
	X(max, "_ns")

#define SP_LATENCY_SUMMARY_FIELD(name, unit) uint64_t name;
struct sp_latency_summary {
	SP_LATENCY_SUMMARY(SP_LATENCY_SUMMARY_FIELD)
};
#undef SP_LATENCY_SUMMARY_FIELD

void sp_latency_summarize(const struct sp_latency *l, struct sp_latency_summary *s);
/* The summary as JSON: {"count", "mean", "p50", "p99", "p999", "max"}. */
json_t *sp_latency_json(const struct sp_latency *l);
/* A summary read back from that JSON (what it lacks as 0). */
void sp_latency_summary_from_json(json_t *o, struct sp_latency_summary *s);

/*
 * The whole histogram: the summary, the sum and the buckets that hold any
 * ({largest value a bucket holds: samples}), from which a reader keeping
 * two readings works out a window's percentiles.
 */
#define SP_LATENCY_SUM "sum"
#define SP_LATENCY_BUCKETS "buckets"
json_t *sp_latency_histogram_json(const struct sp_latency *l);
/*
 * Add l to acc (one lcore's to the node's). acc's count is what its buckets
 * hold, so that a histogram read while an lcore adds to it stays consistent.
 */
void sp_latency_merge(struct sp_latency *acc, const struct sp_latency *l);

#endif
