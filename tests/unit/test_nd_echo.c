/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's own IPv6 address (src/decap/nd_echo.c), through sp_decap_burst():
 * what is answered and how, which advertisements go up to the management
 * thread, and each frame that is neither counted under its reason; the
 * solicitations the node sends. The byte-for-byte answers to scapy's frames
 * are test_arp_icmp.py's.
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
#define OFF (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr)) /* the ICMPv6 message */
#define NS_LEN 24 /* type, code, checksum, reserved, target */
#define NA_FRAME (OFF + 32) /* the advertisement and its target link-layer option */

static const struct rte_ether_addr node_mac = {{0x02, 0, 0, 0, 0, 0x01}};
static const struct rte_ether_addr peer_mac = {{0x02, 0, 0, 0, 0, 0x02}};
static const struct rte_ether_addr group_mac = {{0x33, 0x33, 0xff, 0, 0, 0x01}};
static const uint8_t node6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t peer6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x09};
static const uint8_t group6[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
static const uint8_t unspecified6[16];

static struct sp_decap_table *table;
static struct rte_mempool *pool;
static struct sp_lcore_stats st;
static struct sp_decap_out out;

static int
setup(void **state)
{
	(void)state;
	pool = sp_test_eal_init();
	table = sp_decap_create("nd_echo_test", 16, SOCKET_ID_ANY);
	if (table == NULL || sp_decap_set_port(table, PORT, RTE_BE32(RTE_IPV4(10, 0, 0, 1)),
					       &node_mac) != 0)
		return -1;
	sp_decap_set_ipv6(table, PORT, node6);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sp_decap_free(table);
	return 0;
}

/* The ICMPv6 message's checksum (its field zero) for its IPv6 header. */
static uint16_t
icmpv6_cksum(const struct rte_ipv6_hdr *ip)
{
	return (uint16_t)~sp_cksum_fold((uint64_t)rte_raw_cksum(ip + 1,
								 rte_be_to_cpu_16(ip->payload_len)) +
				       rte_ipv6_phdr_cksum(ip, 0));
}

/* An ICMPv6 message of len bytes (type, code, then body) from src to dst: the frame's length. */
static size_t
build(uint8_t *f, const struct rte_ether_addr *dst_mac, const uint8_t src[16],
      const uint8_t dst[16], uint8_t hop_limit, uint8_t type, uint8_t code, const void *body,
      uint16_t body_len)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint8_t *icmp = (uint8_t *)(ip + 1);

	sp_test_eth(f, dst_mac, &peer_mac, RTE_ETHER_TYPE_IPV6);
	*ip = (struct rte_ipv6_hdr){.vtc_flow = RTE_BE32(6u << 28),
				    .payload_len = rte_cpu_to_be_16(4 + body_len),
				    .proto = 58, .hop_limits = hop_limit};
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	icmp[0] = type;
	icmp[1] = code;
	icmp[2] = icmp[3] = 0;
	memcpy(icmp + 4, body, body_len);
	*(uint16_t *)(icmp + 2) = icmpv6_cksum(ip);
	return OFF + 4 + body_len;
}

/* A solicitation for target: the frame's length. */
static size_t
build_ns(uint8_t *f, const struct rte_ether_addr *dst_mac, const uint8_t src[16],
	 const uint8_t dst[16], const uint8_t target[16], uint8_t code)
{
	uint8_t body[NS_LEN - 4] = {0};

	memcpy(body + 4, target, 16);
	return build(f, dst_mac, src, dst, 255, 135, code, body, sizeof(body));
}

/*
 * Decap frame (a chain split at split bytes, 0: one segment): the reason
 * counted, NONE if answered or passed up to be learned from.
 */
static enum sp_reason
receive_split(const void *frame, size_t len, size_t split)
{
	struct rte_mbuf *m = sp_test_mbuf(frame, len, split, 0);
	unsigned int r, n = 0;
	enum sp_reason why = SP_REASON_NONE;

	assert_non_null(m);
	m->port = PORT;
	memset(&st, 0, sizeof(st));
	sp_decap_burst(table, PORT, &m, 1, &out, &st);
	for (r = 0; r < SP_REASON_MAX; r++)
		if (st.reason[r] > 0) {
			n += st.reason[r];
			why = (enum sp_reason)r;
		}
	/* Exactly one of: answered, passed up, counted. */
	assert_int_equal(n + out.nb_reply + out.nb_learn, 1);
	assert_int_equal(out.nb_fwd + out.nb_host, 0);
	return why;
}

