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
#include <rte_ring.h>

#include "../common/limits.h"
#include "../encap/neigh_hold.h"
#include "../encap/neigh_worker.h"
#include "../fastpath/constants.h"
#include "../fastpath/fastpath.h"
#include "../lookup/lookup.h"
#include "../stats/stats.h"

struct sp_qm;

/*
 * What an NPE takes in one round at most: several bursts, whose lookups it
 * makes at once whatever their slices (sp_lookup_bulk_deferred()).
 */
#define SP_NPE_ROUND (8 * SP_BURST)

/* An NPE: one filter table and one queue manager, run by exactly one lcore,
 * so neither needs a lock. When that lcore is not the LC lcore, rings join
 * the two (the SPP switch between Line Card and NPE). */
struct sp_npe {
	uint16_t id;
	unsigned int lcore;
	struct sp_lookup *lookup;
	struct sp_qm *qm;
	uint32_t filter_capacity; /* its table's positions, all slices together */
	uint32_t queue_capacity;  /* its queue manager's physical queues */
	uint32_t nb_queues;      /* physical queues handed out so far (some may be free again) */
	uint64_t filter_quotas;  /* the slices' filter_quota, summed */
	uint64_t queue_quotas;   /* the slices' queue_quota, summed */
	struct rte_ring *rx_ring;               /* LCs -> NPE (NULL: on the one LC lcore) */
	struct rte_ring *inject_ring;           /* mgmt -> NPE: packets slow paths inject */
	struct rte_ring *tx_ring[SP_MAX_PORTS]; /* NPE -> LC, per output port of one tx queue */
	struct sp_neigh_cache neigh_cache;      /* its lcore's, for the outer headers */
	struct sp_neigh_hold hold;              /* its lcore's: frames waiting for ARP (encap.h) */
	struct sp_lookup_deferred_hits deferred_hits; /* its lcore's: filter hits not yet counted */
	struct rte_mbuf *round_lookups[SP_NPE_ROUND]; /* its lcore's: a round's packets to look up */
};

/* Parse, look up, format, encapsulate and enqueue n <= SP_NPE_ROUND packets that
 * decap handed to slices of this NPE; host slices' frames go to fp->host_input.
 * Counts and frees what leaves. */
void sp_npe_process(const struct sp_fastpath *fp, struct sp_npe *npe, struct rte_mbuf **pkts,
		    uint16_t n, struct sp_lcore_stats *st);

/*
 * The NPE's lcore, each loop while its hold keeps frames
 * (npe->hold.nb_frames): those whose next hop the neighbor table now has
 * are released (counted released, then fwd or a drop), those that waited
 * SP_NEIGH_HOLD_MS dropped (no_neighbor): each ends in one counter.
 */
void sp_npe_hold_service(const struct sp_fastpath *fp, struct sp_npe *npe,
			 struct sp_lcore_stats *st);

/* Free what the hold keeps (the lcore stops). */
void sp_npe_hold_free(struct sp_npe *npe);

#endif
