/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NPE's round. Read sp_npe_process() top to bottom and it is the SPP
 * NPE: parse (code option) -> lookup (TCAM) -> format (code option) ->
 * outer header (src/encap/) -> queue manager (src/qm/).
 */
#ifndef SP_NPE_H
#define SP_NPE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../node/node.h"
#include "../stats/stats.h"

/* Parse, look up, format, encapsulate and enqueue n <= SP_NPE_ROUND packets that
 * decap handed to slices of this NPE. Counts and frees what leaves. */
void sp_npe_process(const struct sp_node *node, struct sp_npe *npe, struct rte_mbuf **pkts,
		    uint16_t n, struct sp_lcore_stats *st);

/* Count packets that left the fast path (exception or drop), any number, by reason; hand
 * the exceptions of slices with a slow path connected to the management
 * thread (node->exc_ring), free the others. */
void sp_retire_burst(const struct sp_node *node, struct rte_mbuf **pkts, uint16_t n,
		     struct sp_lcore_stats *st);

/*
 * The first frames to a next hop without MAC: of n <= 64 at pkts, those
 * whose bit is set in missed (encap's misses, marked no_neighbor), held in
 * the NPE's hold (encap/neigh_hold.h) as far as it takes them, each counted
 * held; no longer the caller's. The others stay, in order, at the front:
 * returns how many.
 */
uint16_t sp_npe_hold(const struct sp_node *node, struct sp_npe *npe, struct rte_mbuf **pkts,
		     uint16_t n, uint64_t missed, struct sp_lcore_stats *st);

/*
 * The NPE's lcore, each loop while its hold keeps frames
 * (npe->hold.nb_frames): those whose next hop the neighbor table now has
 * are released (counted released, then fwd or a drop), those that waited
 * SP_NEIGH_HOLD_MS dropped (no_neighbor): each ends in one counter.
 */
void sp_npe_hold_service(const struct sp_node *node, struct sp_npe *npe,
			 struct sp_lcore_stats *st);

/* Free what the hold keeps (the lcore stops). */
void sp_npe_hold_free(struct sp_npe *npe);

#endif
