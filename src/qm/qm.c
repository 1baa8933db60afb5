/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The foundation queue manager: one FIFO per output port, a circular array
 * of mbuf pointers sized once off the fast path. Each bound queue only
 * keeps its threshold, port and counters, so max_queues can be large.
 */
#include "qm.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include <slicepath/codeopt.h>

RTE_LOG_REGISTER(sp_qm_logtype, slicepath.qm, INFO);

#define LOG(level, qm, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, sp_qm_logtype, "qm %s: " fmt "\n", (qm)->name, ##__VA_ARGS__)

#define DEFAULT_LIMIT_BYTES (1u << 20)
/* A FIFO holds limit / MIN_FRAME_BYTES packets, rounded up to a power of two. */
#define MIN_FRAME_BYTES 64
#define UNBOUND UINT16_MAX

struct fifo {
	struct rte_mbuf **ring;
	uint32_t mask;       /* slots - 1 */
	uint32_t head, tail; /* free-running indexes: tail - head packets waiting */
	uint32_t bytes;      /* waiting */
	uint32_t limit;      /* bytes */
};

struct queue {
	struct sp_qm_queue_stats st;
	uint32_t threshold; /* bytes */
	uint16_t port;      /* UNBOUND when not bound */
};

struct sp_qm {
	char name[32]; /* for log messages */
	int socket;
	uint32_t max_queues;
	struct queue *queues;
	uint16_t nb_ports;
	struct fifo ports[];
};

static inline uint32_t
fifo_count(const struct fifo *f)
{
	return f->tail - f->head;
}

/* Give an empty FIFO a ring for limit bytes. */
static int
fifo_size(struct fifo *f, uint32_t limit, int socket)
{
	uint32_t slots = rte_align32pow2(RTE_MAX(limit / MIN_FRAME_BYTES, 1u));
	struct rte_mbuf **ring;

	ring = rte_malloc_socket("sp_qm_fifo", slots * sizeof(*ring), RTE_CACHE_LINE_SIZE, socket);
	if (ring == NULL)
		return -ENOMEM;
	rte_free(f->ring);
	f->ring = ring;
	f->mask = slots - 1;
	f->limit = limit;
	return 0;
}

static void
queue_reset(struct queue *q)
{
	memset(&q->st, 0, sizeof(q->st));
	q->threshold = 0;
	q->port = UNBOUND;
}

void
sp_qm_free(struct sp_qm *qm)
{
	struct fifo *f;
	uint16_t port;

	if (qm == NULL)
		return;
	for (port = 0; port < qm->nb_ports; port++) {
		f = &qm->ports[port];
		while (fifo_count(f) != 0)
			rte_pktmbuf_free(f->ring[f->head++ & f->mask]);
		rte_free(f->ring);
	}
	rte_free(qm->queues);
	rte_free(qm);
}