static enum sp_reason
receive(const void *frame, size_t len)
{
	return receive_split(frame, len, 0);
}

/* The reply's ICMPv6 message sums right with its pseudo-header. */
static void
assert_reply_cksum(const struct rte_mbuf *m)
{
	uint8_t f[2048];
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint16_t len;

	assert_true(rte_pktmbuf_pkt_len(m) <= sizeof(f));
	memcpy(f, rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), f), rte_pktmbuf_pkt_len(m));
	len = rte_be_to_cpu_16(ip->payload_len);
	assert_int_equal(rte_pktmbuf_pkt_len(m), OFF + len);
	assert_int_equal(sp_cksum_fold((uint64_t)rte_raw_cksum(ip + 1, len) +
				       rte_ipv6_phdr_cksum(ip, 0)), 0xffff);
}

static void
test_solicitation_advertised(void **state)
{
	uint8_t f[256];
	size_t len = build_ns(f, &group_mac, peer6, group6, node6, 0);
	const struct rte_ether_hdr *eth;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *na;

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_int_equal(out.nb_reply, 1);
	eth = rte_pktmbuf_mtod(out.reply[0], const struct rte_ether_hdr *);
	ip = (const struct rte_ipv6_hdr *)(eth + 1);
	na = (const uint8_t *)(ip + 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out.reply[0]), NA_FRAME);
	assert_true(rte_is_same_ether_addr(&eth->dst_addr, &peer_mac));
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &node_mac));
	assert_memory_equal(ip->src_addr, node6, 16);
	assert_memory_equal(ip->dst_addr, peer6, 16);
	assert_int_equal(ip->hop_limits, 255);
	assert_int_equal(na[0], 136);
	assert_int_equal(na[4], 0x60); /* solicited, override; not a router */
	assert_memory_equal(na + 8, node6, 16);
	assert_memory_equal(na + 24, ((const uint8_t[]){2, 1, 0x02, 0, 0, 0, 0, 0x01}), 8);
	assert_reply_cksum(out.reply[0]);
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_duplicate_address_detection_answered_to_all_nodes(void **state)
{
	uint8_t f[256];
	size_t len = build_ns(f, &group_mac, unspecified6, group6, node6, 0);
	const struct rte_ether_hdr *eth;
	const struct rte_ipv6_hdr *ip;

	(void)state;
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	eth = rte_pktmbuf_mtod(out.reply[0], const struct rte_ether_hdr *);
	ip = (const struct rte_ipv6_hdr *)(eth + 1);
	assert_memory_equal(eth->dst_addr.addr_bytes, ((const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}), 6);
	assert_memory_equal(ip->dst_addr, ((const uint8_t[16]){0xff, 0x02, [15] = 1}), 16);
	assert_int_equal(((const uint8_t *)(ip + 1))[4], 0x20); /* override only: not solicited */
	assert_reply_cksum(out.reply[0]);
	rte_pktmbuf_free(out.reply[0]);
	/* Such a sender asks the group, never the address itself. */
	len = build_ns(f, &node_mac, unspecified6, node6, node6, 0);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
}

