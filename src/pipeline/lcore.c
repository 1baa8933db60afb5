/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding lcore loop. An lcore may hold the LC role (all ports: rx,
 * decap, demux, tx) and any number of NPEs. NPEs on the LC lcore are called
 * directly (run to completion); the others are fed and drained through
 * their rings.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_prefetch.h>

#include "pipeline.h"

RTE_LOG_REGISTER(sp_pipeline_logtype, slicepath.pipeline, INFO);
#define PIPE_LOG(level, ...) rte_log(RTE_LOG_##level, sp_pipeline_logtype, "pipeline: " __VA_ARGS__)

/*
 * Frames for a port wait here until it takes them, sent first at each
 * turn: a port that is slow to take (a memif peer that reads late) holds
 * back the queue manager, whose queues then absorb the burst under their
 * thresholds, instead of losing frames it already scheduled.
 */
#define TX_HOLD 64

struct tx_port {
	struct rte_mbuf *held[TX_HOLD];
	uint16_t nb_held;
};

struct lcore_ctx {
	struct sp_node *node;
	struct sp_lcore_stats *st;
	bool lc;
	uint16_t nb_npes;
	struct sp_npe *npes[SP_MAX_NPES];
	struct tx_port tx[SP_MAX_PORTS];
	unsigned int rcu_thread;
	uint64_t next_stamp; /* TSC at which the LC stamps its next received frame */
};


/* Hold m for the port; with no room (frames besides the queue manager's), drop it as tx_full. */
static void
tx_one(struct lcore_ctx *c, uint16_t port, struct rte_mbuf *m)
{
	struct tx_port *tx = &c->tx[port];

	if (tx->nb_held < TX_HOLD) {
		tx->held[tx->nb_held++] = m;
		return;
	}
	sp_counter_add(&c->st->port[port].tx_drop, m);
	c->st->reason[SP_REASON_TX_FULL]++;
	rte_pktmbuf_free(m);
}

static void
tx_burst(struct lcore_ctx *c, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		tx_one(c, port, pkts[i]);
}

/*
 * Hand the port what it holds; what it does not take yet stays, in order.
 * The residence time of a stamped frame ends when the port takes it.
 */
static void
tx_flush(struct lcore_ctx *c, uint16_t port)
{
	const struct sp_residence *res = &c->node->residence;
	struct tx_port *tx = &c->tx[port];
	struct sp_counter *counter = &c->st->port[port].tx;
	uint64_t bytes = 0, stamps[TX_HOLD], now;
	uint16_t sent, stamped[TX_HOLD], nb_stamped = 0;

	if (tx->nb_held == 0)
		return;
	/* Lengths and stamps read before: the frames the port takes are no longer ours to read. */
	for (uint16_t i = 0; i < tx->nb_held; i++) {
		bytes += rte_pktmbuf_pkt_len(tx->held[i]);
		if (unlikely(sp_residence_stamped(res, tx->held[i]))) {
			stamps[nb_stamped] = sp_residence_stamp_of(res, tx->held[i]);
			stamped[nb_stamped++] = i;
		}
	}
	sent = rte_eth_tx_burst(c->node->ports[port].port_id, 0, tx->held, tx->nb_held);
	if (nb_stamped > 0) {
		now = rte_rdtsc();
		for (uint16_t j = 0; j < nb_stamped && stamped[j] < sent; j++)
			sp_latency_add(&c->st->residence,
				       (uint64_t)((double)(now - stamps[j]) * res->ns_per_tsc));
	}
	for (uint16_t i = sent; i < tx->nb_held; i++)
		bytes -= rte_pktmbuf_pkt_len(tx->held[i]);
	counter->pkts += sent;
	counter->bytes += bytes;
	tx->nb_held -= sent;
	memmove(tx->held, tx->held + sent, tx->nb_held * sizeof(tx->held[0]));
}

/*
 * How many more frames the port's hold takes (handed to the port first if
 * full), at *at: the queue manager and the rings fill it in place, and
 * hold_filled() counts what they put there.
 */
