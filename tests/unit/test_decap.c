/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Substrate decap as a slice sees it: which frames reach it, with what data
 * offset, length and metadata, and how every other frame is counted.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "decap/decap.h"
#include "decap/decap_worker.h"
#include "stats/stats.h"
#include "sp_test.h"
#include "sp_test_frame.h"

#define PORT 1
#define PORT2 2
#define FRAME_MIN SP_TEST_FRAME_MIN
#define HDRS 42 /* Ethernet + IPv4 + UDP */

#define NODE_IP RTE_IPV4(10, 0, 0, 1)
#define NODE2_IP RTE_IPV4(10, 0, 0, 9) /* PORT2's address */
#define PEER_IP RTE_IPV4(10, 0, 0, 2)
#define UDP_A 7000 /* slice 5, endpoint 9 */
#define UDP_B 7001 /* slice 6, endpoint 10 */

static const struct rte_ether_addr node_mac = {{0x02, 0, 0, 0, 0, 0x01}};
static const struct rte_ether_addr node2_mac = {{0x02, 0, 0, 0, 0, 0x09}};
static const struct rte_ether_addr peer_mac = {{0x02, 0, 0, 0, 0, 0x02}};

static struct sp_decap_table *table;
static struct rte_mempool *pool;
static struct sp_lcore_stats st;
static struct sp_decap_out out;

static int
setup(void **state)
{
	(void)state;
	pool = sp_test_eal_init();
	table = sp_decap_create("decap_test", 16, SOCKET_ID_ANY);
	if (table == NULL || sp_decap_set_port(table, PORT, RTE_BE32(NODE_IP), &node_mac) != 0 ||
	    sp_decap_set_port(table, PORT2, RTE_BE32(NODE2_IP), &node2_mac) != 0)
		return -1;
	if (sp_decap_add_endpoint(table, PORT, RTE_BE32(NODE_IP), SP_L4_UDP, RTE_BE16(UDP_A), 5, 9, false) != 0 ||
	    sp_decap_add_endpoint(table, PORT, RTE_BE32(NODE_IP), SP_L4_UDP, RTE_BE16(UDP_B), 6, 10, false) != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sp_decap_free(table);
	return 0;
}

/* Ethernet (peer -> node) and IPv4 (to dst, TTL 64) headers for l4_len bytes: their length. */
static size_t
headers(uint8_t *f, uint32_t dst, uint8_t proto, uint16_t l4_len)
{
	const struct sp_test_ip ip = {.src = PEER_IP, .dst = dst, .proto = proto, .ttl = 64};
	size_t n = sp_test_eth(f, &node_mac, &peer_mac, RTE_ETHER_TYPE_IPV4);

	return n + sp_test_ipv4(f + n, &ip, l4_len);
}

/* Ethernet (peer -> node) + IPv4 around the given L4 bytes. */
static size_t
build_ipv4(uint8_t *f, uint32_t dst, uint8_t proto, const void *l4, uint16_t l4_len)
{
	size_t n = headers(f, dst, proto, l4_len);

	memcpy(f + n, l4, l4_len);
	return n + l4_len;
}

/* A UDP datagram to dst:dst_port carrying payload, UDP checksum included. */
static size_t
build_udp(uint8_t *f, uint32_t dst, uint16_t dst_port, const void *payload, uint16_t len)
{
	size_t n = headers(f, dst, IPPROTO_UDP, 8 + len);

	n += sp_test_udp(f + n, 40000, dst_port, len);
	memcpy(f + n, payload, len);
	sp_test_udp_cksum(f + RTE_ETHER_HDR_LEN);
	return n + len;
}

/* After editing the IPv4 header in place. */
static void
fix_ip_cksum(uint8_t *f)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static unsigned int
nb_drops(void)
{
	unsigned int r, n = 0;

	for (r = 0; r < SP_REASON_MAX; r++)
		n += st.reason[r];
	return n;
}

/*
 * Decap one frame received on port, with the device's flags (its checksum
 * verdict); returns the drop reason counted, or SP_REASON_NONE.
 */
static enum sp_reason
receive_flagged(uint16_t port, const void *frame, size_t len, uint64_t flags)
{
	struct rte_mbuf *m = sp_test_pkt(frame, len, port);
	unsigned int r;

	assert_non_null(m);
	m->ol_flags |= flags;
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, port, &m, 1, &out, &st);
	assert_int_equal(st.port[port].rx.pkts, 1);
	assert_int_equal(st.port[port].rx.bytes, len);
	assert_int_equal(nb_drops() + out.nb_fwd + out.nb_reply + out.nb_learn, 1);
	for (r = 0; r < SP_REASON_MAX; r++)
		if (st.reason[r] != 0)
			return r;
	return SP_REASON_NONE;
}

