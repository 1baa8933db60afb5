/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header format, the framework's half (SPP's header format block, after the
 * code option's): the outer Ethernet/IPv4/UDP header from each packet's
 * lookup result, the next hop's MAC from the neighbor table (neigh.h).
 */
#ifndef SP_ENCAP_H
#define SP_ENCAP_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "endpoint.h"
#include "neigh_hold.h"
#include "neigh_worker.h"
#include "../fastpath/fastpath.h"

struct sp_lcore_stats;

/* Write the outer Ethernet/IPv4/UDP header from each packet's lookup result;
 * map slice-relative endpoint and queue to node ones, each packet by its own
 * slice. n <= SP_BURST. Next hops are found through the calling lcore's
 * neighbor cache nc. Marks drops, never frees. Returns how many packets are
 * SP_FORWARD after it. Those it found no next hop's MAC for (marked
 * no_neighbor, resolution asked) are the bits set in *missed (bit i:
 * pkts[i]), unless missed is NULL. */
uint16_t sp_encap_burst(const struct sp_fastpath *fp, struct sp_neigh_cache *nc,
			struct rte_mbuf **pkts, uint16_t n, uint64_t *missed);

/*
 * A host slice's frames, IPv4 already (src/hostslice/): the Ethernet header for
 * the next hop sp_meta.result.nh_ip on sp_meta.out_port. n <= SP_BURST. Those
 * without a resolved next hop (marked SP_DROP, resolution asked) go to the
 * end; returns how many are ready, at the front.
 */
uint16_t sp_encap_ethernet(const struct sp_fastpath *fp, struct sp_neigh_cache *nc,
			   struct rte_mbuf **pkts, uint16_t n);

/*
 * The first frames to a next hop without MAC (hold.c): of n <= 64 at pkts,
 * those whose bit is set in missed (sp_encap_burst()'s or
 * sp_encap_ethernet()'s misses, marked no_neighbor), held in the NPE's hold
 * as far as it takes them, each counted held; no longer the caller's. The
 * others stay, in order, at the front: returns how many.
 */
uint16_t sp_encap_hold(const struct sp_fastpath *fp, struct sp_neigh_hold *hold,
		       struct rte_mbuf **pkts, uint16_t n, uint64_t missed,
		       struct sp_lcore_stats *st);

/* Fill the endpoint's outer header template from its port (MAC), address and UDP port,
 * before its first packet. */
void sp_encap_prepare(const struct sp_fastpath *fp, struct sp_endpoint *ep);

#endif
