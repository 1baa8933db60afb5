/* SPDX-License-Identifier: BSD-3-Clause */
/* The LC's receive side: a round of bursts from the ports, decapped, handed to the NPEs. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "lc_int.h"
#include "../decap/decap_worker.h"
#include "../fastpath/retire.h"

/* SPP's switch from Line Card to NPE: by the slice's NPE. */
static void
demux(struct lcore_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_node *node = c->node;
	struct rte_mbuf *per_npe[SP_MAX_NPES][SP_NPE_ROUND];
	uint16_t cnt[SP_MAX_NPES] = {0};

	/* One NPE, on this lcore: every frame is its (a deleted slice's too, as below). */
	if (node->nb_npes == 1 && node->npes[0].lcore == c->lcore) {
		sp_npe_process(&node->fastpath, &c->node->npes[0], pkts, n, c->st);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		const struct sp_slice *s = node->slices[sp_meta(pkts[i])->slice];
		/* A slice deleted meanwhile: its NPE drops it, counted. */
		uint16_t npe = s != NULL ? s->npe : 0;

		per_npe[npe][cnt[npe]++] = pkts[i];
	}
	for (uint16_t e = 0; e < node->nb_npes; e++) {
		struct sp_npe *npe = &c->node->npes[e];
		uint16_t sent;

		if (cnt[e] == 0)
			continue;
		if (npe->lcore == c->lcore) {
			sp_npe_process(&node->fastpath, npe, per_npe[e], cnt[e], c->st);
			continue;
		}
		sent = (uint16_t)rte_ring_enqueue_burst(npe->rx_ring, (void **)per_npe[e], cnt[e],
							NULL);
		c->st->work.crossed_pkts += sent;
		for (uint16_t i = sent; i < cnt[e]; i++)
			sp_meta_drop(per_npe[e][i], SP_REASON_RING_FULL);
		sp_retire_burst(&node->fastpath, &per_npe[e][sent], cnt[e] - sent, c->st);
	}
}

/* Frames for the host's interface of port p, on this LC lcore's queue; what it refuses is dropped. */
static void
to_host(struct lcore_ctx *c, uint16_t p, struct rte_mbuf **pkts, uint16_t n)
{
	struct sp_counter *host = &c->st->port[p].to_host;
	uint16_t sent = rte_eth_tx_burst(c->node->ports[p].host_pid, c->lc_index, pkts, n);

	for (uint16_t i = 0; i < sent; i++)
		sp_counter_add(host, pkts[i]);
	c->st->reason[SP_REASON_HOST_FULL] += n - sent;
	rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
}

/* What the hosts' interfaces send, out of their ports, every SP_HOST_POLL_US at most. */
void
lc_from_hosts(struct lcore_ctx *c)
{
	const struct sp_node *node = c->node;

	if (!lc_poll_due(&c->next_host_poll))
		return;
	for (uint16_t p = 0; p < node->nb_ports; p++) {
		struct rte_mbuf *pkts[SP_BURST];
		uint16_t n;

		if (!node->ports[p].has_host)
			continue;
		n = rte_eth_rx_burst(node->ports[p].host_pid, c->lc_index, pkts, SP_BURST);
		for (uint16_t i = 0; i < n; i++)
			sp_counter_add(&c->st->port[p].from_host, pkts[i]);
		tx_burst(c, p, pkts, n);
	}
}

/*
 * One burst from rx queue q of port p, decapped, the frames for the slices
 * appended to fwd (room for a burst) and counted in *nb_fwd. Returns how
 * many were received. With *stamp set, the first frame for a slice takes
 * the burst's rx time and *stamp is cleared.
 */
static uint16_t
lc_rx_burst(struct lcore_ctx *c, uint16_t p, uint16_t q, struct rte_mbuf **fwd, uint16_t *nb_fwd,
	    bool *stamp)
{
	struct sp_node *node = c->node;
	struct rte_mbuf *pkts[SP_BURST];
	struct sp_decap_out out;
	uint16_t n = rte_eth_rx_burst(node->ports[p].port_id, q, pkts, SP_BURST);
	unsigned int learned;
	uint64_t rx_tsc = 0;

	*nb_fwd = 0;
	if (n == 0)
		return 0;
	c->st->work.rx_pkts += n;
	if (*stamp)
		rx_tsc = rte_rdtsc();
	/* Decap touches each frame's headers and metadata first: start
	 * those loads for the whole burst before it waits on one. */
	for (uint16_t i = 0; i < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
		rte_prefetch0(rte_mbuf_to_priv(pkts[i]));
	}
	sp_decap_burst(node->decap, p, pkts, n, &out, c->st);
	tx_burst(c, p, out.reply, out.nb_reply);
	if (out.nb_host > 0)
		to_host(c, p, out.host, out.nb_host);
	learned = rte_ring_enqueue_burst(node->learn_ring, (void **)out.learn, out.nb_learn, NULL);
	/* The management thread is behind; a later reply teaches the same. */
	rte_pktmbuf_free_bulk(&out.learn[learned], out.nb_learn - learned);
	memcpy(fwd, out.fwd, out.nb_fwd * sizeof(fwd[0]));
	*nb_fwd = out.nb_fwd;
	if (*stamp && out.nb_fwd > 0) {
		sp_residence_stamp(&node->residence, fwd[0], rx_tsc);
		c->next_stamp = rx_tsc + node->residence.interval;
		*stamp = false;
	}
	return n;
}

/*
 * Receive a round: a burst from every queue this lcore polls, then more,
 * queue by queue in turn, from those whose last burst came full, up to
 * SP_NPE_ROUND frames for the slices in all and SP_NPE_ROUND / SP_BURST
 * bursts a queue; then one hand-over to the NPEs. Under load the NPEs get
 * batches several bursts deep; idle, a round is a burst a queue and nothing
 * waits. Each round starts one queue further than the last: with more
 * queues than a round holds bursts, none is left out for good.
 */
void
lc_rx(struct lcore_ctx *c)
{
	struct rte_mbuf *round[SP_NPE_ROUND];
	uint16_t nb_round = 0, f, first = c->rxq_first;
	bool more = true, stamp = rte_rdtsc() >= c->next_stamp;

	/* At most a round's worth of bursts from a queue, whatever decap drops of them. */
	for (unsigned int pass = 0; more && pass < SP_NPE_ROUND / SP_BURST; pass++) {
		more = false;
		for (uint16_t i = 0; i < c->nb_rxq && nb_round + SP_BURST <= SP_NPE_ROUND; i++) {
			uint16_t at = first + i < c->nb_rxq ? first + i : first + i - c->nb_rxq;
			struct lc_rxq *q = &c->rxq[at];

			if (pass > 0 && !q->full)
				continue;
			q->full = lc_rx_burst(c, q->port, q->queue, &round[nb_round], &f, &stamp) ==
				  SP_BURST;
			nb_round += f;
			more |= q->full;
		}
	}
	c->rxq_first = first + 1 < c->nb_rxq ? first + 1 : 0;
	if (nb_round > 0)
		demux(c, round, nb_round);
}