static enum sp_reason
receive_on(uint16_t port, const void *frame, size_t len)
{
	return receive_flagged(port, frame, len, 0);
}

static enum sp_reason
receive(const void *frame, size_t len)
{
	return receive_on(PORT, frame, len);
}

/* The one forwarded packet carries exactly payload, for slice/endpoint. */
static void
assert_forwarded(const void *payload, uint16_t len, uint16_t slice, uint16_t ep)
{
	struct rte_mbuf *m;

	assert_int_equal(out.nb_fwd, 1);
	m = out.fwd[0];
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	assert_int_equal(rte_pktmbuf_data_len(m), len);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), payload, len);
	assert_int_equal(sp_meta(m)->slice, slice);
	assert_int_equal(sp_meta(m)->in_ep, ep);
	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	rte_pktmbuf_free(m);
}

static void
test_valid(void **state)
{
	const char payload[] = "inner hdr";
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, payload, sizeof(payload));
	struct rte_mbuf *m = sp_test_pkt(f, len, PORT);
	char *start = rte_pktmbuf_mtod(m, char *);

	(void)state;
	memset(&st, 0, sizeof(st));
	memset(rte_mbuf_to_priv(m), 0xee, sizeof(struct sp_meta)); /* stale metadata */
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	assert_int_equal(out.nb_reply + out.nb_learn + nb_drops(), 0);
	assert_int_equal(out.nb_fwd, 1);
	/* Stripped by moving the data offset: the payload was not copied. */
	assert_ptr_equal(rte_pktmbuf_mtod(out.fwd[0], char *), start + HDRS);
	assert_int_equal(sp_meta(out.fwd[0])->reason, 0);
	assert_int_equal(sp_meta(out.fwd[0])->filter, 0);

	/* Counted as the whole frame received. */
	assert_int_equal(st.port[PORT].rx.pkts, 1);
	assert_int_equal(st.port[PORT].rx.bytes, len);
	assert_int_equal(st.slice[5].rx.pkts, 1);
	assert_int_equal(st.slice[5].rx.bytes, len);
	assert_int_equal(st.endpoint[9].rx.pkts, 1);
	assert_int_equal(st.endpoint[9].rx.bytes, len);
	assert_int_equal(st.slice[6].rx.pkts, 0);
	assert_forwarded(payload, sizeof(payload), 5, 9);

	len = build_udp(f, NODE_IP, UDP_B, "b", 1);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("b", 1, 6, 10);
}

static void
test_padding_trimmed(void **state)
{
	uint8_t f[FRAME_MIN];
	size_t len = build_udp(f, NODE_IP, UDP_A, "xy", 2);

	(void)state;
	memset(f + len, 0xaa, FRAME_MIN - len);
	assert_int_equal(receive(f, FRAME_MIN), SP_REASON_NONE);
	assert_int_equal(st.slice[5].rx.bytes, FRAME_MIN);
	assert_forwarded("xy", 2, 5, 9);
}

static void
test_udp_length_trimmed(void **state)
{
	/* UDP length shorter than the IPv4 payload: the slice gets the UDP length. */
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "abcdef", 6);

	(void)state;
	f[38] = 0;
	f[39] = 8 + 4;
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("abcd", 4, 5, 9);
}

/* Four NOP options into the frame's IPv4 header (IHL 6, checksum right): its new length. */
static size_t
add_ip_options(uint8_t *f, size_t len)
{
	memmove(f + 38, f + 34, len - 34);
	memset(f + 34, 1, 4);
	f[14] = 0x46;
	f[17] += 4;
	fix_ip_cksum(f);
	return len + 4;
}

