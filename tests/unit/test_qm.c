/* SPDX-License-Identifier: BSD-3-Clause */
/* The FIFO queue manager: order, thresholds, refusals and counters as a slice sees them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <slicepath/codeopt.h>

#include "eal_fixture.h"
#include "qm/qm.h"

#define NB_PORTS 2
#define MAX_QUEUES 16
#define BIG 1000000 /* a threshold nothing here reaches */

static int
setup(void **state)
{
	struct sp_qm_params p = {
		.name = "test",
		.nb_ports = NB_PORTS,
		.max_queues = MAX_QUEUES,
		.socket = SOCKET_ID_ANY,
	};

	*state = sp_qm_create(&p);
	return *state == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	sp_qm_free(*state);
	return 0;
}

/* A packet of len bytes for physical queue q, its first byte a tag to recognise it by. */
static struct rte_mbuf *
pkt(uint32_t q, uint16_t len, uint8_t tag)
{
	static uint8_t bytes[2048];
	struct rte_mbuf *m;

	bytes[0] = tag;
	m = sp_test_pkt(bytes, len, 0);
	assert_non_null(m);
	sp_meta(m)->queue = q;
	return m;
}

static uint8_t
tag_of(struct rte_mbuf *m)
{
	return *rte_pktmbuf_mtod(m, uint8_t *);
}

/* Enqueue one packet; returns 1 if it was refused (and then frees it, checking its marks). */
static uint16_t
enq1(struct sp_qm *qm, uint32_t q, uint16_t len)
{
	struct rte_mbuf *m = pkt(q, len, 0);
	uint16_t refused = sp_qm_enqueue_burst(qm, &m, 1);

	if (refused != 0) {
		assert_int_equal(sp_meta(m)->verdict, SP_DROP);
		assert_int_equal(sp_meta(m)->reason, SP_REASON_QUEUE_FULL);
		rte_pktmbuf_free(m);
	}
	return refused;
}

/* Dequeue everything waiting on port, free it, return how many. */
static uint16_t
drain(struct sp_qm *qm, uint16_t port)
{
	struct rte_mbuf *out[64];
	uint16_t n, total = 0;

	while ((n = sp_qm_dequeue_burst(qm, port, out, RTE_DIM(out))) != 0) {
		rte_pktmbuf_free_bulk(out, n);
		total += n;
	}
	return total;
}

static struct sp_qm_queue_stats
stats(struct sp_qm *qm, uint32_t q)
{
	struct sp_qm_queue_stats st;

	assert_int_equal(sp_qm_queue_stats(qm, q, &st), 0);
	return st;
}

static void
test_create_errors(void **state)
{
	struct sp_qm_params p = {.name = "bad", .nb_ports = 0, .max_queues = 1};

	(void)state;
	assert_null(sp_qm_create(NULL));
	assert_null(sp_qm_create(&p));
	p.nb_ports = 1;
	p.max_queues = 0;
	assert_null(sp_qm_create(&p));
	sp_qm_free(NULL);
}

static void
test_fifo_order_across_queues(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *in[9], *out[16];
	uint16_t i;

	for (i = 0; i < 3; i++)
		assert_int_equal(sp_qm_queue_bind(qm, i, 0, BIG, 1), 0);
	for (i = 0; i < RTE_DIM(in); i++)
		in[i] = pkt((i * 7) % 3, 100, (uint8_t)i); /* queues 0 1 2 0 1 2 ... reordered */
	assert_int_equal(sp_qm_enqueue_burst(qm, in, 5), 0);
	assert_int_equal(sp_qm_enqueue_burst(qm, in + 5, 4), 0);
	/* In arrival order, whichever queue, across bursts of any size. */
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, out, 4), 4);
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, out + 4, 16), 5);
	for (i = 0; i < RTE_DIM(in); i++) {
		assert_ptr_equal(out[i], in[i]);
		assert_int_equal(tag_of(out[i]), i);
	}
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, out, 16), 0);
	rte_pktmbuf_free_bulk(out, RTE_DIM(in));
}

static void
test_ports_independent(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *out[4];

	assert_int_equal(sp_qm_port_config(qm, 0, 0, 300), 0);
	assert_int_equal(sp_qm_queue_bind(qm, 1, 0, BIG, 1), 0);
	assert_int_equal(sp_qm_queue_bind(qm, 2, 1, BIG, 1), 0);
	assert_int_equal(sp_qm_queue_port(qm, 1), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), 1);
	/* Port 0 full does not stop port 1, and each port sends only its own. */
	assert_int_equal(enq1(qm, 1, 300), 0);
	assert_int_equal(enq1(qm, 1, 1), 1);
	assert_int_equal(enq1(qm, 2, 1000), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), 1000);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, out + 1, 4), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, out + 1, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[1]), 300);
	assert_int_equal(sp_qm_dequeue_burst(qm, NB_PORTS, out, 4), 0);
	rte_pktmbuf_free_bulk(out, 2);
}