static void
test_solicitations_not_answered(void **state)
{
	static const uint8_t other6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02};
	static const uint8_t multicast6[16] = {0xff, 0x02, [15] = 0x05};
	uint8_t f[256], body[NS_LEN + 4] = {0};
	size_t len;

	(void)state;
	len = build_ns(f, &group_mac, peer6, group6, other6, 0);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	len = build_ns(f, &group_mac, peer6, group6, node6, 1); /* a code other than 0 */
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	len = build_ns(f, &group_mac, multicast6, group6, node6, 0);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* A router passed it on: the hop limit is no longer 255. */
	memcpy(body + 4, node6, 16);
	len = build(f, &group_mac, peer6, group6, 64, 135, 0, body, NS_LEN - 4);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* Too short to hold a target. */
	len = build(f, &group_mac, peer6, group6, 255, 135, 0, body, 4);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* A chain of two segments, its target or its option in the second: not copied to answer. */
	len = build_ns(f, &group_mac, peer6, group6, node6, 0);
	assert_int_equal(receive_split(f, len, OFF + 10), SP_REASON_ND_IGNORED);
	memcpy(body + 4, node6, 16);
	memcpy(body + 20, ((const uint8_t[]){1, 1, 0x02, 0, 0, 0, 0, 0x02}), 8); /* its MAC */
	len = build(f, &group_mac, peer6, group6, 255, 135, 0, body, 28);
	assert_int_equal(receive_split(f, len, OFF + 28), SP_REASON_ND_IGNORED);
	/* The header itself cut by the segment: as for IPv4, truncated. */
	len = build_ns(f, &group_mac, peer6, group6, node6, 0);
	assert_int_equal(receive_split(f, len, OFF + 6), SP_REASON_TRUNCATED);
	/* Router solicitations and advertisements, redirects: neighbor discovery not answered. */
	len = build(f, &group_mac, peer6, group6, 255, 133, 0, body, 4);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	len = build(f, &node_mac, peer6, node6, 255, 134, 0, body, 12);
	assert_int_equal(receive(f, len), SP_REASON_RA_IGNORED);
	len = build(f, &node_mac, peer6, node6, 255, 137, 0, body, NS_LEN + 4);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
}

static void
test_echo_answered(void **state)
{
	uint8_t f[2048], body[1000];
	size_t len;
	const struct rte_ipv6_hdr *ip;

	(void)state;
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 7);
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, sizeof(body));
	/* Chained, the second segment starting at an odd byte: summed across it. */
	assert_int_equal(receive_split(f, len, OFF + 101), SP_REASON_NONE);
	ip = rte_pktmbuf_mtod_offset(out.reply[0], const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	assert_memory_equal(ip->src_addr, node6, 16);
	assert_memory_equal(ip->dst_addr, peer6, 16);
	assert_int_equal(ip->hop_limits, 64);
	assert_int_equal(*rte_pktmbuf_mtod_offset(out.reply[0], const uint8_t *, OFF), 129);
	assert_reply_cksum(out.reply[0]);
	rte_pktmbuf_free(out.reply[0]);
	/* Ethernet's padding after the datagram goes. */
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, 4);
	memset(f + len, 0, 20);
	assert_int_equal(receive(f, len + 20), SP_REASON_NONE);
	assert_int_equal(rte_pktmbuf_pkt_len(out.reply[0]), len);
	assert_reply_cksum(out.reply[0]);
	rte_pktmbuf_free(out.reply[0]);
}

static void
test_bad_frames_counted(void **state)
{
	uint8_t f[256], body[8] = {0};
	size_t len;

	(void)state;
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, sizeof(body));
	f[len - 1] ^= 1; /* the checksum wrong */
	assert_int_equal(receive(f, len), SP_REASON_BAD_CHECKSUM);
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, sizeof(body));
	assert_int_equal(receive(f, OFF - 1), SP_REASON_TRUNCATED);
	assert_int_equal(receive(f, len - 1), SP_REASON_TRUNCATED); /* payload length past the frame */
	f[RTE_ETHER_HDR_LEN] = 0x40; /* version 4 */
	assert_int_equal(receive(f, len), SP_REASON_BAD_IP_HEADER);
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, 0);
	f[RTE_ETHER_HDR_LEN + 5] = 2; /* payload length 2: no room for the ICMPv6 header */
	assert_int_equal(receive(f, OFF + 2), SP_REASON_TRUNCATED);
	/* To another address; to all nodes, an echo request is not answered. */
	len = build(f, &node_mac, peer6, peer6, 64, 128, 0, body, sizeof(body));
	assert_int_equal(receive(f, len), SP_REASON_NOT_LOCAL);
	len = build(f, &node_mac, peer6, ((const uint8_t[16]){0xff, 0x02, [15] = 1}), 64, 128, 0,
		    body, sizeof(body));
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* An echo request from no address has nowhere to go back to. */
	len = build(f, &node_mac, unspecified6, node6, 64, 128, 0, body, sizeof(body));
	assert_int_equal(receive(f, len), SP_REASON_ICMP_IGNORED);
	/* Another protocol than UDP (the substrate's: test_ipv6_in.c) or ICMPv6: not_udp. */
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, body, sizeof(body));
	f[RTE_ETHER_HDR_LEN + 6] = IPPROTO_TCP;
	assert_int_equal(receive(f, len), SP_REASON_NOT_UDP);
	/* A multicast group that is not the port's: its MAC is not the port's either. */
	len = build_ns(f, &(const struct rte_ether_addr){{0x33, 0x33, 0xff, 0, 0, 0x02}}, peer6,
		       ((const uint8_t[16]){0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x02}),
		       node6, 0);
	assert_int_equal(receive(f, len), SP_REASON_OTHER_MAC);
}