static void
test_ip_options_stripped(void **state)
{
	uint8_t f[128];
	size_t len = add_ip_options(f, build_udp(f, NODE_IP, UDP_A, "opt", 3));

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("opt", 3, 5, 9);
}

static void
test_unknown_port(void **state)
{
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, 7002, "x", 1);

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NO_ENDPOINT);
	/* The endpoint belongs to PORT: the same datagram on PORT2's address misses. */
	len = build_udp(f, NODE2_IP, UDP_A, "x", 1);
	memcpy(f, &node2_mac, 6);
	assert_int_equal(receive_on(PORT2, f, len), SP_REASON_NO_ENDPOINT);
}

static void
test_not_local(void **state)
{
	uint8_t f[128];
	size_t len = build_udp(f, RTE_IPV4(10, 0, 0, 77), UDP_A, "x", 1);

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NOT_LOCAL);
	/* Another port's address does not count on this one. */
	len = build_udp(f, NODE2_IP, UDP_A, "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_NOT_LOCAL);
}

static void
test_not_ipv4(void **state)
{
	uint8_t f[128], vlan[132];
	size_t len = build_udp(f, NODE_IP, UDP_A, "x", 1);

	(void)state;
	/* 802.1Q tag 5 in front of the same IPv4 packet. */
	memcpy(vlan, f, 12);
	vlan[12] = 0x81;
	vlan[13] = 0x00;
	vlan[14] = 0x00;
	vlan[15] = 0x05;
	memcpy(vlan + 16, f + 12, len - 12);
	assert_int_equal(receive(vlan, len + 4), SP_REASON_NOT_IPV4);

	f[12] = 0x86; /* IPv6 */
	f[13] = 0xdd;
	assert_int_equal(receive(f, len), SP_REASON_NOT_IPV4);
}

static void
test_truncated(void **state)
{
	static const size_t cut[] = {
		10, /* inside the Ethernet header */
		20, /* inside the IPv4 header */
		33, /* one byte short of the IPv4 header */
		40, /* inside the UDP header: less than the IPv4 total length */
		50, /* inside the payload */
	};
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "0123456789", 10);
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cut); i++)
		assert_int_equal(receive(f, cut[i]), SP_REASON_TRUNCATED);

	/* Complete IPv4 packet of 26 bytes: 6 bytes cannot hold a UDP header. */
	len = build_udp(f, NODE_IP, UDP_A, "", 0);
	f[17] = 26;
	fix_ip_cksum(f);
	assert_int_equal(receive(f, len - 2), SP_REASON_TRUNCATED);

	/* UDP length below its own header, and beyond the IPv4 payload. */
	len = build_udp(f, NODE_IP, UDP_A, "0123456789", 10);
	f[39] = 7;
	assert_int_equal(receive(f, len), SP_REASON_TRUNCATED);
	f[39] = 19;
	assert_int_equal(receive(f, len), SP_REASON_TRUNCATED);
}

static void
test_bad_ip_header(void **state)
{
	uint8_t f[128], g[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "x", 1);

	(void)state;
	memcpy(g, f, len);
	g[14] = 0x44; /* IHL 4 */
	fix_ip_cksum(g);
	assert_int_equal(receive(g, len), SP_REASON_BAD_IP_HEADER);

	memcpy(g, f, len);
	g[14] = 0x65; /* version 6 */
	fix_ip_cksum(g);
	assert_int_equal(receive(g, len), SP_REASON_BAD_IP_HEADER);

	memcpy(g, f, len);
	g[17] = 19; /* total length below the header length */
	fix_ip_cksum(g);
	assert_int_equal(receive(g, len), SP_REASON_BAD_IP_HEADER);

	memcpy(g, f, len);
	g[24] ^= 0x01; /* checksum */
	assert_int_equal(receive(g, len), SP_REASON_BAD_IP_HEADER);

	memcpy(g, f, len);
	g[22] = 1; /* TTL changed, checksum not updated */
	assert_int_equal(receive(g, len), SP_REASON_BAD_IP_HEADER);
}

