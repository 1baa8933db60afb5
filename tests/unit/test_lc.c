/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding lcore's loop (src/lc/) on the in-memory node, its ports
 * ring ethdevs: the test puts frames where a NIC would have received them,
 * runs the loop on its own thread for a set number of turns (an rx callback
 * says stop) and reads what each port sent. A substrate frame leaves
 * encapsulated in the turn it came; decap's answers and the management
 * thread's frames go out their port; a port that takes frames late gets
 * them later, in order, and a full hold drops them as tx_full; frames for an
 * NPE on another lcore cross in its ring (ring_full past its room); a port's
 * host path carries frames both ways; a round takes more than a burst from
 * a busy queue. Nothing is left in the pool when the loop stops; the pool's
 * frames start on cache lines.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_udp.h>

#include <slicepath/ipv4.h>

#include "lc/lcore.h"
#include "sp_test.h"
#include "sp_test_frame.h"
#include "sp_test_node.h"

#define WIRE_RING 1024 /* what a port's rings hold */
#define HOST 2         /* the ring ports: p0, p1, then p0's host interface */
#define NB_RING_PORTS 3
#define PEER_MAC {{0x02, 0xaa, 0, 0, 0, 0x02}}
#define PEER_IP RTE_IPV4(10, 0, 0, 2)

/* A ring ethdev: rx what the wire brought, tx what the port sent. */
struct wire {
	uint16_t port_id;
	struct rte_ring *rx, *tx;
};

static struct wire wire[NB_RING_PORTS];
static struct rte_rcu_qsbr *qsbr;
static struct sp_node *node; /* the test's: setup() */
static struct sp_lcore_stats *st; /* the test thread's lcore's */
static char marker; /* in a port's tx ring: room the port does not have */
static unsigned int turn, turns;
static void (*at_turn)(unsigned int turn); /* what the test does as turn (1..) starts, or NULL */

/*
 * p0's rx queue is polled first in a turn: the turns are counted there (a
 * test of several turns leaves less than a burst there, or it is polled again).
 */
static uint16_t
count_turn(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, uint16_t max,
	   void *arg)
{
	(void)port, (void)queue, (void)pkts, (void)max, (void)arg;
	if (turn < turns) {
		if (at_turn != NULL)
			at_turn(turn + 1);
		if (++turn == turns)
			node->quit = true;
	}
	return n;
}

