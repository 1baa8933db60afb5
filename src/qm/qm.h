/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue manager of one NPE (docs/qm.md): per output port a scheduler that
 * sends at a configured rate (a token bucket that counts each frame as it
 * takes the wire: padding to the Ethernet minimum plus a per-port overhead
 * for preamble, inter-frame gap and FCS), by weighted deficit round robin
 * over its backlogged queues. Queues are physical ids 0..max_queues-1 (the
 * framework maps slice-relative ids to them), each bound to one scheduler
 * with a share (bits/s), byte and packet thresholds, and an owner (a
 * slice) whose reservation on the port caps the sum of its shares there
 * and whose buffer quota caps the packets all its queues hold.
 *
 * Enqueue and dequeue run on the NPE's lcore only. Configuration runs on
 * one other thread; what the fast path reads of it is written with single
 * atomic stores (a scheduler's rate through a seqlock), a queue holding
 * packets keeps its port, and only the lcore touches the packet lists.
 *
 * This is that other thread's side: the queue manager made, configured,
 * read and freed. What the NPE's lcore calls per burst is in qm_worker.h.
 */
#ifndef SP_QM_H
#define SP_QM_H

#include <stdint.h>

#include <slicepath/counters.h>
#include <slicepath/proto.h>

struct sp_qm;

struct sp_qm_params {
	const char *name;
	uint16_t nb_ports;
	uint32_t max_queues;
	uint16_t max_owners; /* owners are 0..max_owners-1 */
	int socket;
};

/* Why a queue refused a packet: slicepath/counters.h's list. */
#define SP_QM_DROP_ID(id, name, what) SP_QM_DROP_##id,
enum sp_qm_drop { SP_QUEUE_DROPS(SP_QM_DROP_ID) SP_QM_DROP_MAX };
#undef SP_QM_DROP_ID

/* A stable name for counters and telemetry: "threshold_bytes", ... */
const char *sp_qm_drop_name(enum sp_qm_drop why);

/* The counters of slicepath/counters.h's queue lists, as name_pkts and name_bytes. */
#define SP_QM_COUNTER(name, what) uint64_t name##_pkts, name##_bytes;
#define SP_QM_LENGTH(name, what) uint32_t name##_pkts, name##_bytes;
struct sp_qm_queue_stats {
	SP_QUEUE_COUNTERS(SP_QM_COUNTER)
	uint64_t drop_pkts[SP_QM_DROP_MAX], drop_bytes[SP_QM_DROP_MAX];
	SP_QUEUE_LENGTHS(SP_QM_LENGTH)
};
#undef SP_QM_COUNTER
#undef SP_QM_LENGTH

/* How a queue is bound. */
struct sp_qm_queue_conf {
	uint16_t port;
	uint16_t owner;
	uint64_t share_bps;   /* > 0: its weight, and what it holds of the owner's reservation */
	uint32_t max_bytes;   /* threshold: an arrival that would exceed it is dropped */
	uint32_t max_pkts;    /* likewise, in packets */
};

/* NULL with rte_errno set on failure. */
struct sp_qm *sp_qm_create(const struct sp_qm_params *p);
void sp_qm_free(struct sp_qm *qm);

/*
 * A port's scheduler: rate in bits/s (1 to SP_MAX_RATE) and the bytes each frame adds
 * on the wire. -EINVAL bad port or rate; -ENOSPC the owners' reservations
 * there exceed the new rate. While the lcore dequeues, the change holds from
 * its next dequeue of the port (published through a seqlock).
 */
int sp_qm_port_config(struct sp_qm *qm, uint16_t port, uint64_t rate_bps, uint16_t overhead);

/* The owner's buffer quota in packets (0 refuses every packet). -EINVAL bad owner. */
int sp_qm_owner_quota(struct sp_qm *qm, uint16_t owner, uint32_t max_pkts);
/*
 * The owner's reservation on a port in bits/s. -EINVAL bad owner or port;
 * -ENOSPC the owners' reservations there would exceed the scheduler's
 * rate; -EBUSY the owner's shares there exceed the new reservation.
 */
int sp_qm_owner_reserve(struct sp_qm *qm, uint16_t owner, uint16_t port, uint64_t bps);

/* What an owner has on a port, for the messages of those who configure it. */
struct sp_qm_room {
	uint64_t rate_bps;     /* the port scheduler's rate (as configured) */
	uint16_t overhead;     /* and the bytes it counts per frame beyond the frame */
	uint64_t reserved_bps; /* sum of every owner's reservation there */
	uint64_t owner_bps;    /* this owner's reservation there */
	uint64_t shares_bps;   /* sum of this owner's queue shares there */
};
int sp_qm_room(const struct sp_qm *qm, uint16_t owner, uint16_t port, struct sp_qm_room *r);

/*
 * Bind a queue, or change a bound one. -EINVAL bad id, port, owner or a
 * share of 0; -EBUSY it holds packets and the port or owner would change;
 * -ENOSPC the owner's shares on the port would exceed its reservation.
 * Counters start from zero when an unbound queue is bound.
 */
int sp_qm_queue_bind(struct sp_qm *qm, uint32_t queue, const struct sp_qm_queue_conf *c);
/*
 * Ask the lcore to drop what a bound queue holds (counted as
 * SP_QM_DROP_FLUSH) at its next dequeue of any port, so that it can be
 * unbound: 0 it is empty, 1 asked (poll its len_pkts), -EBUSY another
 * flush is under way, -ENOENT not bound, -EINVAL bad id. Nothing must
 * enqueue to it meanwhile.
 */
int sp_qm_queue_flush(struct sp_qm *qm, uint32_t queue);
/*
 * Withdraw a flush of queue the lcore has not begun, so that a refused
 * unbind loses nothing: 0 withdrawn (the queue keeps its packets, sent as
 * before) or none asked for it; 1 the lcore had begun it, and it is done
 * when this returns (the queue is empty).
 */
int sp_qm_queue_flush_cancel(struct sp_qm *qm, uint32_t queue);
/* How a queue is bound: 0, -EINVAL bad id, -ENOENT not bound. */
int sp_qm_queue_conf(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_conf *c);
/* -EINVAL bad id, -ENOENT not bound, -EBUSY holds packets. */
int sp_qm_queue_unbind(struct sp_qm *qm, uint32_t queue);
int sp_qm_queue_stats(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_stats *st);
/* The port a queue is bound to, or -ENOENT. */
int sp_qm_queue_port(const struct sp_qm *qm, uint32_t queue);

#endif
