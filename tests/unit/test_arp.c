/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP and ICMP echo answered by substrate decap: the bytes that go back on the wire. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ip.h>

#include "decap/decap.h"
#include "decap/decap_worker.h"
#include "stats/stats.h"
#include "sp_test.h"
#include "sp_test_frame.h"

#define PORT 1
#define FRAME_MIN SP_TEST_FRAME_MIN /* what a NIC hands up for a short frame: padded, no CRC */

/* Node: 10.0.0.1 at 02:00:00:00:00:01 on PORT. Peer: 10.0.0.2 at 02:00:00:00:00:02. */
#define NODE_MAC {{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}}
#define PEER_MAC {{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}}
#define BCAST_MAC {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
#define ZERO_MAC {{0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}
#define NODE_IP RTE_IPV4(10, 0, 0, 1)
#define PEER_IP RTE_IPV4(10, 0, 0, 2)
#define OTHER_IP RTE_IPV4(10, 0, 0, 9)
#define OP_REQUEST RTE_ARP_OP_REQUEST
#define OP_REPLY RTE_ARP_OP_REPLY

static const struct rte_ether_addr node_mac = NODE_MAC, peer_mac = PEER_MAC;
static struct sp_decap_table *table;
static struct rte_mempool *pool;
static struct sp_lcore_stats st;
static struct sp_decap_out out;

static int
setup(void **state)
{
	(void)state;
	pool = sp_test_eal_init();
	table = sp_decap_create("arp_test", 64, SOCKET_ID_ANY);
	if (table == NULL)
		return -1;
	return sp_decap_set_port(table, PORT, RTE_BE32(NODE_IP), &node_mac);
}

static int
teardown(void **state)
{
	(void)state;
	sp_decap_free(table);
	return 0;
}

/* Decap one frame received on PORT; returns the drop reason counted, or SP_REASON_NONE. */
static enum sp_reason
receive(const void *frame, size_t len)
{
	struct rte_mbuf *m = sp_test_pkt(frame, len, 0);
	unsigned int r, found = SP_REASON_NONE, drops = 0;

	assert_non_null(m);
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	assert_int_equal(st.port[PORT].rx.pkts, 1);
	assert_int_equal(st.port[PORT].rx.bytes, len);
	assert_int_equal(out.nb_fwd, 0);
	for (r = 0; r < SP_REASON_MAX; r++) {
		if (st.reason[r] != 0) {
			found = r;
			drops += st.reason[r];
		}
	}
	assert_int_equal(drops + out.nb_reply + out.nb_learn, 1);
	return found;
}

static void
assert_frame(const struct rte_mbuf *m, const void *want, size_t len)
{
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_memory_equal(rte_pktmbuf_mtod(m, const void *), want, len);
}

/* Decap the ARP frame arp says (FRAME_MIN bytes) received on PORT, as receive(). */
static enum sp_reason
receive_arp(const struct sp_test_arp *arp)
{
	uint8_t f[FRAME_MIN];

	return receive(f, sp_test_arp(f, arp));
}

/* m is the ARP frame arp says, byte for byte. */
static void
assert_arp(const struct rte_mbuf *m, const struct sp_test_arp *arp)
{
	uint8_t f[FRAME_MIN];

	assert_frame(m, f, sp_test_arp(f, arp));
}