static void
make_wire(unsigned int i, struct rte_mempool *pool)
{
	const struct rte_eth_conf conf = {0};
	char name[RTE_RING_NAMESIZE];
	struct wire *w = &wire[i];
	int pid;

	snprintf(name, sizeof(name), "lc_rx%u", i);
	w->rx = rte_ring_create(name, WIRE_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "lc_tx%u", i);
	w->tx = rte_ring_create(name, WIRE_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	SP_TEST_CHECK(w->rx != NULL && w->tx != NULL, "rings of wire %u", i);
	snprintf(name, sizeof(name), "lc_wire%u", i);
	pid = rte_eth_from_rings(name, &w->rx, 1, &w->tx, 1, SOCKET_ID_ANY);
	SP_TEST_CHECK(pid >= 0, "ring ethdev %u", i);
	w->port_id = (uint16_t)pid;
	SP_TEST_CHECK(rte_eth_dev_configure(w->port_id, 1, 1, &conf) == 0 &&
		      rte_eth_rx_queue_setup(w->port_id, 0, 64, SOCKET_ID_ANY, NULL, pool) == 0 &&
		      rte_eth_tx_queue_setup(w->port_id, 0, 64, SOCKET_ID_ANY, NULL) == 0 &&
		      rte_eth_dev_start(w->port_id) == 0, "start ring ethdev %u", i);
}

/* Once: the ring ethdevs, the turn counter on p0 and the RCU state of one lcore. */
static int
group_setup(void **state)
{
	struct rte_mempool *pool = sp_test_eal_init();
	size_t sz = rte_rcu_qsbr_get_memsize(1);

	(void)state;
	for (unsigned int i = 0; i < NB_RING_PORTS; i++)
		make_wire(i, pool);
	SP_TEST_CHECK(rte_eth_add_rx_callback(wire[0].port_id, 0, count_turn, NULL) != NULL,
		      "rx callback");
	qsbr = rte_zmalloc("lc_qsbr", sz, RTE_CACHE_LINE_SIZE);
	SP_TEST_CHECK(qsbr != NULL && rte_rcu_qsbr_init(qsbr, 1) == 0, "qsbr");
	return 0;
}

/* The test node with p0 and p1 on the wires, every role on this thread's lcore. */
static int
setup(void **state)
{
	unsigned int lcore = rte_lcore_id();

	sp_test_node_setup(state);
	node = *state;
	for (uint16_t p = 0; p < 2; p++) {
		node->ports[p].port_id = wire[p].port_id;
		node->ports[p].nb_rxq = node->ports[p].nb_txq = 1;
	}
	node->qsbr = qsbr;
	node->nb_lcores = 1;
	node->lcores[0] = lcore;
	node->nb_lc = 1;
	node->lc_lcores[0] = lcore;
	node->npes[0].lcore = lcore;
	node->npes[0].inject_ring = rte_ring_create("lc_inject", 64, SOCKET_ID_ANY,
						    RING_F_SC_DEQ);
	SP_TEST_CHECK(node->npes[0].inject_ring != NULL, "inject ring");
	SP_TEST_CHECK(sp_residence_init(&node->residence) == 0, "residence");
	st = sp_stats_lcore(lcore);
	memset(st, 0, sizeof(*st));
	return 0;
}

static void
drain(struct rte_ring *r)
{
	void *m;

	while (rte_ring_dequeue(r, &m) == 0)
		if (m != &marker)
			rte_pktmbuf_free(m);
}

static int
teardown(void **state)
{
	for (unsigned int i = 0; i < NB_RING_PORTS; i++) {
		drain(wire[i].rx);
		drain(wire[i].tx);
	}
	for (uint16_t e = 0; e < node->nb_npes; e++) {
		rte_ring_free(node->npes[e].inject_ring);
		rte_ring_free(node->npes[e].rx_ring);
	}
	return sp_test_node_teardown(state);
}

/* Run the loop on this thread for n turns, then let it stop as it does. */
static void
run_turns(unsigned int n)
{
	node->quit = false;
	turn = 0;
	turns = n;
	assert_int_equal(sp_lcore_main(node), 0);
	at_turn = NULL;
}

/* A frame arriving on wire w. */
static void
arrive(unsigned int w, struct rte_mbuf *m)
{
	assert_non_null(m);
	assert_int_equal(rte_ring_enqueue(wire[w].rx, m), 0);
}

/* The frames wire w sent, at most max, oldest first. */
static unsigned int
sent(unsigned int w, struct rte_mbuf **pkts, unsigned int max)
{
	return rte_ring_dequeue_burst(wire[w].tx, (void **)pkts, max, NULL);
}

/* Alpha's filter at pos: 192.168.0.0/16 to its endpoint on p1, next hop SP_TEST_NH_IP. */
static void
route(void)
{
	assert_int_equal(sp_test_node_route(node, 0, 0, RTE_IPV4(192, 168, 0, 0), SP_TEST_NH_IP,
					    7001), 0);
}

/* m's frame is substrate to the next hop from p1, holding inner packet tag. */
static void
assert_encapsulated(const struct rte_mbuf *m, uint8_t tag)
{
	const struct rte_ether_addr nh_mac = SP_TEST_NH_MAC;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)f;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);

	assert_int_equal(rte_pktmbuf_pkt_len(m), SP_TEST_FRAME_LEN);
	assert_true(rte_is_same_ether_addr(&eth->dst_addr, &nh_mac));
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &node->ports[1].mac));
	assert_int_equal(ip->src_addr, node->ports[1].ip_be);
	assert_int_equal(ip->dst_addr, RTE_BE32(SP_TEST_NH_IP));
	assert_int_equal(f[SP_TEST_FRAME_LEN - 1], tag);
}

/* A frame of the management thread's for port, its first byte after the header tag. */
static struct rte_mbuf *
mgmt_frame(uint16_t port, uint8_t tag)
{
	struct rte_mbuf *m = sp_arp_request(node->decap, node->pool, port, RTE_BE32(PEER_IP));

	assert_non_null(m);
	rte_pktmbuf_mtod(m, uint8_t *)[RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)] = tag;
	return m;
}