static uint16_t
hold_room(struct lcore_ctx *c, uint16_t port, struct rte_mbuf ***at)
{
	struct tx_port *tx = &c->tx[port];

	if (tx->nb_held == TX_HOLD)
		tx_flush(c, port);
	*at = &tx->held[tx->nb_held];
	return (uint16_t)(TX_HOLD - tx->nb_held);
}

static void
hold_filled(struct lcore_ctx *c, uint16_t port, uint16_t n)
{
	c->tx[port].nb_held += n;
}

/* SPP's switch from Line Card to NPE: by the slice's NPE. */
static void
demux(struct lcore_ctx *c, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_node *node = c->node;
	struct rte_mbuf *per_npe[SP_MAX_NPES][SP_NPE_ROUND];
	uint16_t cnt[SP_MAX_NPES] = {0};

	/* One NPE on this lcore: every frame is its (a deleted slice's too, as below). */
	if (node->nb_npes == 1 && node->npes[0].on_lc) {
		sp_npe_process(node, &c->node->npes[0], pkts, n, c->st);
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
		if (npe->on_lc) {
			sp_npe_process(node, npe, per_npe[e], cnt[e], c->st);
			continue;
		}
		sent = (uint16_t)rte_ring_enqueue_burst(npe->rx_ring, (void **)per_npe[e], cnt[e],
							NULL);
		for (uint16_t i = sent; i < cnt[e]; i++)
			sp_meta_drop(per_npe[e][i], SP_REASON_RING_FULL);
		sp_retire_burst(node, &per_npe[e][sent], cnt[e] - sent, c->st);
	}
}

/*
 * One burst from port p, decapped, the frames for the slices appended to fwd
 * (room for a burst) and counted in *nb_fwd. Returns how many were received.
 * With *stamp set, the first frame for a slice takes the burst's rx time
 * and *stamp is cleared.
 */
