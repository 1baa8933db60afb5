/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queue manager's configuration: schedulers, owners and queue
 * bindings, with the admission rules of qm.h. The fast path is sched.c.
 */
#include "qm.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_string_fns.h>

#include "qm_int.h"
#include "../common/log.h"

SP_LOG_TYPE("qm")

int qm_next_offset = -1;

static int
register_next_field(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "slicepath_qm_next",
		.size = sizeof(struct rte_mbuf *),
		.align = __alignof__(struct rte_mbuf *),
	};
	int off = rte_mbuf_dynfield_register(&desc); /* the same offset every time */

	if (off < 0)
		return -rte_errno;
	qm_next_offset = off;
	return 0;
}

const char *
sp_qm_drop_name(enum sp_qm_drop why)
{
#define SP_QM_DROP_NAME(id, name, what) #name,
	static const char *const names[SP_QM_DROP_MAX] = {SP_QUEUE_DROPS(SP_QM_DROP_NAME)};
#undef SP_QM_DROP_NAME

	return why < SP_QM_DROP_MAX ? names[why] : "?";
}

static void
queue_reset(struct qm_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->next = QM_NONE;
	q->port = QM_UNBOUND;
}

void
sp_qm_free(struct sp_qm *qm)
{
	uint32_t i;

	if (qm == NULL)
		return;
	for (i = 0; qm->queues != NULL && i < qm->max_queues; i++) {
		struct rte_mbuf *m = qm->queues[i].head;

		while (m != NULL) {
			struct rte_mbuf *next = *qm_next(m);

			rte_pktmbuf_free(m);
			m = next;
		}
	}
	for (i = 0; i < qm->nb_ports; i++) {
		struct qm_express *x = &qm->sched[i].express;

		rte_pktmbuf_free_bulk(&x->pkts[x->first], x->count);
	}
	rte_free(qm->queues);
	rte_free(qm->owners);
	rte_free(qm->owner_ports);
	rte_free(qm);
}

