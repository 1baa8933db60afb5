/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding lcore loop. An lcore may hold the LC role (all ports: rx,
 * decap, demux, tx) and any number of NPEs. NPEs on the LC lcore are called
 * directly (run to completion); the others are fed and drained through
 * their rings.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_log.h>

#include "lc_int.h"
#include "lcore.h"
#include "../hostslice/hslice.h"
#include "../qm/qm_worker.h"
#include "../common/log.h"

SP_LOG_TYPE("lc")

/*
 * Queue manager output of an NPE, into its lcore's tx buffers (where the lcore
 * transmits on the port itself: tx_own()) or the NPE's tx ring to the LC
 * lcore: up to OUTPUT_TURN a port, never more than the buffer or ring takes.
 */
static void
npe_output(struct lcore_ctx *c, struct sp_npe *npe)
{
	struct rte_mbuf *pkts[SP_BURST], **out = pkts;
	uint64_t now = rte_rdtsc();

	for (uint16_t p = 0; p < c->node->nb_ports; p++) {
		bool own = tx_own(c, p);

		for (unsigned int done = 0; done < OUTPUT_TURN;) {
			uint16_t max, n;

			if (own) {
				max = tx_buffer_room(c, p, &out);
			} else {
				out = pkts;
				max = (uint16_t)RTE_MIN((unsigned int)SP_BURST,
							rte_ring_free_count(npe->tx_ring[p]));
			}
			n = max == 0 ? 0 : sp_qm_dequeue_burst(npe->qm, p, now, out, max);
			if (n == 0)
				break;
			if (own)
				tx_buffer_filled(c, p, n);
			else
				rte_ring_enqueue_burst(npe->tx_ring[p], (void **)pkts, n, NULL);
			done += n;
			if (n < max)
				break;
		}
	}
}

/* Packets for the NPE from a ring: the LC lcore's, or the slow paths' injected ones. */
static void
npe_rx(struct lcore_ctx *c, struct sp_npe *npe, struct rte_ring *r)
{
	struct rte_mbuf *pkts[SP_NPE_ROUND];
	unsigned int n = rte_ring_dequeue_burst(r, (void **)pkts, SP_NPE_ROUND, NULL);

	if (n > 0)
		sp_npe_process(&c->node->fastpath, npe, pkts, (uint16_t)n, c->st);
}

/* What its NPEs' host slices sent from their namespaces, every SP_HOST_POLL_US at most. */
static void
npe_from_slices(struct lcore_ctx *c)
{
	const struct sp_node *node = c->node;

	if (!lc_poll_due(&c->next_slices_poll))
		return;
	for (unsigned int w = 0; w < RTE_DIM(node->host_slice_bits); w++) {
		uint64_t bits = __atomic_load_n(&node->host_slice_bits[w], __ATOMIC_ACQUIRE);

		for (; bits != 0; bits &= bits - 1) {
			unsigned int id = w * 64 + (unsigned int)__builtin_ctzll(bits);
			struct sp_slice *s = __atomic_load_n(&node->slices[id], __ATOMIC_ACQUIRE);

			for (uint16_t i = 0; s != NULL && s->host != NULL && i < c->nb_npes; i++)
				if (c->npes[i]->id == s->npe)
					sp_hslice_output(&node->fastpath, c->npes[i], s, c->st);
		}
	}
}

static void
ctx_init(struct lcore_ctx *c, struct sp_node *node, unsigned int lcore)
{
	int lc_index = sp_node_lc_index(node, lcore);

	memset(c, 0, sizeof(*c));
	c->node = node;
	c->st = sp_stats_lcore(lcore);
	c->lcore = lcore;
	c->is_lc = lc_index >= 0;
	c->lc_index = c->is_lc ? (uint16_t)lc_index : 0;
	c->rcu_thread = sp_node_rcu_thread(node, lcore);
	for (uint16_t p = 0; c->is_lc && p < node->nb_ports; p++) {
		for (uint16_t q = c->lc_index; q < node->ports[p].nb_rxq; q += node->nb_lc)
			c->rxq[c->nb_rxq++] = (struct lc_rxq){.port = p, .queue = q};
		c->reads_host_paths |= node->ports[p].has_host;
	}
	for (uint16_t e = 0; e < node->nb_npes; e++)
		if (node->npes[e].lcore == lcore)
			c->npes[c->nb_npes++] = &node->npes[e];
}

/* Frames still buffered when the lcores stop go back to the pool, those waiting for ARP too. */
static void
ctx_fini(struct lcore_ctx *c)
{
	for (uint16_t p = 0; p < c->node->nb_ports; p++)
		rte_pktmbuf_free_bulk(c->tx[p].frames, c->tx[p].nb_frames);
	for (uint16_t i = 0; i < c->nb_npes; i++)
		sp_npe_hold_free(c->npes[i]);
}

int
sp_lcore_main(void *arg)
{
	struct sp_node *node = arg;
	unsigned int lcore = rte_lcore_id();
	struct lcore_ctx c;

	ctx_init(&c, node, lcore);
	SP_LOG(INFO, "lcore %u: %s%u NPE(s)", lcore, c.is_lc ? "LC + " : "", c.nb_npes);
	rte_rcu_qsbr_thread_online(node->qsbr, c.rcu_thread);
	while (!node->quit) {
		/* Frames waiting for ARP first: those released go before what arrives now. */
		for (uint16_t i = 0; i < c.nb_npes; i++)
			if (unlikely(c.npes[i]->hold.nb_frames > 0))
				sp_npe_hold_service(&node->fastpath, c.npes[i], c.st);
		if (c.is_lc)
			lc_rx(&c);
		if (c.reads_host_paths)
			lc_from_hosts(&c);
		for (uint16_t i = 0; i < c.nb_npes; i++) {
			if (c.npes[i]->rx_ring != NULL)
				npe_rx(&c, c.npes[i], c.npes[i]->rx_ring);
			npe_rx(&c, c.npes[i], c.npes[i]->inject_ring);
			npe_output(&c, c.npes[i]);
		}
		if (c.nb_npes > 0)
			npe_from_slices(&c);
		if (c.is_lc)
			lc_tx(&c);
		else
			lc_tx_flush_all(&c);
		rte_rcu_qsbr_quiescent(node->qsbr, c.rcu_thread);
	}
	rte_rcu_qsbr_thread_offline(node->qsbr, c.rcu_thread);
	ctx_fini(&c);
	return 0;
}
