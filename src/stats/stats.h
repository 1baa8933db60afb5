/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-lcore counters. Each forwarding lcore writes only its own block, with
 * plain increments (no atomics on the fast path); readers sum the blocks of
 * all lcores when asked. A 64-bit aligned load on x86-64 never tears, so a
 * reader sees each counter at some recent value.
 */
#ifndef SP_STATS_H
#define SP_STATS_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>
#include <slicepath/counters.h>

#include "../common/latency.h"
#include "../common/limits.h"

struct sp_counter {
	uint64_t pkts;
	uint64_t bytes;
};

/* The blocks' fields, from the lists of slicepath/counters.h. */
#define SP_STATS_COUNTER(name, what) struct sp_counter name;
#define SP_STATS_COUNT(name, what) uint64_t name;

struct sp_port_stats {
	SP_PORT_COUNTERS(SP_STATS_COUNTER)
};

struct sp_slice_stats {
	SP_SLICE_COUNTERS(SP_STATS_COUNTER)
	SP_SLICE_COUNTS(SP_STATS_COUNT)
	uint64_t reason[SP_REASON_MAX];
};

struct sp_endpoint_stats {
	SP_ENDPOINT_COUNTERS(SP_STATS_COUNTER)
};

/* ARP answers the management thread took (slicepath/counters.h's list). */
struct sp_arp_counts {
	SP_ARP_COUNTS(SP_STATS_COUNT)
};

/* A forwarding lcore's share of the work (slicepath/counters.h's list). */
struct sp_lcore_work {
	SP_LCORE_WORK_COUNTS(SP_STATS_COUNT)
};

struct sp_lcore_stats {
	struct sp_port_stats port[SP_MAX_PORTS];
	struct sp_slice_stats slice[SP_MAX_SLICES];
	struct sp_endpoint_stats endpoint[SP_MAX_ENDPOINTS];
	uint64_t reason[SP_REASON_MAX]; /* node-wide, every packet that left the fast path */
	struct sp_arp_counts arp; /* the management thread's */
	/* Sampled frames' time from rx to the port taking them (the LC lcore's). */
	struct sp_latency residence;
	struct sp_lcore_work work;
} __rte_cache_aligned;

/* Allocate a block for each enabled lcore. Call once after EAL init. */
int sp_stats_init(void);
void sp_stats_fini(void);

/* This lcore's block; never NULL after sp_stats_init(). */
struct sp_lcore_stats *sp_stats_lcore(unsigned int lcore_id);

static inline void
sp_counter_add(struct sp_counter *c, const struct rte_mbuf *m)
{
	c->pkts++;
	c->bytes += rte_pktmbuf_pkt_len(m);
}

/*
 * Readings, summed over all lcores, as named values in the lists' order
 * ("rx_pkts", "rx_bytes", ..., "inject_dropped"): what stats.get and
 * telemetry both show, each putting them in its own form.
 */
typedef void (*sp_stats_fn)(void *ctx, const char *name, uint64_t value);
void sp_stats_port_read(uint16_t port, sp_stats_fn fn, void *ctx);
void sp_stats_slice_read(uint16_t slice, sp_stats_fn fn, void *ctx);
void sp_stats_endpoint_read(uint16_t ep, sp_stats_fn fn, void *ctx);
/* By reason: a slice's, and the node's (every packet that left the fast path). */
void sp_stats_slice_reasons(uint16_t slice, uint64_t out[SP_REASON_MAX]);
void sp_stats_reasons(uint64_t out[SP_REASON_MAX]);
void sp_stats_arp_read(sp_stats_fn fn, void *ctx);
void sp_stats_residence(struct sp_latency *out);
/* Back to zero for the next slice or endpoint of that id, once no lcore counts for it. */
void sp_stats_reset_slice(uint16_t slice);
void sp_stats_reset_endpoint(uint16_t ep);

#endif
