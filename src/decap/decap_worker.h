/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Substrate decapsulation, the LC lcores' side (decap.h: the management
 * thread's): a received burst classified into what goes to the slices, what
 * is answered in place, what the neighbor table learns from and what the
 * host's interface takes.
 */
#ifndef SP_DECAP_WORKER_H
#define SP_DECAP_WORKER_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "../fastpath/constants.h"

struct sp_decap_table;
struct sp_lcore_stats;

struct sp_decap_out {
	uint16_t nb_fwd;   /* for slices: sp_meta slice and in_ep set, data at inner header
			    * (a host slice's: whole frames) */
	uint16_t nb_reply; /* ARP replies and ICMP echo replies to send out the same port */
	uint16_t nb_learn; /* ARP replies addressed to us, for the neighbor table */
	uint16_t nb_host;  /* whole frames for the host's interface (a port's host path) */
	struct rte_mbuf *fwd[SP_BURST];
	struct rte_mbuf *reply[SP_BURST];
	struct rte_mbuf *learn[SP_BURST];
	struct rte_mbuf *host[SP_BURST];
};

/*
 * Classify a received burst (n <= SP_BURST) from one port. Counts port rx,
 * slice rx, endpoint rx and drop reasons into st; frees what it drops.
 * One lcore at a time: it owns the inbound policers.
 */
void sp_decap_burst(struct sp_decap_table *t, uint16_t port, struct rte_mbuf **pkts,
		    uint16_t n, struct sp_decap_out *out, struct sp_lcore_stats *st);

#endif
