/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NPE's loop (src/npe/npe.c) on the in-memory node: substrate frames
 * decapped for slice alpha (ipv4) go through parse, lookup, format, encap
 * and the queue manager, and come out of p1's scheduler as the frames a
 * next hop receives, byte for byte; a miss, an expired TTL and a next hop
 * not yet resolved each leave the fast path under their reason, counted
 * once (held ones after their second, or sent once their next hop is
 * known), and the unresolved one is asked of the management thread; the
 * miss's key is kept among the slice's last missed (npe/missed.h), no hit's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <slicepath/ipv4.h>

#include "decap/decap_worker.h"
#include "fastpath/output.h"
#include "npe/npe.h"
#include "qm/qm_worker.h"
#include "sp_test.h"
#include "sp_test_node.h"

#define NH_PORT 7001
#define UNRESOLVED RTE_IPV4(10, 1, 0, 9)

static struct sp_node *node; /* the test's: sp_test_node_setup() */
static struct sp_lcore_stats st;

static void
route(uint32_t pos, uint32_t dst_net, uint32_t nh)
{
	assert_int_equal(sp_test_node_route(node, 0, pos, dst_net, nh, NH_PORT), 0);
}

/* Frames through decap into the NPE, as the LC lcore hands them over. */
static void
receive(struct rte_mbuf **pkts, uint16_t n)
{
	struct sp_decap_out out;

	sp_decap_burst(node->decap, 0, pkts, n, &out, &st);
	assert_int_equal(out.nb_fwd, n);
	sp_npe_process(&node->fastpath, &node->npes[0], out.fwd, out.nb_fwd, &st);
}

/* What p1's scheduler sends, a second from now (its bucket full by then). */
static uint16_t
sent_on_p1(struct rte_mbuf **pkts, uint16_t max)
{
	return sp_qm_dequeue_burst(node->npes[0].qm, 1, rte_rdtsc() + rte_get_tsc_hz(), pkts,
				   max);
}

static void
test_forwarded_byte_for_byte(void **state)
{
	node = *state; /* first: the declarations below read it */
	memset(&st, 0, sizeof(st));
	const struct rte_ether_addr nh_mac = SP_TEST_NH_MAC;
	struct sp_missed_key missed[SP_MISSED_KEEP];
	struct rte_mbuf *in[4], *out[8];
	uint16_t n;

	route(0, RTE_IPV4(192, 168, 0, 0), SP_TEST_NH_IP);
	for (uint8_t i = 0; i < 4; i++)
		in[i] = sp_test_node_frame(node, RTE_IPV4(192, 168, 1, i), 64, i);
	receive(in, 4);
	n = sent_on_p1(out, 8);
	assert_int_equal(n, 4);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);
		const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
		const struct rte_ipv4_hdr *inner = (const struct rte_ipv4_hdr *)(udp + 1);

		assert_int_equal(rte_pktmbuf_pkt_len(out[i]), SP_TEST_FRAME_LEN);
		assert_true(rte_is_same_ether_addr(&eth->dst_addr, &nh_mac));
		assert_true(rte_is_same_ether_addr(&eth->src_addr, &node->ports[1].mac));
		assert_int_equal(ip->src_addr, node->ports[1].ip_be);
		assert_int_equal(rte_be_to_cpu_32(ip->dst_addr), SP_TEST_NH_IP);
		assert_true(sp_test_ipv4_cksum_ok(ip));
		assert_int_equal(rte_be_to_cpu_16(udp->src_port), 5001);
		assert_int_equal(rte_be_to_cpu_16(udp->dst_port), NH_PORT);
		/* The inner packet routed: TTL one less, checksum right, the rest as sent. */
		assert_int_equal(inner->time_to_live, 63);
		assert_true(sp_test_ipv4_cksum_ok(inner));
		assert_int_equal(rte_be_to_cpu_32(inner->dst_addr), RTE_IPV4(192, 168, 1, i));
		assert_int_equal(f[SP_TEST_FRAME_LEN - 1], i);
	}
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(st.slice[SP_TEST_SLICE].rx.pkts, 4);
	assert_int_equal(st.slice[SP_TEST_SLICE].fwd.pkts, 4);
	assert_int_equal(st.slice[SP_TEST_SLICE].drop.pkts + st.slice[SP_TEST_SLICE].exception.pkts,
			 0);
	/* Hits keep no key. */
	assert_int_equal(sp_missed_read(&node->slices[SP_TEST_SLICE]->missed, missed), 0);
}

