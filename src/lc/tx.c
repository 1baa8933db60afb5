/* SPDX-License-Identifier: BSD-3-Clause */
/* The transmit side: each port's tx buffer handed to the port (on the lcore's own queue, or the
 * LC lcore's where a port has one), and on the LC lcore the frames of the management thread and
 * of the other lcores' NPEs for the ports of one queue put in the tx buffers. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "lc_int.h"

/*
 * Hand the port what its tx buffer has; what it does not take yet stays, in order.
 * The residence time of a stamped frame ends when the port takes it.
 */
void
lc_tx_flush(struct lcore_ctx *c, uint16_t port)
{
	const struct sp_residence *res = &c->node->residence;
	struct tx_port *tx = &c->tx[port];
	struct sp_counter *counter = &c->st->port[port].tx;
	uint64_t bytes = 0, stamps[TX_BUFFER], now;
	uint16_t sent, stamped[TX_BUFFER], nb_stamped = 0;

	if (tx->nb_frames == 0)
		return;
	/* Lengths and stamps read before: the frames the port takes are no longer ours to read. */
	for (uint16_t i = 0; i < tx->nb_frames; i++) {
		bytes += rte_pktmbuf_pkt_len(tx->frames[i]);
		if (unlikely(sp_residence_stamped(res, tx->frames[i]))) {
			stamps[nb_stamped] = sp_residence_stamp_of(res, tx->frames[i]);
			stamped[nb_stamped++] = i;
		}
	}
	sent = rte_eth_tx_burst(c->node->ports[port].port_id,
				c->node->ports[port].nb_txq > 1 ? (uint16_t)c->rcu_thread : 0,
				tx->frames, tx->nb_frames);
	if (nb_stamped > 0) {
		now = rte_rdtsc();
		for (uint16_t j = 0; j < nb_stamped && stamped[j] < sent; j++)
			sp_latency_add(&c->st->residence,
				       (uint64_t)((double)(now - stamps[j]) * res->ns_per_tsc));
	}
	for (uint16_t i = sent; i < tx->nb_frames; i++)
		bytes -= rte_pktmbuf_pkt_len(tx->frames[i]);
	counter->pkts += sent;
	counter->bytes += bytes;
	tx->nb_frames -= sent;
	memmove(tx->frames, tx->frames + sent, tx->nb_frames * sizeof(tx->frames[0]));
}

/* Everything the LC lcore transmits besides its own NPEs' output. */
void
lc_tx(struct lcore_ctx *c)
{
	struct sp_node *node = c->node;
	struct rte_mbuf *pkts[SP_BURST], **at;
	unsigned int n;

	for (uint16_t e = 0; e < node->nb_npes; e++) {
		for (uint16_t p = 0; p < node->nb_ports; p++) {
			if (node->npes[e].tx_ring[p] == NULL)
				continue; /* an LC lcore's NPE, or its lcore has a queue of its own */
			/* What the buffer cannot take waits in the ring, then in the queues. */
			for (unsigned int done = 0; done < OUTPUT_TURN; done += n) {
				uint16_t room = tx_buffer_room(c, p, &at);

				n = rte_ring_dequeue_burst(node->npes[e].tx_ring[p], (void **)at, room,
							   NULL);
				if (n == 0)
					break;
				tx_buffer_filled(c, p, (uint16_t)n);
			}
		}
	}
	/* The management thread's frames: the first LC lcore's (the ring has one consumer). */
	n = c->lc_index == 0 ? rte_ring_dequeue_burst(node->ctrl_tx_ring, (void **)pkts, SP_BURST,
						      NULL) : 0;
	for (unsigned int i = 0; i < n; i++)
		tx_one(c, pkts[i]->port, pkts[i]);
	lc_tx_flush_all(c);
}

void
lc_tx_flush_all(struct lcore_ctx *c)
{
	for (uint16_t p = 0; p < c->node->nb_ports; p++)
		lc_tx_flush(c, p);
}
