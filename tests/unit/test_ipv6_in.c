/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The substrate over IPv6 (src/decap/ipv6_in.c), through sp_decap_burst():
 * UDP to a port's IPv6 address reaches the endpoint of its port number,
 * stripped of 62 bytes as an IPv4 one is of 42; every other frame counted
 * under its reason (checksums, which IPv6 requires, lengths, extension
 * headers and fragments, host slices' endpoints, which stay IPv4).
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include <slicepath/cksum.h>

#include "decap/decap.h"
#include "decap/decap_worker.h"
#include "stats/stats.h"
#include "sp_test.h"
#include "sp_test_frame.h"

#define PORT 0
#define HDRS6 62 /* Ethernet + IPv6 + UDP */
#define UDP_A 7000 /* slice 5, endpoint 9 */
#define UDP_HOST 7002 /* a host slice's, whole frames */

static const struct rte_ether_addr node_mac = {{0x02, 0, 0, 0, 0, 0x01}};
static const struct rte_ether_addr peer_mac = {{0x02, 0, 0, 0, 0, 0x02}};
static const uint8_t node6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t peer6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x09};
static const uint8_t other6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x07};
#define NODE_IP RTE_BE32(RTE_IPV4(10, 0, 0, 1))

static struct sp_decap_table *table;
static struct sp_lcore_stats st;
static struct sp_decap_out out;

static int
setup(void **state)
{
	(void)state;
	sp_test_eal_init();
	table = sp_decap_create("ipv6_in_test", 16, SOCKET_ID_ANY);
	if (table == NULL || sp_decap_set_port(table, PORT, NODE_IP, &node_mac) != 0 ||
	    sp_decap_add_endpoint(table, PORT, NODE_IP, SP_L4_UDP, RTE_BE16(UDP_A), 5, 9,
				  false) != 0 ||
	    sp_decap_add_endpoint(table, PORT, NODE_IP, SP_L4_UDP, RTE_BE16(UDP_HOST), 6, 10,
				  true) != 0)
		return -1;
	sp_decap_set_ipv6(table, PORT, node6);
	sp_decap_set_host(table, PORT, true); /* its host path takes no IPv6 either */
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sp_decap_free(table);
	return 0;
}

/*
 * UDP over IPv6 from peer6 to dst, next header nh, payload of len bytes
 * (i * 3): the frame's length. The UDP checksum is right unless cksum says
 * what to write (CKSUM_RIGHT to sum it).
 */
#define CKSUM_RIGHT UINT32_MAX
static size_t
build(uint8_t *f, const uint8_t dst[16], uint8_t nh, uint16_t dport, size_t len, uint32_t cksum)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint8_t *udp = (uint8_t *)(ip + 1);
	uint16_t udp_len = (uint16_t)(8 + len);

	sp_test_eth(f, &node_mac, &peer_mac, RTE_ETHER_TYPE_IPV6);
	*ip = (struct rte_ipv6_hdr){.vtc_flow = RTE_BE32(6u << 28),
				    .payload_len = rte_cpu_to_be_16(udp_len), .proto = nh,
				    .hop_limits = 64};
	memcpy(ip->src_addr, peer6, 16);
	memcpy(ip->dst_addr, dst, 16);
	udp[0] = 0x13;
	udp[1] = 0x88; /* 5000 */
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	udp[6] = udp[7] = 0;
	for (size_t i = 0; i < len; i++)
		udp[8 + i] = (uint8_t)(i * 3);
	if (cksum == CKSUM_RIGHT) {
		uint16_t c = (uint16_t)~sp_cksum_fold((uint64_t)rte_ipv6_phdr_cksum(ip, 0) +
						      rte_raw_cksum(udp, udp_len));
		cksum = c == 0 ? 0xffff : c; /* in memory order, as summed */
	}
	memcpy(udp + 6, &(uint16_t){(uint16_t)cksum}, 2);
	return HDRS6 + len;
}