static void
test_queue_threshold_exact(void **state)
{
	struct sp_qm *qm = *state;
	int i;

	assert_int_equal(sp_qm_queue_bind(qm, 3, 0, 1000, 1), 0);
	for (i = 0; i < 9; i++)
		assert_int_equal(enq1(qm, 3, 100), 0);
	assert_int_equal(enq1(qm, 3, 101), 1); /* 1001 > 1000 */
	assert_int_equal(enq1(qm, 3, 100), 0); /* exactly 1000 */
	assert_int_equal(enq1(qm, 3, 1), 1);
	assert_int_equal(stats(qm, 3).len_bytes, 1000);
	/* Sending frees room for exactly what was sent. */
	assert_int_equal(drain(qm, 0), 10);
	assert_int_equal(enq1(qm, 3, 1000), 0);
	assert_int_equal(enq1(qm, 3, 1), 1);
	/* Another queue on the same port has its own threshold. */
	assert_int_equal(sp_qm_queue_bind(qm, 4, 0, 100, 1), 0);
	assert_int_equal(enq1(qm, 4, 100), 0);
	assert_int_equal(drain(qm, 0), 2);
}

static void
test_port_limit(void **state)
{
	struct sp_qm *qm = *state;
	int i;

	assert_int_equal(sp_qm_port_config(qm, 0, 0, 500), 0);
	assert_int_equal(sp_qm_queue_bind(qm, 0, 0, BIG, 1), 0);
	assert_int_equal(sp_qm_queue_bind(qm, 1, 0, BIG, 1), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(enq1(qm, i % 2, 100), 0);
	assert_int_equal(enq1(qm, 1, 101), 1);
	assert_int_equal(enq1(qm, 0, 100), 0); /* exactly 500 */
	assert_int_equal(enq1(qm, 1, 1), 1);
	/* A refusal by the port counts as a drop of the queue that asked. */
	assert_int_equal(stats(qm, 1).drop_pkts, 2);
	assert_int_equal(stats(qm, 1).drop_bytes, 102);
	assert_int_equal(stats(qm, 0).drop_pkts, 0);
	assert_int_equal(drain(qm, 0), 5);
	assert_int_equal(enq1(qm, 1, 500), 0);
	assert_int_equal(drain(qm, 0), 1);
}

static void
test_fifo_packet_capacity(void **state)
{
	struct sp_qm *qm = *state;
	uint16_t i, refused = 0;

	/* 640 bytes: room for 10 minimum frames, rounded up to 16 slots. */
	assert_int_equal(sp_qm_port_config(qm, 0, 0, 640), 0);
	assert_int_equal(sp_qm_queue_bind(qm, 0, 0, BIG, 1), 0);
	for (i = 0; i < 20; i++)
		refused += enq1(qm, 0, 1);
	assert_int_equal(refused, 4);
	assert_int_equal(stats(qm, 0).len_pkts, 16);
	assert_int_equal(drain(qm, 0), 16);
}

static void
test_refused_moved_to_front(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *in[6], *orig[6], *out[8];
	uint16_t i;

	assert_int_equal(sp_qm_queue_bind(qm, 0, 0, 250, 1), 0);
	in[0] = pkt(0, 100, 0);
	in[1] = pkt(5, 100, 1);          /* unbound */
	in[2] = pkt(0, 100, 2);
	in[3] = pkt(0, 100, 3);          /* over queue 0's threshold */
	in[4] = pkt(MAX_QUEUES, 100, 4); /* no such queue */
	in[5] = pkt(0, 50, 5);           /* exactly 250 */
	memcpy(orig, in, sizeof(in));
	assert_int_equal(sp_qm_enqueue_burst(qm, in, 6), 3);
	/* Refused ones first, in their order, marked... */
	assert_ptr_equal(in[0], orig[1]);
	assert_ptr_equal(in[1], orig[3]);
	assert_ptr_equal(in[2], orig[4]);
	for (i = 0; i < 3; i++) {
		assert_int_equal(sp_meta(in[i])->verdict, SP_DROP);
		assert_int_equal(sp_meta(in[i])->reason, SP_REASON_QUEUE_FULL);
	}
	/* ...and the accepted ones behind them, for the caller to count. */
	for (i = 3; i < 6; i++)
		assert_true(in[i] == orig[0] || in[i] == orig[2] || in[i] == orig[5]);
	assert_true(in[3] != in[4] && in[4] != in[5] && in[3] != in[5]);
	rte_pktmbuf_free_bulk(in, 3);
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, out, 8), 3);
	assert_ptr_equal(out[0], orig[0]);
	assert_ptr_equal(out[1], orig[2]);
	assert_ptr_equal(out[2], orig[5]);
	for (i = 0; i < 3; i++)
		assert_int_equal(sp_meta(out[i])->verdict, SP_FORWARD);
	rte_pktmbuf_free_bulk(out, 3);
}

