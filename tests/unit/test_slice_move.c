/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's move to another NPE (src/node/slice_move.c) on the in-memory
 * node with a second NPE, beyond what test_rpc checks through slice.move:
 * the moved slice's frames are forwarded by its new NPE and sent by that
 * NPE's scheduler; a move the new NPE has no queues for, or whose old
 * queues are not emptied (no NPE lcore runs here), is refused with why and
 * leaves the slice where it was, in service, with nothing taken on the other.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include <slicepath/ipv4.h>

#include "decap/decap_worker.h"
#include "node/node.h"
#include "qm/qm_worker.h"
#include "sp_test.h"
#include "sp_test_node.h"

static struct sp_node *node; /* the test's: setup() */
static struct sp_slice *alpha;
static struct sp_lcore_stats st;

static int
setup(void **state)
{
	sp_test_node_setup(state);
	node = *state;
	alpha = node->slices[SP_TEST_SLICE];
	sp_test_node_add_npe(node);
	memset(&st, 0, sizeof(st));
	return 0;
}

/* Alpha's filter at position 0 on its NPE: 192.168.0.0/16 to its endpoint on p1, queue 0. */
static void
route(void)
{
	assert_int_equal(sp_test_node_route(node, alpha->npe, 0, RTE_IPV4(192, 168, 0, 0), SP_TEST_NH_IP,
					    7001), 0);
}

/* A frame for alpha through decap and into NPE npe, as the LC lcore hands it over. */
static void
receive(uint16_t npe, uint8_t tag)
{
	struct rte_mbuf *m = sp_test_node_frame(node, RTE_IPV4(192, 168, 1, 1), 64, tag);
	struct sp_decap_out out;

	assert_non_null(m);
	sp_decap_burst(node->decap, 0, &m, 1, &out, &st);
	assert_int_equal(out.nb_fwd, 1);
	sp_npe_process(&node->fastpath, &node->npes[npe], out.fwd, out.nb_fwd, &st);
}

/* What NPE npe's scheduler sends on p1 a second from now. */
static uint16_t
sent_on_p1(uint16_t npe, struct rte_mbuf **pkts, uint16_t max)
{
	return sp_qm_dequeue_burst(node->npes[npe].qm, 1, rte_rdtsc() + rte_get_tsc_hz(), pkts,
				   max);
}

static uint64_t
reserved(uint16_t npe, uint16_t port)
{
	struct sp_qm_room r;

	assert_int_equal(sp_qm_room(node->npes[npe].qm, SP_TEST_SLICE, port, &r), 0);
	return r.owner_bps;
}

/* Alpha is where it was, in service, its room on NPE 0 and none taken on NPE 1. */
static void
assert_not_moved(void)
{
	assert_int_equal(alpha->npe, 0);
	assert_ptr_equal(node->slices[SP_TEST_SLICE], alpha);
	assert_int_not_equal(alpha->qmap[0], SP_QUEUE_UNBOUND);
	assert_int_equal(node->npes[0].filter_quotas, SP_TEST_QUOTA);
	assert_int_equal(node->npes[0].queue_quotas, alpha->queue_quota);
	assert_int_equal(sp_lookup_next(node->npes[0].lookup, SP_TEST_SLICE, &(uint32_t){0}), 0);
	assert_int_not_equal(sp_lookup_next(node->npes[1].lookup, SP_TEST_SLICE, &(uint32_t){0}),
			     0);
	for (uint16_t p = 0; p < 2; p++) {
		assert_int_equal(reserved(0, p), 100000000);
		assert_int_equal(reserved(1, p), 0);
	}
}

static void
test_moved_slice_forwarded_by_its_new_npe(void **state)
{
	char err[256] = "";
	struct rte_mbuf *out[4];
	const struct rte_ipv4_hdr *ip;

	(void)state;
	route();
	assert_int_equal(sp_node_slice_move(node, alpha, 1, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	receive(1, 0x5a);
	assert_int_equal(sent_on_p1(0, out, 4), 0);
	assert_int_equal(sent_on_p1(1, out, 4), 1);
	ip = rte_pktmbuf_mtod_offset(out[0], const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(ip->dst_addr, RTE_BE32(SP_TEST_NH_IP));
	assert_int_equal(rte_pktmbuf_mtod(out[0], uint8_t *)[SP_TEST_FRAME_LEN - 1], 0x5a);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(st.slice[SP_TEST_SLICE].fwd.pkts, 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* NPE 1 has fewer queues left than alpha's quota: refused, nothing changes. */
static void
test_refused_without_queues(void **state)
{
	const struct sp_slice_spec big = {.id = 2, .name = "big", .codeopt = "ipv4", .npe = 1,
					  .mem_bytes = 64, .filter_quota = 4,
					  .queue_quota = SP_TEST_QUEUES - 4, .buffer_quota = 100,
					  .owner = SP_OWNER_NONE};
	struct sp_slice *s;
	char err[256];

	(void)state;
	route();
	assert_int_equal(sp_node_slice_add(node, &big, &s, err, sizeof(err)), 0);
	assert_int_equal(sp_node_slice_move(node, alpha, 1, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "NPE 1 has 4 of its 64 queues left, slice alpha's quota is 8");
	assert_not_moved();
	assert_int_equal(node->npes[1].queue_quotas, SP_TEST_QUEUES - 4);
}

/*
 * A frame waits in alpha's queue and no NPE lcore empties it: the move
 * gives up after the lcore's time (2 s, on the clock) and alpha stays, its
 * frame kept: the flush asked for is withdrawn, so the lcore's next dequeue
 * sends the frame; the move then goes.
 */
static void
test_rolled_back_when_old_queue_not_emptied(void **state)
{
	struct sp_qm_queue_stats qs;
	struct rte_mbuf *out[4];
	uint64_t began;
	char err[256];

	(void)state;
	route();
	receive(0, 1);
	began = rte_get_timer_cycles();
	assert_int_equal(sp_node_slice_move(node, alpha, 1, err, sizeof(err)), -EBUSY);
	assert_true(rte_get_timer_cycles() - began < 3 * rte_get_timer_hz());
	assert_string_equal(err, "queue 0 of slice alpha still holds packets: its NPE lcore did "
				 "not empty it within 2 s");
	assert_not_moved();
	assert_int_equal(sent_on_p1(0, out, 4), 1);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(sp_qm_queue_stats(node->npes[0].qm, alpha->qmap[0], &qs), 0);
	assert_int_equal(qs.drop_pkts[SP_QM_DROP_FLUSH], 0);
	assert_int_equal(qs.sent_pkts, 1);
	assert_int_equal(sp_node_slice_move(node, alpha, 1, err, sizeof(err)), 0);
	assert_int_equal(alpha->npe, 1);
	assert_int_equal(reserved(1, 1), 100000000);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_moved_slice_forwarded_by_its_new_npe, setup,
						sp_test_node_teardown),
		cmocka_unit_test_setup_teardown(test_refused_without_queues, setup,
						sp_test_node_teardown),
		cmocka_unit_test_setup_teardown(test_rolled_back_when_old_queue_not_emptied, setup,
						sp_test_node_teardown),
	};

	return cmocka_run_group_tests_name("slice_move", tests, NULL, NULL);
}