/* Every packet ends in exactly one place: sent, or counted under one reason. */
static void
test_what_leaves_is_counted_once(void **state)
{
	node = *state; /* first: the declarations below read it */
	memset(&st, 0, sizeof(st));
	const struct sp_slice_stats *s = &st.slice[SP_TEST_SLICE];
	/* dst 10.99.0.1, src 192.0.2.1, sport 1000, dport 2000, UDP: sp_test_node_frame()'s. */
	const struct sp_key miss_key = {{10, 99, 0, 1, 192, 0, 2, 1, 0x03, 0xe8, 0x07, 0xd0, 17, 0}};
	struct sp_missed_key missed[SP_MISSED_KEEP];
	struct rte_mbuf *in[4], *out[8];
	const struct sp_ip unresolved = sp_ip_v4(rte_cpu_to_be_32(UNRESOLVED));
	struct sp_neigh_want req;
	uint16_t n;

	route(0, RTE_IPV4(192, 168, 0, 0), SP_TEST_NH_IP);
	route(1, RTE_IPV4(172, 16, 0, 0), UNRESOLVED);
	in[0] = sp_test_node_frame(node, RTE_IPV4(192, 168, 7, 7), 64, 0); /* forwarded */
	in[1] = sp_test_node_frame(node, RTE_IPV4(10, 99, 0, 1), 64, 1); /* no filter: miss */
	in[2] = sp_test_node_frame(node, RTE_IPV4(192, 168, 7, 8), 1, 2); /* TTL would reach 0 */
	in[3] = sp_test_node_frame(node, RTE_IPV4(172, 16, 0, 1), 64, 3); /* next hop unresolved */
	receive(in, 4);
	n = sent_on_p1(out, 8);
	assert_int_equal(n, 1);
	rte_pktmbuf_free_bulk(out, n);
	/* The unresolved one waits for ARP first, neither sent nor dropped; no answer comes. */
	assert_int_equal(s->held.pkts, 1);
	assert_int_equal(s->drop.pkts, 0);
	rte_delay_ms(SP_NEIGH_HOLD_MS + 10);
	sp_npe_hold_service(&node->fastpath, &node->npes[0], &st);
	assert_int_equal(node->npes[0].hold.nb_frames, 0);
	assert_int_equal(s->released.pkts, 0);
	assert_int_equal(s->rx.pkts, 4);
	assert_int_equal(s->fwd.pkts, 1);
	assert_int_equal(s->exception.pkts, 2);
	assert_int_equal(s->drop.pkts, 1);
	assert_int_equal(s->reason[SP_REASON_MISS], 1);
	assert_int_equal(s->reason[SP_REASON_TTL_EXPIRED], 1);
	assert_int_equal(s->reason[SP_REASON_NO_NEIGHBOR], 1);
	/* No slow path is connected: the exceptions are counted there too, and freed. */
	assert_int_equal(s->reason[SP_REASON_NO_SLOW_PATH], 2);
	assert_int_equal(rte_ring_count(node->exc_ring), 0);
	/* The management thread is asked for the unresolved next hop on p1. */
	assert_int_equal(rte_ring_dequeue_elem(node->resolve_ring, &req, sizeof(req)), 0);
	assert_int_equal(req.port, 1);
	assert_memory_equal(&req.ip, &unresolved, sizeof(unresolved));
	/* Every packet is back in the pool: none leaked, none freed twice. */
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
	/* The miss's key, as the lookup used it, kept with the endpoint it came in on. */
	assert_int_equal(sp_missed_read(&node->slices[SP_TEST_SLICE]->missed, missed), 1);
	assert_memory_equal(missed[0].key.b, miss_key.b, SP_KEY_BYTES);
	assert_int_equal(missed[0].in_ep, node->slices[SP_TEST_SLICE]->endpoints[0]);
	assert_false(missed[0].injected);
	assert_true(missed[0].tsc > 0 && missed[0].tsc <= rte_rdtsc());
}

/*
 * The first frames to a next hop without MAC wait for it (SP_NEIGH_HOLD_FRAMES at
 * most; the next is dropped as before) and go, in order, once the table has it.
 */
