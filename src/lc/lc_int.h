/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to src/lc: a forwarding lcore's context, shared by its receive
 * side (rx.c: rx, decap, demux to the NPEs), its transmit side (tx.c: the
 * ports' tx buffers) and its loop (lcore.c). The tx buffer's per-packet steps
 * are inline: the queue manager and the rings fill it in place.
 */
#ifndef SP_LC_INT_H
#define SP_LC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "node_state.h"
#include "../npe/npe.h"
#include "../stats/stats.h"

/*
 * Frames for a port wait in its tx buffer until it takes them, sent first
 * at each turn: a port that is slow to take (a memif peer that reads late)
 * holds back the queue manager, whose queues then absorb the burst under
 * their thresholds, instead of losing frames it already scheduled.
 */
#define TX_BUFFER 64

/*
 * How often a forwarding lcore reads the Linux interfaces it serves (the
 * hosts', host slices'): a TAP's receive is a system call, too dear for
 * every turn of the loop; what the host or a host slice sends waits that long.
 */
#define SP_HOST_POLL_US 20

/* Whether such a read is due at the TSC now: true sets the next one. */
static inline bool
lc_poll_due(uint64_t *next)
{
	uint64_t now = rte_rdtsc();

	if (now < *next)
		return false;
	*next = now + rte_get_tsc_hz() / (1000000 / SP_HOST_POLL_US);
	return true;
}

/* A port's tx buffer, on one lcore: its frames, oldest first. */
struct tx_port {
	struct rte_mbuf *frames[TX_BUFFER];
	uint16_t nb_frames;
};

/* An rx queue an LC lcore polls, and whether its last burst came full. */
struct lc_rxq {
	uint16_t port, queue;
	bool full;
};

/* The most an LC lcore polls: every queue of every port (one LC lcore). */
#define LC_MAX_RXQ (SP_MAX_PORTS * SP_MAX_PORT_RXQ)

struct lcore_ctx {
	struct sp_node *node;
	struct sp_lcore_stats *st;
	bool is_lc;        /* an LC lcore: it receives, decaps, demuxes (rx.c) and runs lc_tx() */
	uint16_t lc_index; /* an LC lcore's k: it polls queues k, k + LC lcores, ... of each port */
	uint16_t nb_rxq;   /* those queues, in rxq */
	uint16_t rxq_first; /* where its next round starts: one further each round */
	bool reads_host_paths; /* an LC lcore of a node with host paths: reads their interfaces */
	unsigned int lcore;
	uint16_t nb_npes;
	struct sp_npe *npes[SP_MAX_NPES];
	struct tx_port tx[SP_MAX_PORTS];
	unsigned int rcu_thread; /* also its tx queue on a port of one queue a lcore */
	uint64_t next_stamp; /* TSC at which the LC stamps its next received frame */
	uint64_t next_host_poll; /* TSC at which the LC next reads the hosts' interfaces */
	uint64_t next_slices_poll; /* TSC at which its NPEs next read their host slices' */
	struct lc_rxq rxq[LC_MAX_RXQ];
};


/*
 * Frames a port's output takes per turn of the loop, from the queue manager
 * or the NPE's ring: twice what a round may bring in. With exactly a
 * round's worth, input that never pauses (a full round every turn) would
 * keep any backlog at its size for good, every frame then taking the
 * queues' round robin instead of skipping it (docs/qm.md); with twice,
 * a backlog the port can take drains within a few turns.
 */
#define OUTPUT_TURN (2 * SP_NPE_ROUND)

/* Receive a round from the ports and hand it to the NPEs (rx.c). */
void lc_rx(struct lcore_ctx *c);
/* Send what the ports' host paths' interfaces sent out of their ports (rx.c). */
void lc_from_hosts(struct lcore_ctx *c);
/* Everything the LC lcore transmits besides its own NPEs' output, then every tx buffer (tx.c). */
void lc_tx(struct lcore_ctx *c);
/* Hand the port what its tx buffer has; what it does not take yet stays, in order (tx.c). */
void lc_tx_flush(struct lcore_ctx *c, uint16_t port);
/* lc_tx_flush() for every port. */
void lc_tx_flush_all(struct lcore_ctx *c);

/* Does this lcore transmit on the port itself: the LC lcore, or any lcore where each has a queue? */
static inline bool
tx_own(const struct lcore_ctx *c, uint16_t port)
{
	return c->is_lc || c->node->ports[port].nb_txq > 1;
}

/* Buffer m for the port; with no room (frames besides the queue manager's), drop it as tx_full. */
static inline void
tx_one(struct lcore_ctx *c, uint16_t port, struct rte_mbuf *m)
{
	struct tx_port *tx = &c->tx[port];

	if (tx->nb_frames < TX_BUFFER) {
		tx->frames[tx->nb_frames++] = m;
		return;
	}
	sp_counter_add(&c->st->port[port].tx_drop, m);
	c->st->reason[SP_REASON_TX_FULL]++;
	rte_pktmbuf_free(m);
}

static inline void
tx_burst(struct lcore_ctx *c, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		tx_one(c, port, pkts[i]);
}

/*
 * How many more frames the port's tx buffer takes (handed to the port first if
 * full), at *at: the queue manager and the rings fill it in place, and
 * tx_buffer_filled() counts what they put there.
 */
static inline uint16_t
tx_buffer_room(struct lcore_ctx *c, uint16_t port, struct rte_mbuf ***at)
{
	struct tx_port *tx = &c->tx[port];

	if (tx->nb_frames == TX_BUFFER)
		lc_tx_flush(c, port);
	*at = &tx->frames[tx->nb_frames];
	return (uint16_t)(TX_BUFFER - tx->nb_frames);
}

static inline void
tx_buffer_filled(struct lcore_ctx *c, uint16_t port, uint16_t n)
{
	c->tx[port].nb_frames += n;
}

#endif