static uint8_t
mgmt_tag(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *)[RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)];
}

/* Substrate frames for alpha leave p1 in the turn they came, counted where they went. */
static void
test_forwarded_in_one_turn(void **state)
{
	struct rte_mbuf *out[8];
	unsigned int n;

	(void)state;
	route();
	for (uint8_t i = 0; i < 4; i++)
		arrive(0, sp_test_node_frame(node, RTE_IPV4(192, 168, 1, i), 64, i));
	run_turns(1);
	n = sent(1, out, 8);
	assert_int_equal(n, 4);
	for (uint8_t i = 0; i < n; i++)
		assert_encapsulated(out[i], i);
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(sent(0, out, 8), 0);
	assert_int_equal(st->work.rx_pkts, 4);
	assert_int_equal(st->work.npe_pkts, 4);
	assert_int_equal(st->work.crossed_pkts, 0);
	assert_int_equal(st->port[0].rx.pkts, 4);
	assert_int_equal(st->slice[SP_TEST_SLICE].fwd.pkts, 4);
	assert_int_equal(st->port[1].tx.pkts, 4);
	assert_int_equal(st->port[1].tx.bytes, 4 * SP_TEST_FRAME_LEN);
	/* The turn's first frame was stamped at rx: its time in the node counted once out. */
	assert_int_equal(st->residence.count, 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/*
 * Decap's answer goes back out the port it came from, an ARP reply to the
 * management thread, and the management thread's frames out their port.
 */
static void
test_answers_and_management_frames(void **state)
{
	const struct sp_test_arp req = {{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, PEER_MAC,
					RTE_ARP_OP_REQUEST, PEER_MAC, PEER_IP, {{0}},
					RTE_IPV4(10, 0, 0, 1)};
	const struct sp_test_arp rep = {{{0x02, 0, 0, 0, 0, 0x10}}, PEER_MAC, RTE_ARP_OP_REPLY,
					PEER_MAC, PEER_IP, {{0x02, 0, 0, 0, 0, 0x10}},
					RTE_IPV4(10, 0, 0, 1)};
	uint8_t f[SP_TEST_FRAME_MIN];
	struct rte_mbuf *out[4], *learned = NULL;
	const struct rte_arp_hdr *arp;

	(void)state;
	arrive(0, sp_test_pkt(f, sp_test_arp(f, &req), 0));
	arrive(0, sp_test_pkt(f, sp_test_arp(f, &rep), 0));
	assert_int_equal(rte_ring_enqueue(node->ctrl_tx_ring, mgmt_frame(1, 7)), 0);
	run_turns(1);
	/* p0 answered the request. */
	assert_int_equal(sent(0, out, 4), 1);
	arp = rte_pktmbuf_mtod_offset(out[0], const struct rte_arp_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(arp->arp_opcode, RTE_BE16(RTE_ARP_OP_REPLY));
	assert_int_equal(arp->arp_data.arp_tip, RTE_BE32(PEER_IP));
	rte_pktmbuf_free(out[0]);
	assert_int_equal(st->port[0].tx.pkts, 1);
	/* The reply waits for the management thread. */
	assert_int_equal(rte_ring_dequeue(node->learn_ring, (void **)&learned), 0);
	assert_int_equal(learned->port, 0);
	rte_pktmbuf_free(learned);
	/* Its ARP request left on p1. */
	assert_int_equal(sent(1, out, 4), 1);
	assert_int_equal(mgmt_tag(out[0]), 7);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(st->port[1].tx.pkts, 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* Fill wire w's empty tx ring but for room frames: the port takes no more for now. */
static unsigned int
port_takes_only(unsigned int w, unsigned int room)
{
	unsigned int n = 0;

	assert_int_equal(rte_ring_count(wire[w].tx), 0);
	for (; rte_ring_free_count(wire[w].tx) > room; n++)
		assert_int_equal(rte_ring_enqueue(wire[w].tx, &marker), 0);
	return n;
}

/* Take back the markers port_takes_only() put first: the port takes everything again. */
static void
port_takes_all(unsigned int w, unsigned int markers)
{
	void *x;

	for (unsigned int i = 0; i < markers; i++) {
		assert_int_equal(rte_ring_dequeue(wire[w].tx, &x), 0);
		assert_ptr_equal(x, &marker);
	}
}

static unsigned int p1_markers; /* port_takes_only()'s on p1 */

/* Turn 2: p1 took 2 frames in turn 1, and takes all from now on. */
static void
p1_takes_all_at_turn_2(unsigned int t)
{
	if (t != 2)
		return;
	assert_int_equal(st->port[1].tx.pkts, 2);
	port_takes_all(1, p1_markers);
}

/*
 * What a port does not take yet waits in the lcore's hold and goes at a
 * later turn, in order, counted once taken; the hold full, the next frame
 * is dropped as tx_full; what is held when the loop stops goes back.
 */
static void
test_port_slow_to_take(void **state)
{
	struct rte_mbuf *out[8];
	unsigned int n;

	(void)state;
	p1_markers = port_takes_only(1, 2);
	for (uint8_t i = 0; i < 5; i++)
		assert_int_equal(rte_ring_enqueue(node->ctrl_tx_ring, mgmt_frame(1, i)), 0);
	at_turn = p1_takes_all_at_turn_2;
	run_turns(2);
	n = sent(1, out, 8);
	assert_int_equal(n, 5);
	for (uint8_t i = 0; i < n; i++)
		assert_int_equal(mgmt_tag(out[i]), i);
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(st->port[1].tx.pkts, 5);
	assert_int_equal(st->port[1].tx_drop.pkts, 0);

	/* A port that takes nothing: 3 turns of a burst each, the hold takes 64 of them. */
	p1_markers = port_takes_only(1, 0);
	for (uint8_t i = 0; i < 3 * SP_BURST; i++)
		assert_int_equal(rte_ring_enqueue(node->ctrl_tx_ring, mgmt_frame(1, i)), 0);
	run_turns(3);
	assert_int_equal(st->port[1].tx.pkts, 5);
	assert_int_equal(st->port[1].tx_drop.pkts, 3 * SP_BURST - 64);
	assert_int_equal(st->reason[SP_REASON_TX_FULL], 3 * SP_BURST - 64);
	port_takes_all(1, p1_markers);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* Slice beta on NPE 1, on another lcore: its frames cross in NPE 1's ring of room 3. */
static void
test_crossing_to_another_lcore(void **state)
{
	const struct sp_slice_spec spec = {.id = 2, .name = "beta", .codeopt = "ipv4", .npe = 1,
					   .mem_bytes = 64, .filter_quota = 4, .queue_quota = 1,
					   .buffer_quota = 100, .owner = SP_OWNER_NONE};
	const struct sp_endpoint_req req = {.port = 0, .udp_port = 5001};
	struct rte_mbuf *out[8], *m = NULL;
	struct sp_slice *beta;
	uint16_t ep = SP_ENDPOINT_ANY;
	char err[256];

	(void)state;
	sp_test_node_add_npe(node);
	node->npes[1].lcore = rte_lcore_id() + 1;
	node->npes[1].rx_ring = rte_ring_create("lc_npe1", 4, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_non_null(node->npes[1].rx_ring);
	/* Alpha's endpoint on p0 goes to beta: alpha keeps its endpoint on p1. */
	assert_int_equal(sp_node_endpoint_del(node, node->slices[SP_TEST_SLICE], 0, err,
					      sizeof(err)), 0);
	assert_int_equal(sp_node_slice_add(node, &spec, &beta, err, sizeof(err)), 0);
	assert_int_equal(sp_node_endpoint_add(node, beta, &req, &ep, err, sizeof(err)), 0);
	for (uint8_t i = 0; i < 5; i++)
		arrive(0, sp_test_node_frame(node, RTE_IPV4(192, 168, 1, i), 64, i));
	run_turns(1);
	assert_int_equal(st->work.rx_pkts, 5);
	assert_int_equal(st->work.crossed_pkts, 3);
	assert_int_equal(st->work.npe_pkts, 0);
	assert_int_equal(st->reason[SP_REASON_RING_FULL], 2);
	assert_int_equal(st->slice[2].reason[SP_REASON_RING_FULL], 2);
	for (uint8_t i = 0; i < 3; i++) {
		assert_int_equal(rte_ring_dequeue(node->npes[1].rx_ring, (void **)&m), 0);
		assert_int_equal(sp_meta(m)->slice, 2);
		assert_int_equal(rte_pktmbuf_mtod(m, const uint8_t *)[28 + 16 - 1], i);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(sent(0, out, 8) + sent(1, out, 8), 0);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* Port p0's host path: what no slice claims goes to the host, what the host sends goes out. */
static void
test_host_path(void **state)
{
	const struct rte_ether_addr peer = PEER_MAC;
	const struct sp_test_ip ip = {.src = PEER_IP, .dst = RTE_IPV4(10, 0, 0, 1),
				      .proto = IPPROTO_UDP, .ttl = 64};
	uint8_t f[64];
	size_t n = sp_test_eth(f, &node->ports[0].mac, &peer, RTE_ETHER_TYPE_IPV4);
	struct rte_mbuf *out[4];

	(void)state;
	n += sp_test_ipv4(f + n, &ip, 8 + 4);
	n += sp_test_udp(f + n, 40000, 9999, 4); /* no endpoint there */
	memcpy(f + n, "host", 4);
	n += 4;
	node->ports[0].has_host = true;
	node->ports[0].host_pid = wire[HOST].port_id;
	sp_decap_set_host(node->decap, 0, true);
	arrive(0, sp_test_pkt(f, n, 0));
	arrive(HOST, sp_test_pkt("from the host", 13, 0));
	run_turns(1);
	sp_decap_set_host(node->decap, 0, false);
	assert_int_equal(sent(HOST, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), n);
	assert_memory_equal(rte_pktmbuf_mtod(out[0], void *), f, n);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(st->port[0].to_host.pkts, 1);
	assert_int_equal(sent(0, out, 4), 1);
	assert_memory_equal(rte_pktmbuf_mtod(out[0], void *), "from the host", 13);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(st->port[0].from_host.pkts, 1);
	assert_int_equal(st->port[0].tx.pkts, 1);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* A queue whose burst came full is read again in the same round: 3 bursts' worth in one turn. */
static void
test_round_reads_a_busy_queue_again(void **state)
{
	struct rte_mbuf *out[4 * SP_BURST];
	unsigned int n;

	(void)state;
	route();
	for (unsigned int i = 0; i < 3 * SP_BURST; i++)
		arrive(0, sp_test_node_frame(node, RTE_IPV4(192, 168, 1, 1), 64, (uint8_t)i));
	run_turns(1);
	assert_int_equal(st->work.rx_pkts, 3 * SP_BURST);
	n = sent(1, out, RTE_DIM(out));
	assert_int_equal(n, 3 * SP_BURST);
	for (unsigned int i = 0; i < n; i++)
		assert_encapsulated(out[i], (uint8_t)i);
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/*
 * The node's packet buffers (sp_pktmbuf_pool_create()): sp_meta in the
 * private area, and every frame at the default headroom starting on a cache
 * line, where the NIC (or net_pcap's copy) writes whole lines.
 */
static void
test_frames_start_on_cache_lines(void **state)
{
	struct rte_mbuf *m[8];

	(void)state;
	assert_int_equal(rte_pktmbuf_alloc_bulk(node->pool, m, RTE_DIM(m)), 0);
	assert_true(rte_pktmbuf_priv_size(node->pool) >= sizeof(struct sp_meta));
	for (unsigned int i = 0; i < RTE_DIM(m); i++) {
		assert_ptr_equal(sp_meta(m[i]), m[i] + 1);
		assert_int_equal(rte_pktmbuf_headroom(m[i]), RTE_PKTMBUF_HEADROOM);
		assert_int_equal((uintptr_t)rte_pktmbuf_mtod(m[i], void *) % RTE_CACHE_LINE_SIZE, 0);
	}
	rte_pktmbuf_free_bulk(m, RTE_DIM(m));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forwarded_in_one_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers_and_management_frames, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_port_slow_to_take, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crossing_to_another_lcore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_reads_a_busy_queue_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frames_start_on_cache_lines, setup, teardown),
	};

	return cmocka_run_group_tests_name("lc", tests, group_setup, NULL);
}
