/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding stages above decap, as burst functions, and the lcore loop.
 * Read sp_npe_process() top to bottom and it is the SPP NPE: parse (code
 * option) -> lookup (TCAM) -> format (code option) -> outer header -> queue
 * manager.
 */
#ifndef SP_PIPELINE_H
#define SP_PIPELINE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../stats/stats.h"
#include "node.h"

/*
 * What an NPE takes in one round at most: several bursts, so that with many
 * slices each slice's share still makes a batch worth classifying at once
 * (rte_acl classifies fewer than four keys one by one).
 */
#define SP_NPE_ROUND (8 * SP_BURST)

/* Parse, look up, format, encapsulate and enqueue n <= SP_NPE_ROUND packets that
 * decap handed to slices of this NPE. Counts and frees what leaves. */
void sp_npe_process(const struct sp_node *node, struct sp_npe *npe, struct rte_mbuf **pkts,
		    uint16_t n, struct sp_lcore_stats *st);

/* Write the outer Ethernet/IPv4/UDP header from each packet's lookup result
 * (the framework half of SPP's header format block); map slice-relative
 * endpoint and queue to node ones, each packet by its own slice. n <= SP_BURST.
 * Next hops are found through the calling lcore's neighbor cache nc.
 * Marks drops, never frees. Returns how many packets are SP_FORWARD after it. */
uint16_t sp_encap_burst(const struct sp_node *node, struct sp_neigh_cache *nc,
			struct rte_mbuf **pkts, uint16_t n);

/* Fill the endpoint's outer header template from its port (MAC), address and UDP port,
 * before its first packet. */
void sp_encap_prepare(const struct sp_node *node, struct sp_endpoint *ep);

/* Count packets that left the fast path (exception or drop), any number, by reason; hand
 * the exceptions of slices with a slow path connected to the management
 * thread (node->exc_ring), free the others. */
void sp_retire_burst(const struct sp_node *node, struct rte_mbuf **pkts, uint16_t n,
		     struct sp_lcore_stats *st);

/* rte_eal_remote_launch() entry: arg is the struct sp_node. */
int sp_lcore_main(void *arg);

#endif