static void
test_held_frames_go_once_resolved(void **state)
{
	node = *state; /* first: the declarations below read it */
	memset(&st, 0, sizeof(st));
	const struct sp_slice_stats *s = &st.slice[SP_TEST_SLICE];
	const struct rte_ether_addr mac = {{0x02, 0xcc, 0, 0, 0, 0x09}};
	struct rte_mbuf *in[SP_NEIGH_HOLD_FRAMES + 1], *out[8];
	uint16_t n;

	route(0, RTE_IPV4(172, 16, 0, 0), UNRESOLVED);
	for (uint8_t i = 0; i < SP_NEIGH_HOLD_FRAMES + 1; i++)
		in[i] = sp_test_node_frame(node, RTE_IPV4(172, 16, 0, i), 64, i);
	receive(in, SP_NEIGH_HOLD_FRAMES + 1);
	assert_int_equal(sent_on_p1(out, 8), 0);
	assert_int_equal(s->held.pkts, SP_NEIGH_HOLD_FRAMES);
	assert_int_equal(s->drop.pkts, 1); /* the hold was full */
	assert_int_equal(s->reason[SP_REASON_NO_NEIGHBOR], 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), SP_NEIGH_HOLD_FRAMES);

	/* Nothing changed: nothing goes. */
	sp_npe_hold_service(&node->fastpath, &node->npes[0], &st);
	assert_int_equal(node->npes[0].hold.nb_frames, SP_NEIGH_HOLD_FRAMES);
	assert_int_equal(sp_neigh_set(node->neigh, 1, rte_cpu_to_be_32(UNRESOLVED), &mac,
				      SP_NEIGH_LEARNED), 0);
	sp_npe_hold_service(&node->fastpath, &node->npes[0], &st);
	assert_int_equal(node->npes[0].hold.nb_frames, 0);
	n = sent_on_p1(out, 8);
	assert_int_equal(n, SP_NEIGH_HOLD_FRAMES);
	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(out[i], struct rte_ether_hdr *);
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);

		assert_memory_equal(&eth->dst_addr, &mac, RTE_ETHER_ADDR_LEN);
		assert_int_equal(f[rte_pktmbuf_pkt_len(out[i]) - 1], i); /* in arrival order */
	}
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(s->released.pkts, SP_NEIGH_HOLD_FRAMES);
	assert_int_equal(s->fwd.pkts, SP_NEIGH_HOLD_FRAMES);
	assert_int_equal(s->drop.pkts, 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/*
 * What leaves through the queue manager is counted as its own slice's fwd
 * and its own endpoint's tx (none for a NAT range), whatever the packets
 * around it: runs of alike packets are counted once a run.
 */
static void
test_output_counts_each_slice_and_endpoint(void **state)
{
	node = *state; /* first: the declarations below read it */
	memset(&st, 0, sizeof(st));
	const struct sp_slice *alpha = node->slices[SP_TEST_SLICE];
	const uint16_t e0 = alpha->endpoints[0], e1 = alpha->endpoints[1];
	/* slice, endpoint, length: slices and endpoints taking turns and in runs */
	static const struct { uint16_t slice; int ep; uint16_t len; } want[] = {
		{1, 0, 60}, {1, 0, 61}, {2, 1, 62}, {1, 1, 63}, {2, 1, 64}, {2, -1, 65}, {1, 0, 66},
	};
	const uint16_t n = RTE_DIM(want);
	uint64_t pkts[3] = {0}, bytes[3] = {0}, ep_pkts[2] = {0}, ep_bytes[2] = {0};
	struct rte_mbuf *in[RTE_DIM(want)], *out[RTE_DIM(want)];
	static const uint8_t zero[128];

	for (uint16_t i = 0; i < n; i++) {
		struct sp_meta *meta;

		in[i] = sp_test_pkt(zero, want[i].len, 0);
		meta = sp_meta(in[i]);
		*meta = (struct sp_meta){.slice = want[i].slice, .verdict = SP_FORWARD,
					 .out_port = 1, .queue = alpha->qmap[0]};
		meta->out_ep = want[i].ep < 0 ? SP_ENDPOINT_NAT : want[i].ep == 0 ? e0 : e1;
		pkts[want[i].slice]++;
		bytes[want[i].slice] += want[i].len;
		if (want[i].ep >= 0) {
			ep_pkts[want[i].ep]++;
			ep_bytes[want[i].ep] += want[i].len;
		}
	}
	sp_output_burst(&node->fastpath, node->npes[0].qm, in, n, &st);
	assert_int_equal(sent_on_p1(out, n), n);
	rte_pktmbuf_free_bulk(out, n);
	for (uint16_t s = 1; s <= 2; s++) {
		assert_int_equal(st.slice[s].fwd.pkts, pkts[s]);
		assert_int_equal(st.slice[s].fwd.bytes, bytes[s]);
	}
	assert_int_equal(st.endpoint[e0].tx.pkts, ep_pkts[0]);
	assert_int_equal(st.endpoint[e0].tx.bytes, ep_bytes[0]);
	assert_int_equal(st.endpoint[e1].tx.pkts, ep_pkts[1]);
	assert_int_equal(st.endpoint[e1].tx.bytes, ep_bytes[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_ON_NODE(test_forwarded_byte_for_byte),
		SP_TEST_ON_NODE(test_what_leaves_is_counted_once),
		SP_TEST_ON_NODE(test_held_frames_go_once_resolved),
		SP_TEST_ON_NODE(test_output_counts_each_slice_and_endpoint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
