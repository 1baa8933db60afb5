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

/* ARP frames and advertisements the LC lcore passed up: learned or ignored, each counted. */
static void
learn(struct sp_node *node, struct sp_resolver *r, struct sp_lcore_stats *st)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int n = rte_ring_dequeue_burst(node->learn_ring, (void **)pkts, BURST, NULL);
	uint64_t now = rte_get_timer_cycles();

	for (unsigned int i = 0; i < n; i++) {
		enum sp_arp_verdict v = SP_ARP_IGNORED;
		struct rte_ether_addr mac;
		struct sp_ip ip;
		uint32_t ip_be;
		bool nd = false;

		if (sp_arp_reply_sender(pkts[i], &ip_be, &mac) == 0) {
			ip = sp_ip_v4(ip_be);
			v = sp_resolver_input(r, pkts[i]->port, &ip, &mac, now);
		} else if (sp_nd_advert_target(pkts[i], &ip, &mac) == 0) {
			nd = true;
			v = sp_resolver_input(r, pkts[i]->port, &ip, &mac, now);
		}
		if (v == SP_ARP_IGNORED) {
			st->reason[nd ? SP_REASON_ND_IGNORED : SP_REASON_ARP_IGNORED]++;
		} else if (nd) {
			st->arp.nd_learned++;
			st->arp.nd_changed += v == SP_ARP_CHANGED;
		} else {
			st->arp.learned++;
			st->arp.changed += v == SP_ARP_CHANGED;
		}
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Next hops the NPEs could not resolve, then the requests due: ARP or a neighbor solicitation. */
static void
resolve(struct sp_node *node, struct sp_resolver *r)
{
	struct sp_resolve_ask asks[BURST];
	struct sp_neigh_want wants[BURST];
	unsigned int n = rte_ring_dequeue_burst_elem(node->resolve_ring, wants, sizeof(wants[0]),
						     BURST, NULL);

	for (unsigned int i = 0; i < n; i++)
		sp_resolver_want(r, wants[i].port, &wants[i].ip);
	n = sp_resolver_due(r, rte_get_timer_cycles(), asks, BURST);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = sp_ip_is_v4(&asks[i].ip)
			? sp_arp_request(node->decap, node->pool, asks[i].port,
					 sp_ip_to_v4(&asks[i].ip))
			: sp_nd_solicit(node->decap, node->pool, asks[i].port, &asks[i].ip);

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