/*
 * A port whose device checks IPv4 checksums (rx offload) takes its word:
 * GOOD (or NONE: the header whole) passes a frame whatever the checksum
 * field says, BAD drops one whose checksum is right; without a verdict
 * (UNKNOWN) the software check decides. The common datagram and a header
 * with options (classify()'s checks) alike. A port without the offload
 * reads no flag.
 */
static void
test_rx_checksum_verdict(void **state)
{
	uint8_t f[128], g[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "ok", 2);

	(void)state;
	memcpy(g, f, len);
	g[24] ^= 0x01; /* checksum wrong */
	assert_int_equal(receive_flagged(PORT, g, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD),
			 SP_REASON_BAD_IP_HEADER);
	assert_int_equal(receive_flagged(PORT, f, len, RTE_MBUF_F_RX_IP_CKSUM_BAD), SP_REASON_NONE);
	assert_forwarded("ok", 2, 5, 9);

	sp_decap_set_rx_cksum(table, PORT, true);
	assert_int_equal(receive_flagged(PORT, g, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD), SP_REASON_NONE);
	assert_forwarded("ok", 2, 5, 9);
	assert_int_equal(receive_flagged(PORT, g, len, RTE_MBUF_F_RX_IP_CKSUM_NONE), SP_REASON_NONE);
	assert_forwarded("ok", 2, 5, 9);
	assert_int_equal(receive_flagged(PORT, g, len, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN),
			 SP_REASON_BAD_IP_HEADER);
	assert_int_equal(out.nb_fwd, 0);
	assert_int_equal(receive_flagged(PORT, f, len, RTE_MBUF_F_RX_IP_CKSUM_BAD),
			 SP_REASON_BAD_IP_HEADER);
	assert_int_equal(out.nb_fwd, 0);

	/* With options (classify()'s checks). */
	len = add_ip_options(f, len);
	assert_int_equal(receive_flagged(PORT, f, len, RTE_MBUF_F_RX_IP_CKSUM_BAD),
			 SP_REASON_BAD_IP_HEADER);
	f[24] ^= 0x01;
	assert_int_equal(receive_flagged(PORT, f, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD), SP_REASON_NONE);
	assert_forwarded("ok", 2, 5, 9);
	assert_int_equal(receive_flagged(PORT, f, len, 0), SP_REASON_BAD_IP_HEADER);
	sp_decap_set_rx_cksum(table, PORT, false);
	assert_int_equal(receive_flagged(PORT, f, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD),
			 SP_REASON_BAD_IP_HEADER);
}

static void
test_fragment(void **state)
{
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "x", 1);

	(void)state;
	f[20] = 0x20; /* more fragments */
	fix_ip_cksum(f);
	assert_int_equal(receive(f, len), SP_REASON_FRAGMENT);
	f[20] = 0x00;
	f[21] = 0x01; /* offset 8 */
	fix_ip_cksum(f);
	assert_int_equal(receive(f, len), SP_REASON_FRAGMENT);
	f[20] = 0x40; /* don't fragment: a whole datagram */
	f[21] = 0x00;
	fix_ip_cksum(f);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("x", 1, 5, 9);
}

static void
test_not_udp(void **state)
{
	const uint8_t tcp[20] = {0x9c, 0x40, 0x1b, 0x58, [12] = 0x50, [13] = 0x02};
	uint8_t f[128];
	size_t len = build_ipv4(f, NODE_IP, IPPROTO_TCP, tcp, sizeof(tcp));

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NOT_UDP);
}

static void
test_other_mac(void **state)
{
	const struct rte_ether_addr other = {{0x02, 0, 0, 0, 0, 0x99}};
	const struct rte_ether_addr mcast = {{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}};
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, UDP_A, "x", 1);

	(void)state;
	memcpy(f, &other, 6);
	assert_int_equal(receive(f, len), SP_REASON_OTHER_MAC);
	memcpy(f, &mcast, 6);
	assert_int_equal(receive(f, len), SP_REASON_OTHER_MAC);
	/* PORT2's MAC is not PORT's. */
	memcpy(f, &node2_mac, 6);
	assert_int_equal(receive(f, len), SP_REASON_OTHER_MAC);
}

