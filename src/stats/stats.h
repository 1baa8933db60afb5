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

#include "../common/latency.h"
#include "../common/limits.h"

struct sp_counter {
	uint64_t pkts;
	uint64_t bytes;
};

struct sp_port_stats {
	struct sp_counter rx;      /* frames received */
	struct sp_counter tx;      /* frames the port took */
	struct sp_counter tx_drop; /* frames the port refused (SP_REASON_TX_FULL) */
};

struct sp_slice_stats {
	struct sp_counter rx;        /* arrived on one of the slice's endpoints */
	struct sp_counter fwd;       /* queued for output */
	struct sp_counter exception; /* handed to the slow path (reasons say why) */
	struct sp_counter drop;      /* dropped, any reason */
	/*
	 * Exceptions the slice's channel took; the others are counted again
	 * under no_slow_path, slow_path_full or ring_full.
	 */
	struct sp_counter to_slow_path;
	/* Packets the slow path injected: then counted as fwd, exception or drop. */
	struct sp_counter injected;
	uint64_t inject_dropped; /* injections refused (bad header or endpoint, no buffer) */
	uint64_t reason[SP_REASON_MAX];
};

struct sp_endpoint_stats {
	struct sp_counter rx; /* arrived on this endpoint */
	struct sp_counter tx; /* queued for output from this endpoint */
};

struct sp_lcore_stats {
	struct sp_port_stats port[SP_MAX_PORTS];
	struct sp_slice_stats slice[SP_MAX_SLICES];
	struct sp_endpoint_stats endpoint[SP_MAX_ENDPOINTS];
	uint64_t reason[SP_REASON_MAX]; /* node-wide, every packet that left the fast path */
	/*
	 * ARP answers the neighbor table took (the management thread's), and of
	 * those, how many changed a learned neighbor's MAC.
	 */
	uint64_t arp_learned;
	uint64_t neigh_changed;
	/* Sampled frames' time from rx to the port taking them (the LC lcore's). */
	struct sp_latency residence;
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

/* Sums over all lcores. */
void sp_stats_port(uint16_t port, struct sp_port_stats *out);
void sp_stats_slice(uint16_t slice, struct sp_slice_stats *out);
void sp_stats_endpoint(uint16_t ep, struct sp_endpoint_stats *out);
void sp_stats_reasons(uint64_t out[SP_REASON_MAX]);
void sp_stats_arp(uint64_t *learned, uint64_t *changed);
void sp_stats_residence(struct sp_latency *out);
/* Back to zero for the next slice or endpoint of that id, once no lcore counts for it. */
void sp_stats_reset_slice(uint16_t slice);
void sp_stats_reset_endpoint(uint16_t ep);

#endif
