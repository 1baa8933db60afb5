/* SPDX-License-Identifier: BSD-3-Clause */
/* The queue manager's insides, shared by configuration (qm.c) and the fast path (sched.c). */
#ifndef SP_QM_INT_H
#define SP_QM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_seqlock.h>

#include "../common/tbucket.h"
#include "qm.h"

#define QM_NONE UINT32_MAX   /* end of an active list */
/* flush_req while the lcore empties the queue asked: no longer to be withdrawn. */
#define QM_FLUSHING (UINT32_MAX - 1)
#define QM_UNBOUND UINT16_MAX
/*
 * The quantum of the smallest share bound to a scheduler, in wire bytes;
 * larger shares get proportionally more. At least a full frame, so that
 * every visit of a backlogged queue sends at least one packet (O(1) per
 * packet) unless the packet is longer.
 */
#define QM_MIN_QUANTUM 2048u

struct qm_queue {
	/*
	 * First line: what an arrival reads and writes (take(): binding,
	 * thresholds, length, express counts) and the round robin's links, so
	 * that an arrival costs one line of a queue.
	 */
	uint16_t port; /* QM_UNBOUND when not bound */
	uint16_t owner;
	uint32_t max_bytes, max_pkts;
	uint32_t len_pkts, len_bytes; /* now waiting */
	uint32_t next;    /* the next backlogged queue of its scheduler */
	/* Express frames (sched.c), enqueued and sent at once: one count for
	 * both, added to st's enq_* and sent_* when they are read (qm.c). */
	uint64_t express_pkts, express_bytes;
	/* A FIFO of mbufs linked through their qm_next dynamic field. */
	struct rte_mbuf *head, *tail;
	uint64_t deficit; /* wire bytes it may still send this round */
	/* Read once a visit (its quantum) and by readers. */
	uint64_t share_bps;
	struct sp_qm_queue_stats st; /* its len_* unused: the length is len_* above */
} __rte_cache_aligned;

/* A scheduler's rate, as its token bucket uses it, and the frames' wire overhead. */
struct qm_rate {
	struct sp_tb_rate tb;
	uint16_t overhead;
};

/*
 * Frames that skipped their queues (sched.c), oldest first at pkts[first]:
 * taken only while no queue of the scheduler is backlogged and the bucket
 * holds their tokens, so DRR would send them now too. The array fills up to
 * its end before it is emptied and starts over.
 */
#define QM_EXPRESS 256

struct qm_express {
	uint16_t first, count;
	/*
	 * Tokens as running sums since the array last started over, so that a
	 * dequeue finds what its frames take in one subtraction: taken by all
	 * frames that came, spent by those sent, and upto[i] by frame i and
	 * all before it.
	 */
	uint64_t taken, spent;
	struct rte_mbuf *pkts[QM_EXPRESS];
	uint64_t upto[QM_EXPRESS];
};

struct qm_sched {
	/*
	 * The rate in force, the lcore's copy of `next`, taken at its first
	 * dequeue after a change (sp_qm_port_config runs on another thread).
	 */
	struct qm_rate rate;
	uint32_t rate_sn; /* next_lock's sequence number it was copied at */
	rte_seqlock_t next_lock;
	struct qm_rate next;
	bool credited; /* the head queue has had its quantum for this visit */
	/* Token bucket (common/tbucket.h). */
	uint64_t tokens, last;
	/* Backlogged queues, in round robin order. */
	uint32_t head, tail;
	/*
	 * The smallest share bound here since the scheduler last had no
	 * queue: it has the minimum quantum, so quanta keep their ratios.
	 */
	uint64_t min_share;
	uint32_t nb_bound;
	uint64_t reserved_bps; /* sum of the owners' reservations */
	struct qm_express express;
};

struct qm_owner_port {
	uint64_t reserved_bps;
	uint64_t shares_bps;
};

struct qm_owner {
	uint32_t max_pkts, used_pkts;
	struct qm_owner_port *ports; /* by port */
};

struct sp_qm {
	char name[32]; /* for log messages */
	int socket;
	uint32_t max_queues;
	uint16_t nb_ports;
	uint16_t max_owners;
	struct qm_queue *queues;
	struct qm_owner *owners;
	struct qm_owner_port *owner_ports; /* max_owners * nb_ports */
	uint64_t tsc_hz;
	/* A queue the lcore is to empty at its next dequeue (sp_qm_queue_flush), or QM_NONE. */
	uint32_t flush_req;
	struct qm_sched sched[];
};

/* The mbuf dynamic field that links a queue's packets (registered by sp_qm_create). */
extern int qm_next_offset;

static inline struct rte_mbuf **
qm_next(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, qm_next_offset, struct rte_mbuf **);
}

/* What a frame of len bytes takes of the wire, in bytes. */
static inline uint32_t
qm_wire_bytes(const struct qm_sched *s, uint32_t len)
{
	return sp_wire_bytes(len, s->rate.overhead);
}

#endif