static void
test_broadcast_ipv4(void **state)
{
	uint8_t f[128];
	size_t len = build_udp(f, UINT32_MAX, UDP_A, "x", 1);

	(void)state;
	memset(f, 0xff, 6);
	assert_int_equal(receive(f, len), SP_REASON_NOT_LOCAL);
}

/* An ARP request from 10.0.0.<last> for the node. */
static size_t
build_arp_request(uint8_t *f, uint8_t last)
{
	const struct sp_test_arp req = {.eth_dst = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
					.eth_src = peer_mac, .op = RTE_ARP_OP_REQUEST,
					.sha = peer_mac, .spa = RTE_IPV4(10, 0, 0, last),
					.tpa = NODE_IP};

	return sp_test_arp(f, &req);
}

/* An ICMP echo request whose one data byte is id. */
static size_t
build_echo(uint8_t *f, uint8_t id)
{
	size_t n = headers(f, NODE_IP, IPPROTO_ICMP, 9);

	return n + sp_test_icmp(f + n, RTE_IP_ICMP_ECHO_REQUEST, 1, 1, &id, 1);
}

/* Frame i of the mixed burst; kind = i % 8. */
static size_t
build_mixed(uint8_t *f, uint8_t i)
{
	size_t len;

	switch (i % 8) {
	case 0:
		return build_udp(f, NODE_IP, UDP_A, &i, 1);
	case 1:
		return build_udp(f, NODE_IP, UDP_B, &i, 1);
	case 2:
		return build_udp(f, NODE_IP, 7002, &i, 1);
	case 3:
		return build_arp_request(f, i);
	case 4:
		return build_echo(f, i);
	case 5:
		len = build_udp(f, NODE_IP, UDP_A, &i, 1);
		f[0] = 0x0e; /* another host's MAC */
		return len;
	case 6:
		len = build_udp(f, NODE_IP, UDP_A, &i, 1);
		f[24] ^= 0xff; /* IPv4 checksum */
		return len;
	default:
		len = build_udp(f, NODE_IP, UDP_A, &i, 1);
		memset(f + len, 0, FRAME_MIN - len); /* padded */
		return FRAME_MIN;
	}
}

static void
test_mixed_burst(void **state)
{
	struct rte_mbuf *pkts[SP_BURST];
	unsigned int avail = rte_mempool_avail_count(pool);
	uint64_t bytes = 0;
	uint8_t f[128];
	uint16_t i, fwd = 0, reply = 0;

	(void)state;
	for (i = 0; i < SP_BURST; i++) {
		size_t len = build_mixed(f, (uint8_t)i);

		pkts[i] = sp_test_pkt(f, len, PORT);
		assert_non_null(pkts[i]);
		bytes += len;
	}
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, pkts, SP_BURST, &out, &st);

	assert_int_equal(st.port[PORT].rx.pkts, SP_BURST);
	assert_int_equal(st.port[PORT].rx.bytes, bytes);
	assert_int_equal(out.nb_fwd, 12);
	assert_int_equal(out.nb_reply, 8);
	assert_int_equal(out.nb_learn, 0);
	assert_int_equal(st.reason[SP_REASON_NO_ENDPOINT], 4);
	assert_int_equal(st.reason[SP_REASON_OTHER_MAC], 4);
	assert_int_equal(st.reason[SP_REASON_BAD_IP_HEADER], 4);
	assert_int_equal(nb_drops(), 12);
	assert_int_equal(st.slice[5].rx.pkts, 8);
	assert_int_equal(st.slice[6].rx.pkts, 4);
	assert_int_equal(st.endpoint[9].rx.pkts, 8);
	assert_int_equal(st.endpoint[10].rx.pkts, 4);
	/* Dropped frames went back to the pool; the rest are ours to free. */
	assert_int_equal(rte_mempool_avail_count(pool), avail - out.nb_fwd - out.nb_reply);

	/* Each output keeps the input order. */
	for (i = 0; i < SP_BURST; i++) {
		switch (i % 8) {
		case 0:
		case 1:
		case 7:
			assert_int_equal(*rte_pktmbuf_mtod(out.fwd[fwd], uint8_t *), i);
			assert_int_equal(sp_meta(out.fwd[fwd])->slice, i % 8 == 1 ? 6 : 5);
			fwd++;
			break;
		case 3: /* ARP reply: target IP is the requester's */
			assert_int_equal(rte_pktmbuf_mtod(out.reply[reply], uint8_t *)[41], i);
			reply++;
			break;
		case 4: /* echo reply: data byte */
			assert_int_equal(rte_pktmbuf_mtod(out.reply[reply], uint8_t *)[42], i);
			reply++;
			break;
		}
	}
	rte_pktmbuf_free_bulk(out.fwd, out.nb_fwd);
	rte_pktmbuf_free_bulk(out.reply, out.nb_reply);
	assert_int_equal(rte_mempool_avail_count(pool), avail);
}