struct sp_qm *
sp_qm_create(const struct sp_qm_params *p)
{
	struct sp_qm *qm;
	uint32_t q;
	uint16_t port;

	if (p == NULL || p->nb_ports == 0 || p->max_queues == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	qm = rte_zmalloc_socket("sp_qm", sizeof(*qm) + p->nb_ports * sizeof(qm->ports[0]),
				RTE_CACHE_LINE_SIZE, p->socket);
	if (qm == NULL)
		goto nomem;
	strlcpy(qm->name, p->name != NULL ? p->name : "?", sizeof(qm->name));
	qm->socket = p->socket;
	qm->max_queues = p->max_queues;
	qm->nb_ports = p->nb_ports;
	qm->queues = rte_malloc_socket("sp_qm_queues",
				       (size_t)p->max_queues * sizeof(qm->queues[0]),
				       RTE_CACHE_LINE_SIZE, p->socket);
	if (qm->queues == NULL)
		goto nomem;
	for (q = 0; q < qm->max_queues; q++)
		queue_reset(&qm->queues[q]);
	for (port = 0; port < qm->nb_ports; port++)
		if (fifo_size(&qm->ports[port], DEFAULT_LIMIT_BYTES, qm->socket) != 0)
			goto nomem;
	LOG(DEBUG, qm, "created: %u ports, %u queues", qm->nb_ports, qm->max_queues);
	return qm;
nomem:
	sp_qm_free(qm);
	rte_errno = ENOMEM;
	return NULL;
}

/* A FIFO sends at line rate: rate_bps waits for the WDRR scheduler. */
int
sp_qm_port_config(struct sp_qm *qm, uint16_t port, uint64_t rate_bps __rte_unused,
		  uint32_t limit_bytes)
{
	struct fifo *f;
	int rc;

	if (qm == NULL || port >= qm->nb_ports)
		return -EINVAL;
	f = &qm->ports[port];
	/* Resizing would have to move waiting packets under the NPE's feet. */
	if (fifo_count(f) != 0)
		return -EBUSY;
	rc = fifo_size(f, limit_bytes != 0 ? limit_bytes : DEFAULT_LIMIT_BYTES, qm->socket);
	if (rc != 0)
		LOG(ERR, qm, "no memory for port %u's FIFO of %u bytes", port, limit_bytes);
	return rc;
}

int
sp_qm_queue_bind(struct sp_qm *qm, uint32_t queue, uint16_t port, uint32_t threshold_bytes,
		 uint32_t share)
{
	struct queue *q;

	/* share is the WDRR weight; a FIFO only checks it is valid. */
	if (qm == NULL || queue >= qm->max_queues || port >= qm->nb_ports || share == 0)
		return -EINVAL;
	q = &qm->queues[queue];
	if (q->st.len_pkts != 0)
		return -EBUSY;
	q->port = port;
	q->threshold = threshold_bytes;
	return 0;
}

int
sp_qm_queue_unbind(struct sp_qm *qm, uint32_t queue)
{
	struct queue *q;

	if (qm == NULL || queue >= qm->max_queues)
		return -EINVAL;
	q = &qm->queues[queue];
	if (q->port == UNBOUND)
		return -ENOENT;
	if (q->st.len_pkts != 0)
		return -EBUSY;
	/* The next owner of this queue starts from zero. */
	queue_reset(q);
	return 0;
}

int
sp_qm_queue_stats(const struct sp_qm *qm, uint32_t queue, struct sp_qm_queue_stats *st)
{
	if (qm == NULL || queue >= qm->max_queues || st == NULL)
		return -EINVAL;
	*st = qm->queues[queue].st;
	return 0;
}

int
sp_qm_queue_port(const struct sp_qm *qm, uint32_t queue)
{
	if (qm == NULL || queue >= qm->max_queues)
		return -EINVAL;
	if (qm->queues[queue].port == UNBOUND)
		return -ENOENT;
	return qm->queues[queue].port;
}

/* Append m to its queue's port FIFO, or count it as refused. */
static inline bool
take(struct sp_qm *qm, struct rte_mbuf *m)
{
	uint32_t id = sp_meta(m)->queue;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct queue *q;
	struct fifo *f;

	if (id >= qm->max_queues || qm->queues[id].port == UNBOUND)
		return false;
	q = &qm->queues[id];
	f = &qm->ports[q->port];
	if ((uint64_t)q->st.len_bytes + len > q->threshold ||
	    (uint64_t)f->bytes + len > f->limit || fifo_count(f) > f->mask) {
		q->st.drop_pkts++;
		q->st.drop_bytes += len;
		return false;
	}
	f->ring[f->tail++ & f->mask] = m;
	f->bytes += len;
	q->st.enq_pkts++;
	q->st.enq_bytes += len;
	q->st.len_pkts++;
	q->st.len_bytes += len;
	return true;
}

/*
 * Refused packets are swapped to the front, in arrival order; the accepted
 * ones end up in pkts[ret..n), in some order, for the caller to count
 * (they stay valid until this lcore dequeues them).
 */
uint16_t
sp_qm_enqueue_burst(struct sp_qm *qm, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *m;
	uint16_t i, refused = 0;

	for (i = 0; i < n; i++) {
		m = pkts[i];
		if (take(qm, m))
			continue;
		sp_meta_drop(m, SP_REASON_QUEUE_FULL);
		pkts[i] = pkts[refused];
		pkts[refused++] = m;
	}
	return refused;
}

uint16_t
sp_qm_dequeue_burst(struct sp_qm *qm, uint16_t port, struct rte_mbuf **pkts, uint16_t max)
{
	struct rte_mbuf *m;
	struct queue *q;
	struct fifo *f;
	uint32_t len;
	uint16_t i, n;

	if (port >= qm->nb_ports)
		return 0;
	f = &qm->ports[port];
	n = (uint16_t)RTE_MIN((uint32_t)max, fifo_count(f));
	for (i = 0; i < n; i++) {
		m = f->ring[f->head++ & f->mask];
		len = rte_pktmbuf_pkt_len(m);
		/* Its queue cannot have been unbound: unbind refuses while it has packets. */
		q = &qm->queues[sp_meta(m)->queue];
		f->bytes -= len;
		q->st.sent_pkts++;
		q->st.sent_bytes += len;
		q->st.len_pkts--;
		q->st.len_bytes -= len;
		pkts[i] = m;
	}
	return n;
}