static void
test_request_for_us(void **state)
{
	const struct sp_test_arp req = {BCAST_MAC, PEER_MAC, OP_REQUEST, PEER_MAC, PEER_IP,
					ZERO_MAC, NODE_IP};
	const struct sp_test_arp reply = {PEER_MAC, NODE_MAC, OP_REPLY, NODE_MAC, NODE_IP,
					  PEER_MAC, PEER_IP};

	(void)state;
	assert_int_equal(receive_arp(&req), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	assert_arp(out.reply[0], &reply);
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_unicast_request_for_us(void **state)
{
	/* Hosts refresh their cache with requests sent straight to our MAC. */
	const struct sp_test_arp req = {NODE_MAC, PEER_MAC, OP_REQUEST, PEER_MAC, PEER_IP,
					NODE_MAC, NODE_IP};
	const struct sp_test_arp reply = {PEER_MAC, NODE_MAC, OP_REPLY, NODE_MAC, NODE_IP,
					  PEER_MAC, PEER_IP};

	(void)state;
	assert_int_equal(receive_arp(&req), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	assert_arp(out.reply[0], &reply);
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_request_for_other(void **state)
{
	const struct sp_test_arp req = {BCAST_MAC, PEER_MAC, OP_REQUEST, PEER_MAC, PEER_IP,
					ZERO_MAC, OTHER_IP};

	(void)state;
	assert_int_equal(receive_arp(&req), SP_REASON_ARP_IGNORED);
}

static void
test_reply_learned(void **state)
{
	const struct sp_test_arp rep = {NODE_MAC, PEER_MAC, OP_REPLY, PEER_MAC, PEER_IP, NODE_MAC,
					NODE_IP};
	struct rte_ether_addr mac;
	uint32_t ip;

	(void)state;
	assert_int_equal(receive_arp(&rep), SP_REASON_NONE);
	assert_int_equal(out.nb_learn, 1);
	assert_int_equal(out.learn[0]->port, PORT);
	assert_int_equal(sp_arp_reply_sender(out.learn[0], &ip, &mac), 0);
	assert_int_equal(ip, RTE_BE32(PEER_IP));
	assert_memory_equal(&mac, &peer_mac, sizeof(mac));
	/* Handed up untouched. */
	assert_arp(out.learn[0], &rep);
	rte_pktmbuf_free(out.learn[0]);
}

static void
test_gratuitous_learned(void **state)
{
	/* A neighbor announcing its (new) MAC: sender and target IP are its own. */
	const struct sp_test_arp frames[] = {
		{BCAST_MAC, PEER_MAC, OP_REQUEST, PEER_MAC, PEER_IP, ZERO_MAC, PEER_IP},
		{BCAST_MAC, PEER_MAC, OP_REPLY, PEER_MAC, PEER_IP, PEER_MAC, PEER_IP},
	};
	struct rte_ether_addr mac;
	unsigned int i;
	uint32_t ip;

	(void)state;
	for (i = 0; i < RTE_DIM(frames); i++) {
		assert_int_equal(receive_arp(&frames[i]), SP_REASON_NONE);
		assert_int_equal(out.nb_learn, 1);
		assert_int_equal(sp_arp_reply_sender(out.learn[0], &ip, &mac), 0);
		assert_int_equal(ip, RTE_BE32(PEER_IP));
		rte_pktmbuf_free(out.learn[0]);
	}
}

static void
test_not_learned(void **state)
{
	/* A reply for another host, and a gratuitous reply claiming our own address. */
	const struct sp_test_arp other = {BCAST_MAC, PEER_MAC, OP_REPLY, PEER_MAC, PEER_IP,
					  PEER_MAC, OTHER_IP};
	const struct sp_test_arp claim = {BCAST_MAC, PEER_MAC, OP_REPLY, PEER_MAC, NODE_IP,
					  PEER_MAC, NODE_IP};
	/* A reply from a multicast MAC would poison the neighbor table. */
	const struct sp_test_arp mcast = {NODE_MAC, PEER_MAC, OP_REPLY,
					  {{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}}, PEER_IP,
					  NODE_MAC, NODE_IP};

	(void)state;
	assert_int_equal(receive_arp(&other), SP_REASON_ARP_IGNORED);
	assert_int_equal(receive_arp(&claim), SP_REASON_ARP_IGNORED);
	assert_int_equal(receive_arp(&mcast), SP_REASON_ARP_IGNORED);
}

static void
test_malformed(void **state)
{
	const struct sp_test_arp req = {BCAST_MAC, PEER_MAC, OP_REQUEST, PEER_MAC, PEER_IP,
					ZERO_MAC, NODE_IP};
	/* byte offset in the frame, bad value */
	const struct {
		size_t off;
		uint8_t val;
	} bad[] = {
		{15, 6},    /* hardware type 6 (IEEE 802) */
		{16, 0x86}, /* protocol 0x8600 */
		{18, 8},    /* hardware address length */
		{19, 16},   /* protocol address length */
		{21, 3},    /* opcode 3 (RARP request) */
	};
	uint8_t good[FRAME_MIN], frame[FRAME_MIN];
	unsigned int i;

	(void)state;
	sp_test_arp(good, &req);
	for (i = 0; i < RTE_DIM(bad); i++) {
		memcpy(frame, good, sizeof(frame));
		frame[bad[i].off] = bad[i].val;
		assert_int_equal(receive(frame, sizeof(frame)), SP_REASON_ARP_IGNORED);
	}
	/* 14 + 28 bytes are needed; the sender's MAC alone is not enough. */
	assert_int_equal(receive(good, 30), SP_REASON_TRUNCATED);
	assert_int_equal(receive(good, 41), SP_REASON_TRUNCATED);
}

static void
test_reply_sender_invalid(void **state)
{
	const struct sp_test_arp rep = {NODE_MAC, PEER_MAC, OP_REPLY, PEER_MAC, PEER_IP, NODE_MAC,
					NODE_IP};
	uint8_t frame[FRAME_MIN];
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint32_t ip;

	(void)state;
	sp_test_arp(frame, &rep);
	m = sp_test_pkt(frame, 30, PORT);
	assert_int_equal(sp_arp_reply_sender(m, &ip, &mac), -EINVAL);
	rte_pktmbuf_free(m);

	frame[13] = 0x00; /* EtherType 0x0800 */
	m = sp_test_pkt(frame, sizeof(frame), PORT);
	assert_int_equal(sp_arp_reply_sender(m, &ip, &mac), -EINVAL);
	rte_pktmbuf_free(m);
}

/* Ethernet + IPv4 (id 0xabcd, DF) + ICMP (id 0x1234, sequence 7) + data, checksums right. */
static size_t
build_icmp(uint8_t *f, const struct rte_ether_addr *dst_mac, const struct rte_ether_addr *src_mac,
	   uint32_t src, uint32_t dst, uint8_t ttl, uint8_t type, const void *data,
	   uint16_t data_len)
{
	const struct sp_test_ip ip = {.src = src, .dst = dst, .proto = IPPROTO_ICMP, .ttl = ttl,
				      .id = 0xabcd, .frag = RTE_IPV4_HDR_DF_FLAG};
	size_t n = sp_test_eth(f, dst_mac, src_mac, RTE_ETHER_TYPE_IPV4);

	n += sp_test_ipv4(f + n, &ip, 8 + data_len);
	return n + sp_test_icmp(f + n, type, 0x1234, 7, data, data_len);
}

static void
test_echo_request(void **state)
{
	const char data[] = "slicepath ping payload";
	uint8_t req[128], want[128];
	size_t len, want_len;
	const uint8_t *got;

	(void)state;
	len = build_icmp(req, &node_mac, &peer_mac, PEER_IP, NODE_IP, 17,
			 8, data, sizeof(data));
	want_len = build_icmp(want, &peer_mac, &node_mac, NODE_IP, PEER_IP,
			      64, 0, data, sizeof(data));
	assert_int_equal(receive(req, len), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	assert_frame(out.reply[0], want, want_len);

	/* Checked again on the reply itself: both checksums sum to all ones. */
	got = rte_pktmbuf_mtod(out.reply[0], const uint8_t *);
	assert_int_equal(rte_raw_cksum(got + 14, 20), 0xffff);
	assert_int_equal(rte_raw_cksum(got + 34, len - 34), 0xffff);
	assert_int_equal(got[22], 64); /* TTL */
	assert_int_equal(got[34], 0);  /* echo reply */
	assert_memory_equal(got + 38, req + 38, len - 38); /* id, sequence, data */
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_echo_request_padded(void **state)
{
	uint8_t req[FRAME_MIN] = {0}, want[FRAME_MIN];
	size_t len, want_len;

	(void)state;
	len = build_icmp(req, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64,
			 8, "abcd", 4);
	want_len = build_icmp(want, &peer_mac, &node_mac, NODE_IP, PEER_IP,
			      64, 0, "abcd", 4);
	assert_true(len < FRAME_MIN);
	memset(req + len, 0x5a, FRAME_MIN - len); /* Ethernet padding is not ICMP data */
	assert_int_equal(receive(req, FRAME_MIN), SP_REASON_NONE);
	assert_frame(out.reply[0], want, want_len);
	rte_pktmbuf_free(out.reply[0]);
}

/*
 * A request with id 0, sequence 0 and no data: its reply is all zero words,
 * whose checksum must be 0xffff (the incremental update gives 0).
 */
static void
test_echo_reply_of_zeros(void **state)
{
	uint8_t req[FRAME_MIN] = {0};
	const uint8_t *got;
	uint16_t ck;

	(void)state;
	build_icmp(req, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 8, "", 0);
	memset(req + 34 + 2, 0, 6); /* checksum, id, sequence */
	ck = ~rte_raw_cksum(req + 34, 8);
	memcpy(req + 34 + 2, &ck, 2);
	assert_int_equal(receive(req, FRAME_MIN), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	got = rte_pktmbuf_mtod(out.reply[0], const uint8_t *);
	assert_int_equal(got[34], 0);
	assert_int_equal(got[36] << 8 | got[37], 0xffff);
	assert_int_equal(rte_raw_cksum(got + 34, 8), 0xffff);
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_icmp_ignored(void **state)
{
	uint8_t f[128];
	size_t len;

	(void)state;
	/* An echo reply and a timestamp request are not answered. */
	len = build_icmp(f, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 0,
			 "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	len = build_icmp(f, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 13,
			 "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* Nor an echo request claiming a broadcast sender (smurf). */
	len = build_icmp(f, &node_mac, &peer_mac, UINT32_MAX,
			 NODE_IP, 64, 8, "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* An echo request to another address is not ours to answer. */
	len = build_icmp(f, &node_mac, &peer_mac, PEER_IP, OTHER_IP, 64, 8,
			 "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_NOT_LOCAL);
}

/* A wrong checksum is never answered (the reply would carry it, updated) but counted. */
static void
test_icmp_bad_checksum(void **state)
{
	const char data[] = "one bit of this payload is flipped";
	uint8_t f[128];
	size_t len;

	(void)state;
	len = build_icmp(f, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 8,
			 data, sizeof(data));
	f[50] ^= 0x01;
	assert_int_equal(receive(f, len), SP_REASON_BAD_CHECKSUM);
	assert_int_equal(out.nb_reply, 0);
	assert_int_equal(st.reason[SP_REASON_BAD_CHECKSUM], 1);
}

/*
 * The checksum is summed over every segment the message spans, the second
 * starting at an odd byte of the message with a part whose sum carries
 * (which DPDK 22.11's rte_raw_cksum_mbuf() gets wrong).
 */
static void
test_echo_request_in_two_segments(void **state)
{
	char data[200];
	uint8_t req[256], want[256];
	size_t len, want_len;
	struct rte_mbuf *m, *tail;

	(void)state;
	memset(data, 0x3c, sizeof(data));
	len = build_icmp(req, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 8,
			 data, sizeof(data));
	want_len = build_icmp(want, &peer_mac, &node_mac, NODE_IP, PEER_IP,
			      64, 0, data, sizeof(data));
	/* Headers and 9 bytes of data in the first segment (an odd split), the rest in a second. */
	m = sp_test_pkt(req, 51, 0);
	tail = sp_test_pkt(req + 51, len - 51, 0);
	assert_non_null(m);
	assert_non_null(tail);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	assert_int_equal(out.nb_reply, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out.reply[0]), want_len);
	assert_memory_equal(rte_pktmbuf_mtod(out.reply[0], const uint8_t *), want, 51);
	assert_memory_equal(rte_pktmbuf_mtod(out.reply[0]->next, const uint8_t *), want + 51,
			    want_len - 51);
	rte_pktmbuf_free(out.reply[0]);

	/* The same with a byte of the second segment changed: a wrong sum, dropped. */
	req[200] ^= 0x80;
	m = sp_test_pkt(req, 51, 0);
	tail = sp_test_pkt(req + 51, len - 51, 0);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	assert_int_equal(out.nb_reply, 0);
	assert_int_equal(st.reason[SP_REASON_BAD_CHECKSUM], 1);
}

static void
test_icmp_truncated(void **state)
{
	uint8_t f[FRAME_MIN] = {0};
	uint16_t ck;

	(void)state;
	build_icmp(f, &node_mac, &peer_mac, PEER_IP, NODE_IP, 64, 8, "", 0);
	/* IPv4 total length 24: only half an ICMP header. */
	f[16] = 0;
	f[17] = 24;
	f[24] = f[25] = 0;
	ck = ~rte_raw_cksum(f + 14, 20);
	memcpy(f + 24, &ck, 2);
	assert_int_equal(receive(f, sizeof(f)), SP_REASON_TRUNCATED);
}

static void
test_arp_request_bytes(void **state)
{
	const struct sp_test_arp want = {BCAST_MAC, NODE_MAC, OP_REQUEST, NODE_MAC, NODE_IP,
					 ZERO_MAC, PEER_IP};
	struct rte_mbuf *m;

	(void)state;
	m = sp_arp_request(table, pool, PORT, RTE_BE32(PEER_IP));
	assert_non_null(m);
	assert_int_equal(m->port, PORT);
	assert_arp(m, &want);
	rte_pktmbuf_free(m);

	/* No address on port 3 (nothing to ask from), and no port 200. */
	assert_null(sp_arp_request(table, pool, 3, RTE_BE32(PEER_IP)));
	assert_null(sp_arp_request(table, pool, 200, RTE_BE32(PEER_IP)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_for_us),
		cmocka_unit_test(test_unicast_request_for_us),
		cmocka_unit_test(test_request_for_other),
		cmocka_unit_test(test_reply_learned),
		cmocka_unit_test(test_gratuitous_learned),
		cmocka_unit_test(test_not_learned),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_reply_sender_invalid),
		cmocka_unit_test(test_echo_request),
		cmocka_unit_test(test_echo_request_padded),
		cmocka_unit_test(test_echo_reply_of_zeros),
		cmocka_unit_test(test_icmp_ignored),
		cmocka_unit_test(test_icmp_truncated),
		cmocka_unit_test(test_icmp_bad_checksum),
		cmocka_unit_test(test_echo_request_in_two_segments),
		cmocka_unit_test(test_arp_request_bytes),
	};

	return cmocka_run_group_tests_name("arp", tests, setup, teardown);
}