/* Decap one frame, chained at split (0: not): the reason counted, NONE if handed to a slice. */
static enum sp_reason
receive(const void *frame, size_t len, size_t split)
{
	struct rte_mbuf *m = sp_test_mbuf(frame, len, split, 0xaa);
	enum sp_reason why = SP_REASON_NONE;
	unsigned int n = 0;

	assert_non_null(m);
	m->port = PORT;
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	for (unsigned int r = 0; r < SP_REASON_MAX; r++)
		if (st.reason[r] > 0) {
			n += st.reason[r];
			why = (enum sp_reason)r;
		}
	/* Exactly one of: handed over, counted; never to the host. */
	assert_int_equal(n + out.nb_fwd, 1);
	assert_int_equal(out.nb_reply + out.nb_learn + out.nb_host, 0);
	return why;
}

static void
test_datagram_to_its_endpoint(void **state)
{
	static const size_t cases[][2] = {{0, 0}, {1, 0}, {64, 0}, {999, 0}, {999, 71}, {400, 63}};
	uint8_t f[1200];

	(void)state;
	for (size_t t = 0; t < RTE_DIM(cases); t++) {
		size_t len = build(f, node6, IPPROTO_UDP, UDP_A, cases[t][0], CKSUM_RIGHT);
		const struct sp_meta *meta;
		uint8_t got[1200];

		assert_int_equal(receive(f, len, cases[t][1]), SP_REASON_NONE);
		meta = sp_meta(out.fwd[0]);
		assert_int_equal(meta->slice, 5);
		assert_int_equal(meta->in_ep, 9);
		assert_int_equal(meta->verdict, SP_FORWARD);
		assert_int_equal(meta->result.nh_family, SP_NH_IPV4); /* all zero, as over IPv4 */
		assert_int_equal(rte_pktmbuf_pkt_len(out.fwd[0]), cases[t][0]);
		if (cases[t][0] > 0)
			assert_memory_equal(rte_pktmbuf_read(out.fwd[0], 0, cases[t][0], got),
					    f + HDRS6, cases[t][0]);
		assert_int_equal(st.slice[5].rx.pkts, 1);
		assert_int_equal(st.slice[5].rx.bytes, len);
		assert_int_equal(st.endpoint[9].rx.pkts, 1);
		rte_pktmbuf_free(out.fwd[0]);
	}
	/* Ethernet's padding after the datagram goes. */
	{
		size_t len = build(f, node6, IPPROTO_UDP, UDP_A, 10, CKSUM_RIGHT);

		memset(f + len, 0, 20);
		assert_int_equal(receive(f, len + 20, 0), SP_REASON_NONE);
		assert_int_equal(rte_pktmbuf_pkt_len(out.fwd[0]), 10);
		rte_pktmbuf_free(out.fwd[0]);
	}
}