static void
test_empty_burst(void **state)
{
	(void)state;
	memset(&st, 0, sizeof(st));
	out.nb_fwd = out.nb_reply = out.nb_learn = 7;
	sp_decap_burst(table, PORT, NULL, 0, &out, &st);
	assert_int_equal(out.nb_fwd + out.nb_reply + out.nb_learn, 0);
	assert_int_equal(st.port[PORT].rx.pkts, 0);
}

static void
test_endpoint_changes(void **state)
{
	const uint32_t ip = RTE_BE32(NODE_IP);
	const uint16_t udp = RTE_BE16(7100);
	uint8_t f[128];
	size_t len = build_udp(f, NODE_IP, 7100, "z", 1);

	(void)state;
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, udp, 7, 11, false), 0);
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, udp, 8, 12, false), -EEXIST);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("z", 1, 7, 11); /* the duplicate did not overwrite it */

	/* The port has one address: another one does not name a second endpoint, nor this one. */
	assert_int_equal(sp_decap_add_endpoint(table, PORT, RTE_BE32(NODE_IP + 1), SP_L4_UDP, udp, 8, 12, false),
			 -EEXIST);
	assert_int_equal(sp_decap_del_endpoint(table, PORT, RTE_BE32(NODE_IP + 1), SP_L4_UDP, udp), -ENOENT);
	/* The same UDP port on another port is another endpoint. */
	assert_int_equal(sp_decap_add_endpoint(table, PORT2, ip, SP_L4_UDP, udp, 8, 12, false), 0);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_forwarded("z", 1, 7, 11);

	assert_int_equal(sp_decap_del_endpoint(table, PORT, ip, SP_L4_UDP, udp), 0);
	assert_int_equal(receive(f, len), SP_REASON_NO_ENDPOINT);
	assert_int_equal(sp_decap_del_endpoint(table, PORT, ip, SP_L4_UDP, udp), -ENOENT);
	assert_int_equal(sp_decap_del_endpoint(table, PORT2, ip, SP_L4_UDP, udp), 0);
	assert_int_equal(sp_decap_del_endpoint(table, SP_MAX_PORTS, ip, SP_L4_UDP, udp), -EINVAL);

	assert_int_equal(sp_decap_add_endpoint(table, SP_MAX_PORTS, ip, SP_L4_UDP, 1, 1, 1, false), -EINVAL);
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, 1, SP_MAX_SLICES, 1, false), -EINVAL);
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, 1, 1, SP_MAX_ENDPOINTS, false), -EINVAL);
	assert_int_equal(sp_decap_set_port(table, SP_MAX_PORTS, 0, &node_mac), -EINVAL);
}

/* Send n copies of frame in one burst each; returns how many reached the slice. */
static unsigned int
send_copies(const uint8_t *f, size_t len, unsigned int n)
{
	unsigned int passed = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = sp_test_pkt(f, len, PORT);

		assert_non_null(m);
		sp_decap_burst(table, PORT, &m, 1, &out, &st);
		passed += out.nb_fwd;
		rte_pktmbuf_free_bulk(out.fwd, out.nb_fwd);
	}
	return passed;
}

