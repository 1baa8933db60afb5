/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue manager of one NPE: per output port a scheduler, and queues bound
 * to those schedulers. Queues are physical ids (0..max_queues-1); the
 * framework maps slice-relative ids to them. Everything here runs on the
 * NPE's lcore only (enqueue and dequeue) or on the management thread while
 * the queue is unbound; no locks.
 *
 * This implementation is the foundation's: one FIFO per output port with a
 * byte threshold, and each bound queue's own byte threshold and counters.
 * The queue-manager issue replaces it with rate-limited WDRR behind the
 * same interface.
 */
#ifndef SP_QM_H
#define SP_QM_H

#include <stdint.h>

#include <rte_mbuf.h>

struct sp_qm;

struct sp_qm_params {
	const char *name;
	uint16_t nb_ports;
	uint32_t max_queues;
	int socket;
};

struct sp_qm_queue_stats {
	uint64_t enq_pkts, enq_bytes;   /* accepted */
	uint64_t sent_pkts, sent_bytes; /* dequeued for transmission */
	uint64_t drop_pkts, drop_bytes; /* refused: over threshold */
	uint32_t len_pkts, len_bytes;   /* now waiting */
};

/* NULL with rte_errno set on failure. */
struct sp_qm *sp_qm_create(const struct sp_qm_params *p);
void sp_qm_free(struct sp_qm *qm);

/* Output port scheduler: rate (bits/s, 0 = line rate) and total byte limit. */
int sp_qm_port_config(struct sp_qm *qm, uint16_t port, uint64_t rate_bps, uint32_t limit_bytes);

/* Bind a queue to a port with a byte threshold and share (weight > 0).
 * -EINVAL bad id/port/share, -EBUSY queue bound and not empty. */
int sp_qm_queue_bind(struct sp_qm *qm, uint32_t queue, uint16_t port, uint32_t threshold_bytes,
		     uint32_t share);
int sp_qm_queue_unbind(struct sp_qm *qm, uint32_t queue);
int sp_qm_queue_stats(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_stats *st);
/* The port a queue is bound to, or -ENOENT. */
int sp_qm_queue_port(const struct sp_qm *qm, uint32_t queue);

/*
 * Enqueue packets by sp_meta(m)->queue (all packets must be SP_FORWARD).
 * Packets not taken (unbound queue, over a threshold) are marked SP_DROP
 * with SP_REASON_QUEUE_FULL and moved to pkts[0..ret), left to the caller
 * to count and free; the packets taken are in pkts[ret..n), both in arrival
 * order (still readable by the caller until it next dequeues). Returns how
 * many were not taken.
 */
uint16_t sp_qm_enqueue_burst(struct sp_qm *qm, struct rte_mbuf **pkts, uint16_t n);

/* Up to max packets due on a port, in scheduling order. */
uint16_t sp_qm_dequeue_burst(struct sp_qm *qm, uint16_t port, struct rte_mbuf **pkts,
			     uint16_t max);

#endif
