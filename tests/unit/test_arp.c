/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP and ICMP echo answered by substrate decap: the bytes that go back on the wire. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "decap/decap.h"
#include "sp_test.h"

#define PORT 1
#define FRAME_MIN 60 /* what a NIC hands up for a short frame: padded, no CRC */

/* Node: 10.0.0.1 at 02:00:00:00:00:01 on PORT. Peer: 10.0.0.2 at 02:00:00:00:00:02. */
#define NODE_MAC 0x02, 0x00, 0x00, 0x00, 0x00, 0x01
#define PEER_MAC 0x02, 0x00, 0x00, 0x00, 0x00, 0x02
#define BCAST_MAC 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
#define ZERO_MAC 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
#define NODE_IP 10, 0, 0, 1
#define PEER_IP 10, 0, 0, 2
#define OTHER_IP 10, 0, 0, 9
#define ETH_ARP 0x08, 0x06
#define ARP_ETH_IPV4 0x00, 0x01, 0x08, 0x00, 0x06, 0x04
#define OP_REQUEST 0x00, 0x01
#define OP_REPLY 0x00, 0x02
/* Expand the address macros above before RTE_IPV4 counts its arguments. */
#define IP_HOST(...) RTE_IPV4(__VA_ARGS__)
#define IP_BE(...) rte_cpu_to_be_32(RTE_IPV4(__VA_ARGS__))
#define ARP_PAD 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

static const struct rte_ether_addr node_mac = {{NODE_MAC}};
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
	return sp_decap_set_port(table, PORT, IP_BE(NODE_IP), &node_mac);
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