static void
test_bad_datagrams_counted(void **state)
{
	uint8_t f[512];
	size_t len;

	(void)state;
	/* IPv6 has no "no checksum": a zero is wrong, as is any other wrong one. */
	len = build(f, node6, IPPROTO_UDP, UDP_A, 30, 0);
	assert_int_equal(receive(f, len, 0), SP_REASON_BAD_CHECKSUM);
	len = build(f, node6, IPPROTO_UDP, UDP_A, 30, CKSUM_RIGHT);
	f[len - 1] ^= 0x40;
	assert_int_equal(receive(f, len, 0), SP_REASON_BAD_CHECKSUM);
	/* A datagram whose complemented sum is 0 goes as 0xffff; as 0, sums right but is refused. */
	{
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
		uint8_t *udp = f + RTE_ETHER_HDR_LEN + sizeof(*ip);
		uint16_t s, w;
		uint32_t t;

		len = build(f, node6, IPPROTO_UDP, UDP_A, 30, 0);
		s = sp_cksum_fold((uint64_t)rte_ipv6_phdr_cksum(ip, 0) + rte_raw_cksum(udp, 38));
		memcpy(&w, udp + 8, 2);
		t = (uint32_t)w + (uint16_t)(0xffff - s); /* the payload's first word takes the rest */
		w = (uint16_t)((t & 0xffff) + (t >> 16));
		memcpy(udp + 8, &w, 2);
		assert_int_equal(sp_cksum_fold((uint64_t)rte_ipv6_phdr_cksum(ip, 0) +
					       rte_raw_cksum(udp, 38)), 0xffff);
		assert_int_equal(receive(f, len, 0), SP_REASON_BAD_CHECKSUM);
		udp[6] = udp[7] = 0xff;
		assert_int_equal(receive(f, len, 0), SP_REASON_NONE);
		rte_pktmbuf_free(out.fwd[0]);
	}
	/* UDP length past the payload, below its header; a payload too short for the header. */
	len = build(f, node6, IPPROTO_UDP, UDP_A, 30, CKSUM_RIGHT);
	f[HDRS6 - 4] = 0;
	f[HDRS6 - 3] = 39;
	assert_int_equal(receive(f, len, 0), SP_REASON_TRUNCATED);
	f[HDRS6 - 3] = 7;
	assert_int_equal(receive(f, len, 0), SP_REASON_TRUNCATED);
	len = build(f, node6, IPPROTO_UDP, UDP_A, 0, CKSUM_RIGHT);
	f[RTE_ETHER_HDR_LEN + 5] = 6; /* payload length 6 */
	assert_int_equal(receive(f, RTE_ETHER_HDR_LEN + 40 + 6, 0), SP_REASON_TRUNCATED);
	/* Payload length past the frame; version 4 in an IPv6 frame. */
	len = build(f, node6, IPPROTO_UDP, UDP_A, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len - 1, 0), SP_REASON_TRUNCATED);
	f[RTE_ETHER_HDR_LEN] = 0x40;
	assert_int_equal(receive(f, len, 0), SP_REASON_BAD_IP_HEADER);
	/* No endpoint on that UDP port; a host slice's endpoint takes no IPv6, nor the host path. */
	len = build(f, node6, IPPROTO_UDP, 7999, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_NO_ENDPOINT);
	len = build(f, node6, IPPROTO_UDP, UDP_HOST, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_NO_ENDPOINT);
	/* To another address. */
	len = build(f, other6, IPPROTO_UDP, UDP_A, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_NOT_LOCAL);
	/* Another next header, its payload a UDP datagram summed right as one: not UDP. */
	len = build(f, node6, IPPROTO_UDP, UDP_A, 30, CKSUM_RIGHT);
	f[RTE_ETHER_HDR_LEN + 6] = IPPROTO_TCP;
	assert_int_equal(receive(f, len, 0), SP_REASON_NOT_UDP);
}

/* Extension headers and fragments: reasons of their own, whatever follows them. */
static void
test_extension_headers_counted(void **state)
{
	static const uint8_t ext[] = {0, 43, 50, 51, 60, 135, 139, 140, 253, 254};
	uint8_t f[512];
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(ext); i++) {
		len = build(f, node6, ext[i], UDP_A, 30, CKSUM_RIGHT);
		assert_int_equal(receive(f, len, 0), SP_REASON_IPV6_EXT);
	}
	len = build(f, node6, 44, UDP_A, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_FRAGMENT);
	/* No next header at all, TCP: not the substrate's. */
	len = build(f, node6, 59, UDP_A, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_NOT_UDP);
	/* An extension header to another address is not ours to judge. */
	len = build(f, other6, 0, UDP_A, 30, CKSUM_RIGHT);
	assert_int_equal(receive(f, len, 0), SP_REASON_NOT_LOCAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datagram_to_its_endpoint),
		cmocka_unit_test(test_bad_datagrams_counted),
		cmocka_unit_test(test_extension_headers_counted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
