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

#endif