static void
test_counters_exact(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	struct rte_mbuf *out[4];

	assert_int_equal(sp_qm_queue_bind(qm, 7, 1, 600, 1), 0);
	st = stats(qm, 7);
	assert_int_equal(st.enq_pkts + st.sent_pkts + st.drop_pkts + st.len_pkts, 0);
	assert_int_equal(enq1(qm, 7, 100), 0);
	assert_int_equal(enq1(qm, 7, 200), 0);
	assert_int_equal(enq1(qm, 7, 300), 0);
	assert_int_equal(enq1(qm, 7, 400), 1);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, out, 2), 2);
	rte_pktmbuf_free_bulk(out, 2);

	st = stats(qm, 7);
	assert_int_equal(st.enq_pkts, 3);
	assert_int_equal(st.enq_bytes, 600);
	assert_int_equal(st.sent_pkts, 2);
	assert_int_equal(st.sent_bytes, 300);
	assert_int_equal(st.drop_pkts, 1);
	assert_int_equal(st.drop_bytes, 400);
	assert_int_equal(st.len_pkts, 1);
	assert_int_equal(st.len_bytes, 300);
	/* Unbound queues refuse without counting against anyone. */
	assert_int_equal(enq1(qm, 8, 100), 1);
	st = stats(qm, 8);
	assert_int_equal(st.drop_pkts + st.enq_pkts, 0);
	assert_int_equal(drain(qm, 1), 1);
}

static void
test_bind_unbind(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;

	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);
	assert_int_equal(sp_qm_queue_unbind(qm, 2), -ENOENT);
	assert_int_equal(sp_qm_queue_bind(qm, MAX_QUEUES, 0, BIG, 1), -EINVAL);
	assert_int_equal(sp_qm_queue_bind(qm, 2, NB_PORTS, BIG, 1), -EINVAL);
	assert_int_equal(sp_qm_queue_bind(qm, 2, 0, BIG, 0), -EINVAL);
	assert_int_equal(sp_qm_queue_bind(NULL, 2, 0, BIG, 1), -EINVAL);
	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);

	assert_int_equal(sp_qm_queue_bind(qm, 2, 0, BIG, 1), 0);
	assert_int_equal(enq1(qm, 2, 100), 0);
	/* Packets waiting: the queue stays where it is. */
	assert_int_equal(sp_qm_queue_unbind(qm, 2), -EBUSY);
	assert_int_equal(sp_qm_queue_bind(qm, 2, 1, BIG, 1), -EBUSY);
	assert_int_equal(sp_qm_port_config(qm, 0, 0, 4096), -EBUSY);
	assert_int_equal(sp_qm_queue_port(qm, 2), 0);
	assert_int_equal(drain(qm, 0), 1);

	/* Rebinding an empty queue keeps its counters; unbinding clears them. */
	assert_int_equal(sp_qm_queue_bind(qm, 2, 1, 50, 1), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), 1);
	assert_int_equal(enq1(qm, 2, 100), 1);
	st = stats(qm, 2);
	assert_int_equal(st.sent_pkts, 1);
	assert_int_equal(st.drop_pkts, 1);
	assert_int_equal(sp_qm_queue_unbind(qm, 2), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);
	st = stats(qm, 2);
	assert_int_equal(st.enq_pkts + st.sent_pkts + st.drop_pkts, 0);
	assert_int_equal(enq1(qm, 2, 10), 1);

	assert_int_equal(sp_qm_queue_stats(qm, MAX_QUEUES, &st), -EINVAL);
	assert_int_equal(sp_qm_queue_stats(qm, 2, NULL), -EINVAL);
	assert_int_equal(sp_qm_queue_port(qm, MAX_QUEUES), -EINVAL);
	assert_int_equal(sp_qm_queue_unbind(qm, MAX_QUEUES), -EINVAL);
	assert_int_equal(sp_qm_port_config(qm, NB_PORTS, 0, 4096), -EINVAL);
}

static void
test_default_port_limit(void **state)
{
	struct sp_qm *qm = *state;
	int i;

	/* Never configured: 1 MiB. 1024 packets of 1 KiB fit, one byte more does not. */
	assert_int_equal(sp_qm_queue_bind(qm, 0, 1, UINT32_MAX, 1), 0);
	for (i = 0; i < 1024; i++)
		assert_int_equal(enq1(qm, 0, 1024), 0);
	assert_int_equal(enq1(qm, 0, 1), 1);
	assert_int_equal(drain(qm, 1), 1024);
	/* 0 means the default too. */
	assert_int_equal(sp_qm_port_config(qm, 1, 0, 0), 0);
	assert_int_equal(enq1(qm, 0, 1024), 0);
	assert_int_equal(drain(qm, 1), 1);
}

static void
test_free_releases_waiting(void **state)
{
	struct rte_mempool *mp = sp_test_eal_init();
	unsigned int avail = rte_mempool_avail_count(mp);
	struct sp_qm *qm = *state;
	int i;

	assert_int_equal(sp_qm_queue_bind(qm, 0, 0, BIG, 1), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(enq1(qm, 0, 64), 0);
	assert_int_equal(rte_mempool_avail_count(mp), avail - 10);
	sp_qm_free(qm);
	*state = NULL;
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test_setup_teardown(test_fifo_order_across_queues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_threshold_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_packet_capacity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_moved_to_front, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_unbind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_port_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_releases_waiting, setup, teardown),
	};

	sp_test_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