/* An advertisement of target from src to dst, flags, then options (opts_len bytes): its length. */
static size_t
build_na(uint8_t *f, const uint8_t src[16], const uint8_t dst[16], uint8_t hop_limit,
	 uint8_t flags, const uint8_t target[16], const uint8_t *opts, uint16_t opts_len)
{
	uint8_t body[NS_LEN - 4 + 64] = {0};
	const struct rte_ether_addr *dst_mac = dst[0] == 0xff ? &(const struct rte_ether_addr){
		{0x33, 0x33, 0, 0, 0, 1}} : &node_mac;

	body[0] = flags;
	memcpy(body + 4, target, 16);
	if (opts_len > 0)
		memcpy(body + 20, opts, opts_len);
	return build(f, dst_mac, src, dst, hop_limit, 136, 0, body, (uint16_t)(20 + opts_len));
}

static const uint8_t peer_lladdr[8] = {2, 1, 0x02, 0, 0, 0, 0, 0x09}; /* its MAC: ...:09 */
static const uint8_t all_nodes6[16] = {0xff, 0x02, [15] = 1};

/* An advertisement passed up: what the management thread reads of it. */
static void
assert_learned(const uint8_t target[16], uint8_t mac_last)
{
	struct rte_ether_addr mac;
	struct sp_ip ip;

	assert_int_equal(out.nb_learn, 1);
	assert_int_equal(out.learn[0]->port, PORT);
	assert_int_equal(sp_nd_advert_target(out.learn[0], &ip, &mac), 0);
	assert_memory_equal(ip.b, target, 16);
	assert_memory_equal(mac.addr_bytes, ((const uint8_t[]){0x02, 0, 0, 0, 0, mac_last}), 6);
	rte_pktmbuf_free(out.learn[0]);
}

