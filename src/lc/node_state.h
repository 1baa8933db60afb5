/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node: everything slicepathd's lcores share, the LC lcores reading it
 * whole. The node builder (src/node/) makes it from the config before
 * the lcores start; the blocks below the LC take their part only (an NPE, the
 * fast path's tables in fastpath/fastpath.h). Ports are referred to by their
 * index in the config ("port index") everywhere inside the daemon; only
 * rx/tx bursts use the DPDK port id (ports[i].port_id).
 */
#ifndef SP_LC_NODE_STATE_H
#define SP_LC_NODE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "residence.h"
#include "../encap/endpoint.h"
#include "../fastpath/fastpath.h"
#include "../hostslice/nat.h"
#include "../npe/npe.h"
#include "../npe/slice.h"
#include "../port/port.h"

struct sp_decap_table;
struct sp_neigh;

struct sp_node {
	struct rte_mempool *pool;
	uint32_t nb_mbufs;
	uint16_t nb_ports;
	struct sp_port ports[SP_MAX_PORTS];
	struct sp_decap_table *decap;
	struct sp_neigh *neigh;
	struct rte_rcu_qsbr *qsbr; /* a thread per worker lcore, then rcu_reader */
	unsigned int rcu_reader;   /* thread id for readers off the lcores (telemetry) */
	unsigned int nb_lcores;
	unsigned int lcores[SP_MAX_WORKERS]; /* the forwarding lcores; index: RCU thread id */
	uint16_t nb_npes;
	struct sp_npe npes[SP_MAX_NPES];
	struct sp_slice *slices[SP_MAX_SLICES];
	/* Which slices are host slices (hostslice/hslice.h): each NPE asks it of every frame. */
	uint64_t host_slice_bits[SP_MAX_SLICES / 64];
	uint16_t nat_first, nat_last; /* the config's NAT ports, host slices' ranges taken from them */
	struct sp_nat_timeouts nat_timeouts;
	uint16_t nb_endpoints;
	struct sp_endpoint endpoints[SP_MAX_ENDPOINTS];
	/* Management thread plumbing. */
	struct rte_ring *learn_ring;   /* LC -> mgmt: ARP replies to learn from */
	struct rte_ring *resolve_ring; /* NPEs -> mgmt: next hops to resolve (struct sp_neigh_want) */
	struct rte_ring *ctrl_tx_ring; /* mgmt -> LC: frames to send (ARP requests) */
	struct rte_ring *exc_ring;     /* NPEs -> mgmt: exceptions for the slow paths */
	struct sp_channels *channels;  /* the slices' exception channels (mgmt/channel.h), or NULL */
	struct sp_residence residence; /* sampling of the time frames spend in the node */
	/*
	 * The LC lcores; LC k polls rx queue k of every port. With several, the
	 * frames of an NPE may come from any of them: its rx ring has several
	 * producers, and an NPE on an LC lcore has one too.
	 */
	uint16_t nb_lc;
	unsigned int lc_lcores[SP_MAX_WORKERS];
	struct sp_steer *steer; /* the ports' rte_flow rules (node/steer.h); the management thread's */
	volatile bool quit;
	/* What the fast path's blocks take of it (sp_node_fastpath_init()). */
	struct sp_fastpath fastpath;
};

/* Index of the worker lcore in the RCU thread list (0..). */
static inline unsigned int
sp_node_rcu_thread(const struct sp_node *node, unsigned int lcore)
{
	for (unsigned int i = 0; i < node->nb_lcores; i++)
		if (node->lcores[i] == lcore)
			return i;
	return 0;
}

/* Which LC lcore this is (it polls that rx queue of every port), or -1. */
static inline int
sp_node_lc_index(const struct sp_node *node, unsigned int lcore)
{
	for (uint16_t k = 0; k < node->nb_lc; k++)
		if (node->lc_lcores[k] == lcore)
			return k;
	return -1;
}

#endif