static void
test_request_for_us(void **state)
{
	const uint8_t req[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					PEER_MAC,  PEER_IP,  ZERO_MAC, NODE_IP, ARP_PAD};
	const uint8_t reply[FRAME_MIN] = {PEER_MAC, NODE_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					  NODE_MAC, NODE_IP,  PEER_MAC, PEER_IP, ARP_PAD};

	(void)state;
	assert_int_equal(receive(req, sizeof(req)), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	assert_frame(out.reply[0], reply, sizeof(reply));
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_unicast_request_for_us(void **state)
{
	/* Hosts refresh their cache with requests sent straight to our MAC. */
	const uint8_t req[FRAME_MIN] = {NODE_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					PEER_MAC, PEER_IP,  NODE_MAC, NODE_IP, ARP_PAD};
	const uint8_t reply[FRAME_MIN] = {PEER_MAC, NODE_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					  NODE_MAC, NODE_IP,  PEER_MAC, PEER_IP, ARP_PAD};

	(void)state;
	assert_int_equal(receive(req, sizeof(req)), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	assert_frame(out.reply[0], reply, sizeof(reply));
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_request_for_other(void **state)
{
	const uint8_t req[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					PEER_MAC,  PEER_IP,  ZERO_MAC, OTHER_IP, ARP_PAD};

	(void)state;
	assert_int_equal(receive(req, sizeof(req)), SP_REASON_ARP_IGNORED);
}

static void
test_reply_learned(void **state)
{
	const uint8_t rep[FRAME_MIN] = {NODE_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					PEER_MAC, PEER_IP,  NODE_MAC, NODE_IP, ARP_PAD};
	const struct rte_ether_addr peer = {{PEER_MAC}};
	struct rte_ether_addr mac;
	uint32_t ip;

	(void)state;
	assert_int_equal(receive(rep, sizeof(rep)), SP_REASON_NONE);
	assert_int_equal(out.nb_learn, 1);
	assert_int_equal(out.learn[0]->port, PORT);
	assert_int_equal(sp_arp_reply_sender(out.learn[0], &ip, &mac), 0);
	assert_int_equal(ip, IP_BE(PEER_IP));
	assert_memory_equal(&mac, &peer, sizeof(mac));
	/* Handed up untouched. */
	assert_frame(out.learn[0], rep, sizeof(rep));
	rte_pktmbuf_free(out.learn[0]);
}

static void
test_gratuitous_learned(void **state)
{
	/* A neighbor announcing its (new) MAC: sender and target IP are its own. */
	const uint8_t req[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					PEER_MAC,  PEER_IP,  ZERO_MAC, PEER_IP, ARP_PAD};
	const uint8_t rep[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					PEER_MAC,  PEER_IP,  PEER_MAC, PEER_IP, ARP_PAD};
	const uint8_t *frames[] = {req, rep};
	struct rte_ether_addr mac;
	unsigned int i;
	uint32_t ip;

	(void)state;
	for (i = 0; i < RTE_DIM(frames); i++) {
		assert_int_equal(receive(frames[i], FRAME_MIN), SP_REASON_NONE);
		assert_int_equal(out.nb_learn, 1);
		assert_int_equal(sp_arp_reply_sender(out.learn[0], &ip, &mac), 0);
		assert_int_equal(ip, IP_BE(PEER_IP));
		rte_pktmbuf_free(out.learn[0]);
	}
}

static void
test_not_learned(void **state)
{
	/* A reply for another host, and a gratuitous reply claiming our own address. */
	const uint8_t other[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					  PEER_MAC,  PEER_IP,  PEER_MAC, OTHER_IP, ARP_PAD};
	const uint8_t claim[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					  PEER_MAC,  NODE_IP,  PEER_MAC, NODE_IP, ARP_PAD};
	/* A reply from a multicast MAC would poison the neighbor table. */
	const uint8_t mcast[FRAME_MIN] = {NODE_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					  0x01, 0x00, 0x5e, 0x00, 0x00, 0x01, PEER_IP, NODE_MAC,
					  NODE_IP, ARP_PAD};

	(void)state;
	assert_int_equal(receive(other, sizeof(other)), SP_REASON_ARP_IGNORED);
	assert_int_equal(receive(claim, sizeof(claim)), SP_REASON_ARP_IGNORED);
	assert_int_equal(receive(mcast, sizeof(mcast)), SP_REASON_ARP_IGNORED);
}

static void
test_malformed(void **state)
{
	const uint8_t good[FRAME_MIN] = {BCAST_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					 PEER_MAC,  PEER_IP,  ZERO_MAC, NODE_IP, ARP_PAD};
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
	uint8_t frame[FRAME_MIN];
	unsigned int i;

	(void)state;
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
	const uint8_t rep[FRAME_MIN] = {NODE_MAC, PEER_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REPLY,
					PEER_MAC, PEER_IP,  NODE_MAC, NODE_IP, ARP_PAD};
	uint8_t frame[FRAME_MIN];
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint32_t ip;

	(void)state;
	m = sp_test_pkt(rep, 30, PORT);
	assert_int_equal(sp_arp_reply_sender(m, &ip, &mac), -EINVAL);
	rte_pktmbuf_free(m);

	memcpy(frame, rep, sizeof(frame));
	frame[13] = 0x00; /* EtherType 0x0800 */
	m = sp_test_pkt(frame, sizeof(frame), PORT);
	assert_int_equal(sp_arp_reply_sender(m, &ip, &mac), -EINVAL);
	rte_pktmbuf_free(m);
}

/* Ethernet + IPv4 + ICMP header + data, both checksums computed from scratch. */
static size_t
build_icmp(uint8_t *f, const uint8_t *dst_mac, const uint8_t *src_mac, uint32_t src,
	   uint32_t dst, uint8_t ttl, uint8_t type, const void *data, uint16_t data_len)
{
	uint16_t ip_len = 20 + 8 + data_len, ck;
	uint8_t *ip = f + 14, *icmp = ip + 20;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = ip_len >> 8;
	ip[3] = ip_len & 0xff;
	ip[4] = 0xab; /* id */
	ip[5] = 0xcd;
	ip[6] = 0x40; /* DF */
	ip[8] = ttl;
	ip[9] = 1;
	src = rte_cpu_to_be_32(src);
	dst = rte_cpu_to_be_32(dst);
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	ck = ~rte_raw_cksum(ip, 20);
	memcpy(ip + 10, &ck, 2);

	icmp[0] = type;
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	icmp[4] = 0x12; /* id */
	icmp[5] = 0x34;
	icmp[6] = 0x00; /* sequence */
	icmp[7] = 0x07;
	memcpy(icmp + 8, data, data_len);
	ck = ~rte_raw_cksum(icmp, 8 + data_len);
	memcpy(icmp + 2, &ck, 2);
	return 14 + ip_len;
}

static const uint8_t node_mac_b[] = {NODE_MAC}, peer_mac_b[] = {PEER_MAC};

static void
test_echo_request(void **state)
{
	const char data[] = "slicepath ping payload";
	uint8_t req[128], want[128];
	size_t len, want_len;
	const uint8_t *got;

	(void)state;
	len = build_icmp(req, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 17,
			 8, data, sizeof(data));
	want_len = build_icmp(want, peer_mac_b, node_mac_b, IP_HOST(NODE_IP), IP_HOST(PEER_IP),
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
	len = build_icmp(req, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64,
			 8, "abcd", 4);
	want_len = build_icmp(want, peer_mac_b, node_mac_b, IP_HOST(NODE_IP), IP_HOST(PEER_IP),
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
	build_icmp(req, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 8, "", 0);
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
	len = build_icmp(f, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 0,
			 "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	len = build_icmp(f, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 13,
			 "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* Nor an echo request claiming a broadcast sender (smurf). */
	len = build_icmp(f, node_mac_b, peer_mac_b, UINT32_MAX,
			 IP_HOST(NODE_IP), 64, 8, "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* An echo request to another address is not ours to answer. */
	len = build_icmp(f, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(OTHER_IP), 64, 8,
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
	len = build_icmp(f, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 8,
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
	len = build_icmp(req, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 8,
			 data, sizeof(data));
	want_len = build_icmp(want, peer_mac_b, node_mac_b, IP_HOST(NODE_IP), IP_HOST(PEER_IP),
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
	build_icmp(f, node_mac_b, peer_mac_b, IP_HOST(PEER_IP), IP_HOST(NODE_IP), 64, 8, "", 0);
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
	const uint8_t want[FRAME_MIN] = {BCAST_MAC, NODE_MAC, ETH_ARP, ARP_ETH_IPV4, OP_REQUEST,
					 NODE_MAC,  NODE_IP,  ZERO_MAC, PEER_IP, ARP_PAD};
	struct rte_mbuf *m;

	(void)state;
	m = sp_arp_request(table, pool, PORT, IP_BE(PEER_IP));
	assert_non_null(m);
	assert_int_equal(m->port, PORT);
	assert_frame(m, want, sizeof(want));
	rte_pktmbuf_free(m);

	/* No address on port 3 (nothing to ask from), and no port 200. */
	assert_null(sp_arp_request(table, pool, 3, IP_BE(PEER_IP)));
	assert_null(sp_arp_request(table, pool, 200, IP_BE(PEER_IP)));
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