static void
test_inbound_policed(void **state)
{
	const uint32_t ip = RTE_BE32(NODE_IP);
	static const uint8_t payload[200 - HDRS];
	uint8_t f[256];
	size_t len = build_udp(f, NODE_IP, 7200, payload, sizeof(payload));
	unsigned int later, avail = rte_mempool_avail_count(pool);

	(void)state;
	assert_int_equal(len, 200);
	/* 10 kb/s: the bucket starts full at its floor, two 2048-byte frames on the wire
	 * (33152 bits): 18 frames of 200 bytes (1792 bits each with the overhead), not 19. */
	assert_int_equal(sp_decap_set_inbound(table, 13, 10000), 0);
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, RTE_BE16(7200), 7, 13, false), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(send_copies(f, len, 30), 18);
	assert_int_equal(st.slice[7].rx.pkts, 30);
	assert_int_equal(st.endpoint[13].rx.pkts, 30);
	assert_int_equal(st.slice[7].drop.pkts, 12);
	assert_int_equal(st.slice[7].drop.bytes, 12 * len);
	assert_int_equal(st.slice[7].reason[SP_REASON_INBOUND_RATE], 12);
	assert_int_equal(st.reason[SP_REASON_INBOUND_RATE], 12);
	assert_int_equal(rte_mempool_avail_count(pool), avail); /* the dropped ones freed */

	/* 100 ms at 10 kb/s earn 1000 bits, with the 896 left: one more frame (a loaded
	 * machine may sleep longer, but not the 270 ms two would need). */
	rte_delay_us_sleep(100000);
	later = send_copies(f, len, 10);
	assert_true(later >= 1 && later <= 2);

	/* Released and reserved again without a rate: nothing is dropped. */
	assert_int_equal(sp_decap_del_endpoint(table, PORT, ip, SP_L4_UDP, RTE_BE16(7200)), 0);
	assert_int_equal(sp_decap_set_inbound(table, 13, 0), 0);
	assert_int_equal(sp_decap_add_endpoint(table, PORT, ip, SP_L4_UDP, RTE_BE16(7200), 7, 13, false), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(send_copies(f, len, 100), 100);
	assert_int_equal(st.reason[SP_REASON_INBOUND_RATE], 0);
	assert_int_equal(sp_decap_del_endpoint(table, PORT, ip, SP_L4_UDP, RTE_BE16(7200)), 0);

	assert_int_equal(sp_decap_set_inbound(table, SP_MAX_ENDPOINTS, 1), -EINVAL);
	assert_int_equal(sp_decap_set_inbound(NULL, 1, 1), -EINVAL);
}

static void
test_capacity(void **state)
{
	struct sp_decap_table *t = sp_decap_create("decap_cap", 4, SOCKET_ID_ANY);
	uint16_t udp;

	(void)state;
	assert_non_null(t);
	for (udp = 1; udp <= 4; udp++)
		assert_int_equal(sp_decap_add_endpoint(t, PORT, 1, SP_L4_UDP, udp, 1, udp, false), 0);
	assert_int_equal(sp_decap_add_endpoint(t, PORT, 1, SP_L4_UDP, 5, 1, 5, false), -ENOSPC);
	/* A deleted endpoint's room is reusable at once, however often. */
	for (udp = 5; udp < 200; udp++) {
		assert_int_equal(sp_decap_del_endpoint(t, PORT, 1, SP_L4_UDP, udp - 1), 0);
		assert_int_equal(sp_decap_add_endpoint(t, PORT, 1, SP_L4_UDP, udp, 1, 5, false), 0);
	}
	sp_decap_free(t);
	assert_null(sp_decap_create("decap_zero", 0, SOCKET_ID_ANY));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_padding_trimmed),
		cmocka_unit_test(test_udp_length_trimmed),
		cmocka_unit_test(test_ip_options_stripped),
		cmocka_unit_test(test_unknown_port),
		cmocka_unit_test(test_not_local),
		cmocka_unit_test(test_not_ipv4),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_ip_header),
		cmocka_unit_test(test_rx_checksum_verdict),
		cmocka_unit_test(test_fragment),
		cmocka_unit_test(test_not_udp),
		cmocka_unit_test(test_other_mac),
		cmocka_unit_test(test_broadcast_ipv4),
		cmocka_unit_test(test_mixed_burst),
		cmocka_unit_test(test_empty_burst),
		cmocka_unit_test(test_endpoint_changes),
		cmocka_unit_test(test_inbound_policed),
		cmocka_unit_test(test_capacity),
	};

	return cmocka_run_group_tests_name("decap", tests, setup, teardown);
}
