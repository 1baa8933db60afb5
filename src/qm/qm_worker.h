/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue manager of one NPE, its lcore's side (qm.h: the configuring
 * thread's): packets into their queues, and each port's share out of them.
 */
#ifndef SP_QM_WORKER_H
#define SP_QM_WORKER_H

#include <stdint.h>

#include <rte_mbuf.h>

struct sp_qm;

/*
 * Enqueue packets by sp_meta(m)->queue (all packets must be SP_FORWARD).
 * While none of a scheduler's queues is backlogged, its arrivals skip their
 * queues as far as its tokens go (express frames, docs/qm.md).
 * Packets not taken (unbound queue, a threshold or quota reached) are
 * marked SP_DROP with SP_REASON_QUEUE_FULL and moved to pkts[0..ret), left
 * to the caller to count and free; the packets taken are in pkts[ret..n),
 * both in arrival order (still readable by the caller until it next
 * dequeues). Returns how many were not taken.
 */
uint16_t sp_qm_enqueue_burst(struct sp_qm *qm, struct rte_mbuf **pkts, uint16_t n);

/*
 * Up to max packets a port's scheduler sends by now (TSC cycles, which
 * must not go backwards for a port), in scheduling order: express frames
 * first, in arrival order, then the queues' by round.
 */
uint16_t sp_qm_dequeue_burst(struct sp_qm *qm, uint16_t port, uint64_t now,
			     struct rte_mbuf **pkts, uint16_t max);

#endif
