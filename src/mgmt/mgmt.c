/* SPDX-License-Identifier: BSD-3-Clause */
#include "mgmt.h"

#include <poll.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "channel.h"

RTE_LOG_REGISTER(sp_mgmt_logtype, slicepath.mgmt, INFO);

#define MAX_PENDING 256
#define POLL_MS 2 /* ARP and exceptions need no more; requests and injections wake it at once */
#define BURST 32
#define NEVER_ASKED 1 /* last_tsc of a next hop not asked for yet */

/* Next hops being resolved: ask once a second until answered. */
struct pending {
	uint16_t port;
	uint32_t ip_be;
	uint64_t last_tsc; /* 0: free slot */
};

struct mgmt {
	struct sp_node *node;
	struct pending pending[MAX_PENDING];
	bool full_logged;
};

static struct pending *
pending_find(struct mgmt *g, uint16_t port, uint32_t ip)
{
	for (unsigned int i = 0; i < MAX_PENDING; i++) {
		struct pending *p = &g->pending[i];

		if (p->last_tsc != 0 && p->port == port && p->ip_be == ip)
			return p;
	}
	return NULL;
}

/* Learn only what we asked for or already know (a gratuitous update): any
 * host on the link could otherwise fill the table with unsolicited replies. */
static bool
wanted(struct mgmt *g, uint16_t port, uint32_t ip)
{
	struct rte_ether_addr known;

	return pending_find(g, port, ip) != NULL ||
	       sp_neigh_get(g->node->neigh, port, ip, &known) == 0;
}

static void
learn(struct mgmt *g)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int n = rte_ring_dequeue_burst(g->node->learn_ring, (void **)pkts, BURST, NULL);

	for (unsigned int i = 0; i < n; i++) {
		uint16_t port = pkts[i]->port;
		struct rte_ether_addr mac;
		uint32_t ip;

		if (sp_arp_reply_sender(pkts[i], &ip, &mac) < 0 || !wanted(g, port, ip))
			continue;
		if (sp_neigh_set(g->node->neigh, port, ip, &mac) < 0)
			MGMT_LOG(WARNING, "neighbor table full; cannot learn a neighbor\n");
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* The slot of a pending next hop, or a free one for it. */
static struct pending *
pending_slot(struct mgmt *g, uint16_t port, uint32_t ip)
{
	struct pending *free_slot = pending_find(g, port, ip);

	if (free_slot != NULL)
		return free_slot;
	for (unsigned int i = 0; i < MAX_PENDING && free_slot == NULL; i++)
		if (g->pending[i].last_tsc == 0)
			free_slot = &g->pending[i];
	if (free_slot == NULL && !g->full_logged) {
		MGMT_LOG(WARNING, "more than %d next hops unresolved at once\n", MAX_PENDING);
		g->full_logged = true;
	}
	return free_slot;
}

static void
collect_requests(struct mgmt *g)
{
	void *reqs[BURST];
	unsigned int n = rte_ring_dequeue_burst(g->node->resolve_ring, reqs, BURST, NULL);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t r = (uint64_t)(uintptr_t)reqs[i];
		uint16_t port = (uint16_t)(r >> 32);
		uint32_t ip = (uint32_t)r;
		struct pending *p = pending_slot(g, port, ip);

		if (p != NULL && p->last_tsc == 0)
			*p = (struct pending){.port = port, .ip_be = ip, .last_tsc = NEVER_ASKED};
	}
}

/* Ask for every pending next hop not asked for within the last second; forget
 * those that got resolved. */
static void
send_requests(struct mgmt *g)
{
	uint64_t now = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	for (unsigned int i = 0; i < MAX_PENDING; i++) {
		struct pending *p = &g->pending[i];
		struct rte_ether_addr mac;
		struct rte_mbuf *m;

		if (p->last_tsc == 0)
			continue;
		if (sp_neigh_get(g->node->neigh, p->port, p->ip_be, &mac) == 0) {
			p->last_tsc = 0;
			continue;
		}
		if (p->last_tsc != NEVER_ASKED && now - p->last_tsc < hz)
			continue;
		p->last_tsc = now;
		m = sp_arp_request(g->node->decap, g->node->pool, p->port, p->ip_be);
		if (m != NULL && rte_ring_enqueue(g->node->ctrl_tx_ring, m) < 0)
			rte_pktmbuf_free(m);
	}
}

/* Wait up to POLL_MS for the management socket and the exception channels, and serve them. */
static void
serve_sockets(struct sp_node *node, struct sp_rpc_server *rpc)
{
	static struct pollfd fds[SP_RPC_MAX_CLIENTS + 1 + 2 * SP_MAX_SLICES];
	unsigned int nb_rpc = sp_rpc_server_pollfds(rpc, fds);
	unsigned int nb_chan = sp_channels_pollfds(node->channels, fds + nb_rpc,
						   RTE_DIM(fds) - nb_rpc);

	if (poll(fds, nb_rpc + nb_chan, POLL_MS) < 0)
		return;
	/* Channels first: a request may delete a slice and close its channel. */
	sp_channels_serve(node->channels, fds + nb_rpc, nb_chan);
	sp_rpc_server_serve(rpc, node, fds, nb_rpc);
}

void
sp_mgmt_run(struct sp_node *node, struct sp_rpc_server *rpc)
{
	struct mgmt g = {.node = node};

	while (!node->quit) {
		learn(&g);
		collect_requests(&g);
		send_requests(&g);
		sp_channels_deliver(node->channels);
		serve_sockets(node, rpc);
	}
}