static uint16_t
lc_rx_burst(struct lcore_ctx *c, uint16_t p, struct rte_mbuf **fwd, uint16_t *nb_fwd, bool *stamp)
{
	struct sp_node *node = c->node;
	struct rte_mbuf *pkts[SP_BURST];
	struct sp_decap_out out;
	uint16_t n = rte_eth_rx_burst(node->ports[p].port_id, 0, pkts, SP_BURST);
	unsigned int learned;
	uint64_t rx_tsc = 0;

	*nb_fwd = 0;
	if (n == 0)
		return 0;
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
 * Receive a round: a burst from every port, then more, port by port in turn,
 * from those whose last burst came full, up to SP_NPE_ROUND frames for the
 * slices in all and SP_NPE_ROUND / SP_BURST bursts a port;
 * then one hand-over to the NPEs. Under load the NPEs get batches several
 * bursts deep; idle, a round is a burst a port and nothing waits.
 */
static void
lc_rx(struct lcore_ctx *c)
{
	struct rte_mbuf *round[SP_NPE_ROUND];
	bool full[SP_MAX_PORTS] = {false};
	uint16_t nb_round = 0, f;
	bool more = true, stamp = rte_rdtsc() >= c->next_stamp;

	/* At most a round's worth of bursts from a port, whatever decap drops of them. */
	for (unsigned int pass = 0; more && pass < SP_NPE_ROUND / SP_BURST; pass++) {
		more = false;
		for (uint16_t p = 0; p < c->node->nb_ports; p++) {
			if ((pass > 0 && !full[p]) || nb_round + SP_BURST > SP_NPE_ROUND)
				continue;
			full[p] = lc_rx_burst(c, p, &round[nb_round], &f, &stamp) == SP_BURST;
			nb_round += f;
			more |= full[p];
		}
	}
	if (nb_round > 0)
		demux(c, round, nb_round);
}

/*
 * Frames a port's output takes per turn of the loop, from the queue manager
 * or the NPE's ring: twice what a round may bring in. With exactly a
 * round's worth, input that never pauses (a full round every turn) would
 * keep any backlog at its size for good, every frame then taking the
 * queues' round robin instead of skipping it (docs/qm.md); with twice,
 * a backlog the port can take drains within a few turns.
 */
#define OUTPUT_TURN (2 * SP_NPE_ROUND)

/*
 * Queue manager output of an NPE, into the tx holds (on the LC lcore) or
 * the NPE's tx rings: up to OUTPUT_TURN a port, never more than the hold
 * or ring takes.
 */
static void
npe_output(struct lcore_ctx *c, struct sp_npe *npe)
{
	struct rte_mbuf *pkts[SP_BURST], **out = pkts;
	uint64_t now = rte_rdtsc();

	for (uint16_t p = 0; p < c->node->nb_ports; p++) {
		for (unsigned int done = 0; done < OUTPUT_TURN;) {
			uint16_t max, n;

			if (npe->on_lc)
				max = hold_room(c, p, &out);
			else
				max = (uint16_t)RTE_MIN((unsigned int)SP_BURST,
							rte_ring_free_count(npe->tx_ring[p]));
			n = max == 0 ? 0 : sp_qm_dequeue_burst(npe->qm, p, now, out, max);
			if (n == 0)
				break;
			if (npe->on_lc)
				hold_filled(c, p, n);
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
		sp_npe_process(c->node, npe, pkts, (uint16_t)n, c->st);
}

/* Everything the LC lcore transmits besides its own NPEs' output. */
static void
lc_tx(struct lcore_ctx *c)
{
	struct sp_node *node = c->node;
	struct rte_mbuf *pkts[SP_BURST], **at;
	unsigned int n;

	for (uint16_t e = 0; e < node->nb_npes; e++) {
		if (node->npes[e].on_lc)
			continue;
		for (uint16_t p = 0; p < node->nb_ports; p++) {
			/* What the hold cannot take waits in the ring, then in the NPE's queues. */
			for (unsigned int done = 0; done < OUTPUT_TURN; done += n) {
				uint16_t room = hold_room(c, p, &at);

				n = rte_ring_dequeue_burst(node->npes[e].tx_ring[p], (void **)at, room,
							   NULL);
				if (n == 0)
					break;
				hold_filled(c, p, (uint16_t)n);
			}
		}
	}
	n = rte_ring_dequeue_burst(node->ctrl_tx_ring, (void **)pkts, SP_BURST, NULL);
	for (unsigned int i = 0; i < n; i++)
		tx_one(c, pkts[i]->port, pkts[i]);
	for (uint16_t p = 0; p < node->nb_ports; p++)
		tx_flush(c, p);
}

static void
ctx_init(struct lcore_ctx *c, struct sp_node *node, unsigned int lcore)
{
	memset(c, 0, sizeof(*c));
	c->node = node;
	c->st = sp_stats_lcore(lcore);
	c->lc = lcore == node->lc_lcore;
	c->rcu_thread = sp_node_rcu_thread(node, lcore);
	for (uint16_t e = 0; e < node->nb_npes; e++)
		if (node->npes[e].lcore == lcore)
			c->npes[c->nb_npes++] = &node->npes[e];
}

/* Frames still held when the lcores stop go back to the pool. */
static void
ctx_fini(struct lcore_ctx *c)
{
	for (uint16_t p = 0; p < c->node->nb_ports; p++)
		rte_pktmbuf_free_bulk(c->tx[p].held, c->tx[p].nb_held);
}

int
sp_lcore_main(void *arg)
{
	struct sp_node *node = arg;
	unsigned int lcore = rte_lcore_id();
	struct lcore_ctx c;

	ctx_init(&c, node, lcore);
	PIPE_LOG(INFO, "lcore %u: %s%u NPE(s)\n", lcore, c.lc ? "LC + " : "", c.nb_npes);
	rte_rcu_qsbr_thread_online(node->qsbr, c.rcu_thread);
	while (!node->quit) {
		if (c.lc)
			lc_rx(&c);
		for (uint16_t i = 0; i < c.nb_npes; i++) {
			if (!c.npes[i]->on_lc)
				npe_rx(&c, c.npes[i], c.npes[i]->rx_ring);
			npe_rx(&c, c.npes[i], c.npes[i]->inject_ring);
			npe_output(&c, c.npes[i]);
		}
		if (c.lc)
			lc_tx(&c);
		rte_rcu_qsbr_quiescent(node->qsbr, c.rcu_thread);
	}
	rte_rcu_qsbr_thread_offline(node->qsbr, c.rcu_thread);
	ctx_fini(&c);
	return 0;
}