struct sp_qm *
sp_qm_create(const struct sp_qm_params *p)
{
	struct sp_qm *qm;
	uint32_t i;
	int rc;

	if (p == NULL || p->nb_ports == 0 || p->max_queues == 0 || p->max_owners == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* An arrival's fields in the first line of a queue (qm_int.h). */
	RTE_BUILD_BUG_ON(offsetof(struct qm_queue, share_bps) != RTE_CACHE_LINE_SIZE);
	rc = register_next_field();
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	qm = rte_zmalloc_socket("sp_qm", sizeof(*qm) + p->nb_ports * sizeof(qm->sched[0]),
				RTE_CACHE_LINE_SIZE, p->socket);
	if (qm == NULL)
		goto nomem;
	strlcpy(qm->name, p->name != NULL ? p->name : "?", sizeof(qm->name));
	qm->socket = p->socket;
	qm->max_queues = p->max_queues;
	qm->nb_ports = p->nb_ports;
	qm->max_owners = p->max_owners;
	qm->tsc_hz = rte_get_tsc_hz();
	qm->flush_req = QM_NONE;
	qm->queues = rte_malloc_socket("sp_qm_queues", (size_t)p->max_queues * sizeof(qm->queues[0]),
				       RTE_CACHE_LINE_SIZE, p->socket);
	qm->owners = rte_zmalloc_socket("sp_qm_owners", p->max_owners * sizeof(qm->owners[0]), 0,
					p->socket);
	qm->owner_ports = rte_zmalloc_socket("sp_qm_owner_ports", (size_t)p->max_owners *
					     p->nb_ports * sizeof(qm->owner_ports[0]), 0, p->socket);
	if (qm->queues == NULL || qm->owners == NULL || qm->owner_ports == NULL)
		goto nomem;
	for (i = 0; i < qm->max_queues; i++)
		queue_reset(&qm->queues[i]);
	for (i = 0; i < qm->max_owners; i++)
		qm->owners[i].ports = &qm->owner_ports[(size_t)i * qm->nb_ports];
	for (i = 0; i < qm->nb_ports; i++) {
		qm->sched[i].head = qm->sched[i].tail = QM_NONE;
		qm->sched[i].min_share = UINT64_MAX;
		rte_seqlock_init(&qm->sched[i].next_lock);
		qm->sched[i].next.overhead = SP_ETHER_OVERHEAD;
		qm->sched[i].rate.overhead = SP_ETHER_OVERHEAD;
	}
	SP_LOG(DEBUG, "%s: created: %u ports, %u queues, %u owners", qm->name, qm->nb_ports,
	       qm->max_queues, qm->max_owners);
	return qm;
nomem:
	sp_qm_free(qm);
	rte_errno = ENOMEM;
	return NULL;
}

int
sp_qm_port_config(struct sp_qm *qm, uint16_t port, uint64_t rate_bps, uint16_t overhead)
{
	struct qm_rate r;
	struct qm_sched *s;

	if (qm == NULL || port >= qm->nb_ports || rate_bps == 0 || rate_bps > SP_MAX_RATE)
		return -EINVAL;
	s = &qm->sched[port];
	if (s->reserved_bps > rate_bps)
		return -ENOSPC;
	/* At least two minimum quanta (each at least a full frame) at low rates. */
	sp_tb_rate_init(&r.tb, rate_bps, 2 * (uint64_t)(QM_MIN_QUANTUM + overhead) * 8, qm->tsc_hz);
	r.overhead = overhead;
	/* The lcore takes it at its next dequeue of the port (sched.c). */
	rte_seqlock_write_lock(&s->next_lock);
	s->next = r;
	rte_seqlock_write_unlock(&s->next_lock);
	return 0;
}

int
sp_qm_owner_quota(struct sp_qm *qm, uint16_t owner, uint32_t max_pkts)
{
	if (qm == NULL || owner >= qm->max_owners)
		return -EINVAL;
	__atomic_store_n(&qm->owners[owner].max_pkts, max_pkts, __ATOMIC_RELAXED);
	return 0;
}

int
sp_qm_owner_reserve(struct sp_qm *qm, uint16_t owner, uint16_t port, uint64_t bps)
{
	struct qm_owner_port *op;
	struct qm_sched *s;

	if (qm == NULL || owner >= qm->max_owners || port >= qm->nb_ports)
		return -EINVAL;
	s = &qm->sched[port];
	op = &qm->owners[owner].ports[port];
	if (s->reserved_bps - op->reserved_bps + bps > s->next.tb.rate_bps)
		return -ENOSPC;
	if (op->shares_bps > bps)
		return -EBUSY;
	s->reserved_bps = s->reserved_bps - op->reserved_bps + bps;
	op->reserved_bps = bps;
	return 0;
}

int
sp_qm_room(const struct sp_qm *qm, uint16_t owner, uint16_t port, struct sp_qm_room *r)
{
	const struct qm_owner_port *op;

	if (qm == NULL || owner >= qm->max_owners || port >= qm->nb_ports || r == NULL)
		return -EINVAL;
	op = &qm->owners[owner].ports[port];
	r->rate_bps = qm->sched[port].next.tb.rate_bps;
	r->overhead = qm->sched[port].next.overhead;
	r->reserved_bps = qm->sched[port].reserved_bps;
	r->owner_bps = op->reserved_bps;
	r->shares_bps = op->shares_bps;
	return 0;
}

/* Take q's share off its owner's account and q off its scheduler's count. */
static void
release(struct sp_qm *qm, struct qm_queue *q)
{
	struct qm_sched *s = &qm->sched[q->port];

	qm->owners[q->owner].ports[q->port].shares_bps -= q->share_bps;
	if (--s->nb_bound == 0)
		__atomic_store_n(&s->min_share, UINT64_MAX, __ATOMIC_RELAXED);
}

int
sp_qm_queue_bind(struct sp_qm *qm, uint32_t queue, const struct sp_qm_queue_conf *c)
{
	struct qm_owner_port *op;
	struct qm_queue *q;
	struct qm_sched *s;
	uint64_t shares;
	bool bound;

	if (qm == NULL || c == NULL || queue >= qm->max_queues || c->port >= qm->nb_ports ||
	    c->owner >= qm->max_owners || c->share_bps == 0)
		return -EINVAL;
	q = &qm->queues[queue];
	bound = q->port != QM_UNBOUND;
	if (bound && q->len_pkts != 0 && (q->port != c->port || q->owner != c->owner))
		return -EBUSY;
	op = &qm->owners[c->owner].ports[c->port];
	shares = op->shares_bps + c->share_bps;
	if (bound && q->port == c->port && q->owner == c->owner)
		shares -= q->share_bps;
	if (shares > op->reserved_bps)
		return -ENOSPC;

	if (bound)
		release(qm, q);
	else
		queue_reset(q);
	s = &qm->sched[c->port];
	/* The minimum first: a quantum read between the stores is never below the minimum. */
	if (c->share_bps < s->min_share)
		__atomic_store_n(&s->min_share, c->share_bps, __ATOMIC_RELEASE);
	s->nb_bound++;
	op->shares_bps += c->share_bps;
	__atomic_store_n(&q->share_bps, c->share_bps, __ATOMIC_RELEASE);
	__atomic_store_n(&q->max_bytes, c->max_bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&q->max_pkts, c->max_pkts, __ATOMIC_RELAXED);
	q->owner = c->owner;
	__atomic_store_n(&q->port, c->port, __ATOMIC_RELEASE);
	return 0;
}

int
sp_qm_queue_flush(struct sp_qm *qm, uint32_t queue)
{
	if (qm == NULL || queue >= qm->max_queues)
		return -EINVAL;
	if (qm->queues[queue].port == QM_UNBOUND)
		return -ENOENT;
	if (__atomic_load_n(&qm->flush_req, __ATOMIC_ACQUIRE) != QM_NONE)
		return -EBUSY;
	if (__atomic_load_n(&qm->queues[queue].len_pkts, __ATOMIC_ACQUIRE) == 0)
		return 0;
	__atomic_store_n(&qm->flush_req, queue, __ATOMIC_RELEASE);
	return 1;
}

int
sp_qm_queue_flush_cancel(struct sp_qm *qm, uint32_t queue)
{
	uint32_t asked = queue;

	if (__atomic_compare_exchange_n(&qm->flush_req, &asked, QM_NONE, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return 0;
	if (asked != QM_FLUSHING)
		return 0;
	/* The lcore is in flush() (sched.c): a walk of one queue, then it says so. */
	while (__atomic_load_n(&qm->flush_req, __ATOMIC_ACQUIRE) == QM_FLUSHING)
		rte_pause();
	return 1;
}

int
sp_qm_queue_unbind(struct sp_qm *qm, uint32_t queue)
{
	struct qm_queue *q;

	if (qm == NULL || queue >= qm->max_queues)
		return -EINVAL;
	q = &qm->queues[queue];
	if (q->port == QM_UNBOUND)
		return -ENOENT;
	if (q->len_pkts != 0)
		return -EBUSY;
	release(qm, q);
	/* The next owner of this queue starts from zero. */
	queue_reset(q);
	return 0;
}

int
sp_qm_queue_conf(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_conf *c)
{
	const struct qm_queue *q;

	if (qm == NULL || queue >= qm->max_queues || c == NULL)
		return -EINVAL;
	q = &qm->queues[queue];
	if (q->port == QM_UNBOUND)
		return -ENOENT;
	*c = (struct sp_qm_queue_conf){
		.port = q->port,
		.owner = q->owner,
		.share_bps = q->share_bps,
		.max_bytes = q->max_bytes,
		.max_pkts = q->max_pkts,
	};
	return 0;
}

int
sp_qm_queue_stats(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_stats *st)
{
	const struct qm_queue *q;

	if (qm == NULL || queue >= qm->max_queues || st == NULL)
		return -EINVAL;
	q = &qm->queues[queue];
	*st = q->st;
	st->len_pkts = q->len_pkts;
	st->len_bytes = q->len_bytes;
	st->enq_pkts += q->express_pkts;
	st->enq_bytes += q->express_bytes;
	st->sent_pkts += q->express_pkts;
	st->sent_bytes += q->express_bytes;
	return 0;
}

int
sp_qm_queue_port(const struct sp_qm *qm, uint32_t queue)
{
	if (qm == NULL || queue >= qm->max_queues)
		return -EINVAL;
	if (qm->queues[queue].port == QM_UNBOUND)
		return -ENOENT;
	return qm->queues[queue].port;
}
