/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queue manager's fast path: enqueue onto per-queue FIFOs, and per
 * port a rate-limited deficit round robin over the backlogged queues only
 * (Shreedhar and Varghese's DRR with quanta in proportion to shares).
 * Arrivals to a scheduler with no backlogged queue skip the queues: they
 * wait as express frames and go first (docs/qm.md).
 */
#include <string.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include <slicepath/codeopt.h>

#include "qm_int.h"
#include "qm_worker.h"

/* Append queue id to its scheduler's round. */
static inline void
activate(struct sp_qm *qm, struct qm_sched *s, uint32_t id)
{
	qm->queues[id].next = QM_NONE;
	qm->queues[id].deficit = 0;
	if (s->tail == QM_NONE)
		s->head = id;
	else
		qm->queues[s->tail].next = id;
	s->tail = id;
}

/*
 * A scheduler's express frames while a burst is taken, in registers (the
 * packets' stores could alias them in memory): written back when the burst
 * turns to another port's scheduler, and at its end. A frame may skip its
 * queue while no queue of the scheduler is backlogged (DRR would send it
 * next) and the bucket holds its tokens besides those of the express frames
 * before it (tokens are only spent at dequeue). It waits in the express
 * array for the next dequeue.
 */
struct express_run {
	struct qm_sched *s; /* NULL before the burst's first frame */
	uint16_t port;
	uint16_t at;    /* the next frame's place */
	uint16_t end;   /* at's limit: QM_EXPRESS, or 0 once a queue is backlogged */
	uint64_t taken; /* x->taken so far */
	uint64_t room;  /* the bucket's tokens plus x->spent: what taken may reach */
};

static inline void
express_close(struct express_run *r)
{
	if (r->s == NULL)
		return;
	r->s->express.count = r->at - r->s->express.first;
	r->s->express.taken = r->taken;
}

static inline void
express_open(struct sp_qm *qm, struct express_run *r, uint16_t port)
{
	struct qm_sched *s = &qm->sched[port];
	const struct qm_express *x = &s->express;

	express_close(r);
	r->s = s;
	r->port = port;
	r->at = x->first + x->count;
	r->end = s->head != QM_NONE ? 0 : QM_EXPRESS;
	r->taken = x->taken;
	r->room = s->tokens + x->spent;
}

static inline bool
express_take(struct express_run *r, struct rte_mbuf *m, uint32_t len)
{
	struct qm_express *x = &r->s->express;
	uint64_t taken;

	if (r->at >= r->end)
		return false;
	taken = r->taken + sp_tb_cost(qm_wire_bytes(r->s, len));
	if (taken > r->room)
		return false;
	r->taken = taken;
	x->pkts[r->at] = m;
	x->upto[r->at++] = taken;
	return true;
}

/* Count a refused arrival of len bytes under why. False, for take() to return. */
static __rte_noinline bool
refuse(struct qm_queue *q, enum sp_qm_drop why, uint32_t len)
{
	q->st.drop_pkts[why]++;
	q->st.drop_bytes[why] += len;
	return false;
}

/*
 * The queue a run of arrivals goes to: a burst's packets mostly come in
 * runs to one queue, and its binding, owner and scheduler are then looked
 * at once a run. q is NULL when the id is no bound queue.
 *
 * A frame goes express only while no queue of its scheduler is backlogged
 * (express_take()), so its queue holds nothing then, and express frames
 * change neither the queue's length nor its owner's use: of an express
 * arrival's checks only the byte threshold depends on the frame.
 * express_below says up to where (0: the owner has no room, or no frame
 * fits: each arrival is checked whole), and the run's express counts wait
 * in registers.
 */
struct arrival_queue {
	uint32_t id; /* UINT32_MAX before the burst's first frame */
	struct qm_queue *q;
	struct qm_owner *o;
	uint64_t express_below; /* frames shorter than this may skip the checks */
	uint64_t express_pkts, express_bytes;
};

static __rte_always_inline void
arrival_queue_close(struct arrival_queue *a)
{
	if (a->express_pkts == 0)
		return;
	a->q->express_pkts += a->express_pkts;
	a->q->express_bytes += a->express_bytes;
	a->express_pkts = 0;
	a->express_bytes = 0;
}

static __rte_always_inline void
arrival_queue_open(struct sp_qm *qm, struct express_run *r, struct arrival_queue *a, uint32_t id)
{
	struct qm_queue *q;
	uint16_t port;

	arrival_queue_close(a);
	a->id = id;
	a->q = NULL;
	a->express_below = 0;
	if (id >= qm->max_queues)
		return;
	q = &qm->queues[id];
	port = __atomic_load_n(&q->port, __ATOMIC_ACQUIRE);
	if (port == QM_UNBOUND)
		return;
	a->q = q;
	a->o = &qm->owners[q->owner];
	if (unlikely(r->s == NULL || port != r->port))
		express_open(qm, r, port);
	if (__atomic_load_n(&q->max_pkts, __ATOMIC_RELAXED) > 0 &&
	    a->o->used_pkts < __atomic_load_n(&a->o->max_pkts, __ATOMIC_RELAXED))
		a->express_below = (uint64_t)__atomic_load_n(&q->max_bytes, __ATOMIC_RELAXED) + 1;
}

/* Append m to its queue (or the express frames), or count why it is refused. */
static inline bool
take(struct sp_qm *qm, struct express_run *r, struct arrival_queue *a, struct rte_mbuf *m)
{
	uint32_t id = sp_meta(m)->queue;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct qm_owner *o;
	struct qm_queue *q;

	if (unlikely(id != a->id))
		arrival_queue_open(qm, r, a, id);
	/* Enqueued and sent as it arrives: the queue never holds it. */
	if (len < a->express_below && express_take(r, m, len)) {
		a->express_pkts++;
		a->express_bytes += len;
		return true;
	}
	q = a->q;
	if (q == NULL)
		return false;
	if (unlikely((uint64_t)q->len_bytes + len > __atomic_load_n(&q->max_bytes, __ATOMIC_RELAXED)))
		return refuse(q, SP_QM_DROP_BYTES, len);
	if (unlikely(q->len_pkts >= __atomic_load_n(&q->max_pkts, __ATOMIC_RELAXED)))
		return refuse(q, SP_QM_DROP_PKTS, len);
	o = a->o;
	if (unlikely(o->used_pkts >= __atomic_load_n(&o->max_pkts, __ATOMIC_RELAXED)))
		return refuse(q, SP_QM_DROP_QUOTA, len);
	if (express_take(r, m, len)) {
		a->express_pkts++;
		a->express_bytes += len;
		return true;
	}
	q->st.enq_pkts++;
	q->st.enq_bytes += len;
	*qm_next(m) = NULL;
	if (q->head == NULL) {
		q->head = m;
		activate(qm, r->s, id);
		r->end = 0; /* backlogged now: the burst's later frames queue too */
	} else {
		*qm_next(q->tail) = m;
	}
	q->tail = m;
	o->used_pkts++;
	q->len_pkts++;
	q->len_bytes += len;
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
	struct express_run run = {.s = NULL};
	struct arrival_queue queue = {.id = UINT32_MAX, .express_pkts = 0};
	struct rte_mbuf *m;
	uint32_t prev = UINT32_MAX;
	uint16_t i, refused = 0;

	/* The queues are hundreds of kilobytes: start the loads of the burst's first, each
	 * once (an arrival takes a queue's first line only, qm_int.h). */
	for (i = 0; i < n; i++) {
		uint32_t id = sp_meta(pkts[i])->queue;

		if (id != prev)
			rte_prefetch0(&qm->queues[RTE_MIN(id, qm->max_queues - 1)]);
		prev = id;
	}
	for (i = 0; i < n; i++) {
		m = pkts[i];
		if (take(qm, &run, &queue, m))
			continue;
		sp_meta_drop(m, SP_REASON_QUEUE_FULL);
		pkts[i] = pkts[refused];
		pkts[refused++] = m;
	}
	arrival_queue_close(&queue);
	express_close(&run);
	return refused;
}

/* A rate configured since the last dequeue: taken whole, never half-written. */
static void
take_new_rate(struct qm_sched *s)
{
	uint32_t sn;

	do {
		sn = rte_seqlock_read_begin(&s->next_lock);
		s->rate = s->next;
	} while (rte_seqlock_read_retry(&s->next_lock, sn));
	s->rate_sn = sn;
	s->tokens = RTE_MIN(s->tokens, s->rate.tb.depth);
}

/* Add the tokens earned since the last call, up to the bucket's depth. */
static inline void
refill(struct qm_sched *s, uint64_t now)
{
	uint64_t dt = now - s->last;

	if (unlikely(rte_seqlock_read_begin(&s->next_lock) != s->rate_sn))
		take_new_rate(s);
	s->last = now;
	s->tokens = sp_tb_refill(&s->rate.tb, s->tokens, dt);
}

/*
 * A queue's quantum: the minimum one times its share over the smallest
 * share (shares are at most SP_MAX_RATE: no overflow).
 */
static inline uint64_t
quantum(const struct qm_queue *q, const struct qm_sched *s)
{
	uint64_t share = __atomic_load_n(&q->share_bps, __ATOMIC_ACQUIRE);
	uint64_t min = __atomic_load_n(&s->min_share, __ATOMIC_ACQUIRE);

	return RTE_MAX(share * QM_MIN_QUANTUM / min, (uint64_t)QM_MIN_QUANTUM);
}

/* The head queue's round is over: it goes to the back with what it has left. */
static inline void
rotate(struct sp_qm *qm, struct qm_sched *s)
{
	uint32_t id = s->head;

	s->credited = false;
	if (s->tail == id)
		return;
	s->head = qm->queues[id].next;
	qm->queues[id].next = QM_NONE;
	qm->queues[s->tail].next = id;
	s->tail = id;
}

/* The head queue is empty: out of the round, with nothing saved for later. */
static inline void
retire(struct qm_sched *s, struct qm_queue *q)
{
	s->credited = false;
	q->deficit = 0;
	s->head = q->next;
	if (s->head == QM_NONE)
		s->tail = QM_NONE;
	q->next = QM_NONE;
}

/* Empty the queue of a flush request: out of its scheduler's round, its packets freed. */
static void
flush(struct sp_qm *qm)
{
	uint32_t id = __atomic_load_n(&qm->flush_req, __ATOMIC_ACQUIRE);
	struct qm_queue *q;
	struct qm_sched *s;
	uint32_t *link, prev = QM_NONE;

	/* Taken, unless the writer withdrew it meanwhile (sp_qm_queue_flush_cancel). */
	if (!__atomic_compare_exchange_n(&qm->flush_req, &id, QM_FLUSHING, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	q = &qm->queues[id];
	s = &qm->sched[q->port];
	link = &s->head;
	while (*link != QM_NONE && *link != id) {
		prev = *link;
		link = &qm->queues[*link].next;
	}
	if (*link == id) {
		if (s->head == id)
			s->credited = false;
		*link = q->next;
		if (s->tail == id)
			s->tail = prev;
	}
	while (q->head != NULL) {
		struct rte_mbuf *m = q->head;

		q->head = *qm_next(m);
		q->st.drop_pkts[SP_QM_DROP_FLUSH]++;
		q->st.drop_bytes[SP_QM_DROP_FLUSH] += rte_pktmbuf_pkt_len(m);
		qm->owners[q->owner].used_pkts--;
		rte_pktmbuf_free(m);
	}
	q->next = QM_NONE;
	q->deficit = 0;
	q->len_bytes = 0;
	__atomic_store_n(&q->len_pkts, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qm->flush_req, QM_NONE, __ATOMIC_RELEASE);
}

/* Up to max express frames, oldest first, as far as the tokens go. */
static uint16_t
express_out(struct qm_sched *s, struct rte_mbuf **pkts, uint16_t max)
{
	struct qm_express *x = &s->express;
	uint16_t n = RTE_MIN(x->count, max);

	/* Mostly the tokens cover them all; a lower rate came in since they were taken else. */
	while (n > 0 && x->upto[x->first + n - 1] - x->spent > s->tokens)
		n--;
	if (n == 0)
		return 0;
	s->tokens -= x->upto[x->first + n - 1] - x->spent;
	memcpy(pkts, &x->pkts[x->first], n * sizeof(pkts[0]));
	x->count -= n;
	if (x->count == 0) { /* start over */
		x->first = 0;
		x->taken = x->spent = 0;
	} else {
		x->spent = x->upto[x->first + n - 1];
		x->first += n;
	}
	return n;
}

uint16_t
sp_qm_dequeue_burst(struct sp_qm *qm, uint16_t port, uint64_t now, struct rte_mbuf **pkts,
		    uint16_t max)
{
	struct qm_sched *s;
	uint16_t n = 0;

	if (port >= qm->nb_ports)
		return 0;
	if (unlikely(__atomic_load_n(&qm->flush_req, __ATOMIC_ACQUIRE) != QM_NONE))
		flush(qm);
	s = &qm->sched[port];
	refill(s, now);
	n = express_out(s, pkts, max);
	/* Queued frames came after the express ones (of their queue too). */
	if (s->express.count > 0)
		return n;
	while (n < max && s->head != QM_NONE) {
		struct qm_queue *q = &qm->queues[s->head];
		struct rte_mbuf *m = q->head;
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint64_t wire = qm_wire_bytes(s, len);

		if (!s->credited) {
			q->deficit += quantum(q, s);
			s->credited = true;
		}
		if (wire > q->deficit) {
			rotate(qm, s);
			continue;
		}
		if (sp_tb_cost(wire) > s->tokens)
			break; /* the rate: the rest waits for tokens */
		s->tokens -= sp_tb_cost(wire);
		q->deficit -= wire;
		q->head = *qm_next(m);
		qm->owners[q->owner].used_pkts--;
		q->st.sent_pkts++;
		q->st.sent_bytes += len;
		q->len_pkts--;
		q->len_bytes -= len;
		pkts[n++] = m;
		if (q->head == NULL)
			retire(s, q);
	}
	return n;
}
