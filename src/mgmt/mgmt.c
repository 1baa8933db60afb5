/* SPDX-License-Identifier: BSD-3-Clause */
#include "mgmt.h"

#include <poll.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "channel.h"
#include "../node/hslice_ops.h"
#include "resolver.h"

#define POLL_MS 2 /* ARP and exceptions need no more; requests and injections wake it at once */
#define BURST 32

/* ARP frames the LC lcore passed up: learned or ignored, each counted. */
static void
learn(struct sp_node *node, struct sp_resolver *r, struct sp_lcore_stats *st)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int n = rte_ring_dequeue_burst(node->learn_ring, (void **)pkts, BURST, NULL);
	uint64_t now = rte_get_timer_cycles();

	for (unsigned int i = 0; i < n; i++) {
		enum sp_arp_verdict v = SP_ARP_IGNORED;
		struct rte_ether_addr mac;
		uint32_t ip;

		if (sp_arp_reply_sender(pkts[i], &ip, &mac) == 0)
			v = sp_resolver_input(r, pkts[i]->port, ip, &mac, now);
		if (v == SP_ARP_IGNORED) {
			st->reason[SP_REASON_ARP_IGNORED]++;
		} else {
			st->arp.learned++;
			st->arp.changed += v == SP_ARP_CHANGED;
		}
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Next hops the NPEs could not resolve, then the ARP requests due. */
static void
resolve(struct sp_node *node, struct sp_resolver *r)
{
	struct sp_resolve_ask asks[BURST];
	void *reqs[BURST];
	unsigned int n = rte_ring_dequeue_burst(node->resolve_ring, reqs, BURST, NULL);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t req = (uint64_t)(uintptr_t)reqs[i];

		sp_resolver_want(r, (uint16_t)(req >> 32), (uint32_t)req);
	}
	n = sp_resolver_due(r, rte_get_timer_cycles(), asks, BURST);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = sp_arp_request(node->decap, node->pool, asks[i].port,
						    asks[i].ip_be);

		if (m != NULL && rte_ring_enqueue(node->ctrl_tx_ring, m) < 0)
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
	struct sp_lcore_stats *st = sp_stats_lcore(rte_lcore_id());
	static struct sp_resolver r; /* 8 KB, the thread's own */

	sp_resolver_init(&r, node->neigh, rte_get_timer_hz(), rte_get_timer_cycles());
	while (!node->quit) {
		learn(node, &r, st);
		resolve(node, &r);
		sp_channels_deliver(node->channels);
		sp_hslices_watch(node);
		serve_sockets(node, rpc);
	}
}