static void
test_advertisements_passed_up(void **state)
{
	uint8_t f[256], opts[16];
	size_t len;

	(void)state;
	/* A port with a host path too: the host takes no IPv6, so no copy for it (receive()). */
	sp_decap_set_host(table, PORT, true);
	/* The answer to a solicitation: to the port's address, solicited. */
	len = build_na(f, peer6, node6, 255, 0x60, peer6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_learned(peer6, 0x09);
	/* A neighbor that moved tells all nodes, overriding. */
	len = build_na(f, peer6, all_nodes6, 255, 0x20, peer6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_learned(peer6, 0x09);
	/* The option after another one (a nonce, RFC 3971): found all the same. */
	memcpy(opts, ((const uint8_t[]){14, 1, 1, 2, 3, 4, 5, 6}), 8);
	memcpy(opts + 8, ((const uint8_t[]){2, 1, 0x02, 0, 0, 0, 0, 0x0a}), 8);
	len = build_na(f, peer6, node6, 255, 0x40, peer6, opts, 16);
	assert_int_equal(receive(f, len), SP_REASON_NONE);
	assert_learned(peer6, 0x0a);
	sp_decap_set_host(table, PORT, false);
}

static void
test_advertisements_ignored(void **state)
{
	static const uint8_t multicast6[16] = {0xff, 0x02, [15] = 0x05};
	uint8_t f[256], bad[8];
	size_t len;

	(void)state;
	/* To the address but not solicited; to all nodes but not overriding. */
	len = build_na(f, peer6, node6, 255, 0x20, peer6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	len = build_na(f, peer6, all_nodes6, 255, 0x40, peer6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* No target link-layer option: nothing to learn. */
	len = build_na(f, peer6, node6, 255, 0x60, peer6, NULL, 0);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* An option of length 0, and one that runs past the message. */
	memcpy(bad, peer_lladdr, 8);
	bad[1] = 0;
	len = build_na(f, peer6, node6, 255, 0x60, peer6, bad, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	bad[1] = 2;
	len = build_na(f, peer6, node6, 255, 0x60, peer6, bad, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* A router passed it on. */
	len = build_na(f, peer6, node6, 64, 0x60, peer6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* The port's own address claimed, a multicast target, a multicast MAC. */
	len = build_na(f, peer6, node6, 255, 0x60, node6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	len = build_na(f, peer6, node6, 255, 0x60, multicast6, peer_lladdr, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	memcpy(bad, peer_lladdr, 8);
	bad[2] = 0x03;
	len = build_na(f, peer6, node6, 255, 0x60, peer6, bad, 8);
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
	/* A code other than 0. */
	len = build_na(f, peer6, node6, 255, 0x60, peer6, peer_lladdr, 8);
	f[OFF + 1] = 1;
	f[OFF + 2] = f[OFF + 3] = 0;
	*(uint16_t *)(f + OFF + 2) = icmpv6_cksum((const struct rte_ipv6_hdr *)(f + RTE_ETHER_HDR_LEN));
	assert_int_equal(receive(f, len), SP_REASON_ND_IGNORED);
}

/* The solicitation the management thread sends for an unresolved IPv6 next hop. */
static void
test_solicitation_built(void **state)
{
	static const uint8_t group9[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x09};
	const struct sp_ip target = sp_ip_v6(peer6), v4 = sp_ip_v4(RTE_BE32(RTE_IPV4(10, 0, 0, 9)));
	struct rte_mbuf *m = sp_nd_solicit(table, pool, PORT, &target);
	const struct rte_ether_hdr *eth;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *ns;

	(void)state;
	assert_non_null(m);
	assert_int_equal(m->port, PORT);
	assert_int_equal(rte_pktmbuf_pkt_len(m), NA_FRAME);
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	ip = (const struct rte_ipv6_hdr *)(eth + 1);
	ns = (const uint8_t *)(ip + 1);
	assert_memory_equal(eth->dst_addr.addr_bytes, ((const uint8_t[]){0x33, 0x33, 0xff, 0, 0, 9}),
			    6);
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &node_mac));
	assert_int_equal(eth->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV6));
	assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow), 6u << 28);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 32);
	assert_int_equal(ip->proto, 58);
	assert_int_equal(ip->hop_limits, 255);
	assert_memory_equal(ip->src_addr, node6, 16);
	assert_memory_equal(ip->dst_addr, group9, 16);
	assert_memory_equal(ns, ((const uint8_t[]){135, 0}), 2);
	assert_memory_equal(ns + 4, ((const uint8_t[4]){0}), 4);
	assert_memory_equal(ns + 8, peer6, 16);
	assert_memory_equal(ns + 24, ((const uint8_t[]){1, 1, 0x02, 0, 0, 0, 0, 0x01}), 8);
	assert_reply_cksum(m);
	rte_pktmbuf_free(m);
	/* An IPv4 next hop is ARP's; a port without an IPv6 address cannot solicit. */
	assert_null(sp_nd_solicit(table, pool, PORT, &v4));
	sp_decap_set_ipv6(table, PORT, NULL);
	assert_null(sp_nd_solicit(table, pool, PORT, &target));
	sp_decap_set_ipv6(table, PORT, node6);
}

static void
test_port_without_ipv6(void **state)
{
	uint8_t f[256];
	size_t len = build_ns(f, &group_mac, peer6, group6, node6, 0);

	(void)state;
	sp_decap_set_ipv6(table, PORT, NULL);
	assert_int_equal(receive(f, len), SP_REASON_OTHER_MAC); /* its group's MAC is no one's */
	len = build(f, &node_mac, peer6, node6, 64, 128, 0, "x", 1);
	assert_int_equal(receive(f, len), SP_REASON_NOT_IPV4);
	sp_decap_set_ipv6(table, PORT, node6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_solicitation_advertised),
		cmocka_unit_test(test_duplicate_address_detection_answered_to_all_nodes),
		cmocka_unit_test(test_solicitations_not_answered),
		cmocka_unit_test(test_echo_answered),
		cmocka_unit_test(test_bad_frames_counted),
		cmocka_unit_test(test_advertisements_passed_up),
		cmocka_unit_test(test_advertisements_ignored),
		cmocka_unit_test(test_solicitation_built),
		cmocka_unit_test(test_port_without_ipv6),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
