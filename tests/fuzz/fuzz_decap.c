/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: substrate decap, sp_decap_burst(), on a burst of arbitrary frames.
 *
 * Input: one byte choosing the receiving port (0 and 1 have addresses and
 * endpoints, 2 has neither), then up to SP_BURST frames, each a big-endian
 * 16-bit header and the frame bytes:
 *   bits 0-10  frame length (cut to what is left of the input)
 *   bit 11     write a correct outer IPv4 header checksum first
 *   bits 12-15 k: if k > 0, the frame is a chain of two segments, the first k * 6 bytes long
 *
 * Port 0 also has a host slice's endpoints (TCP and UDP, frames delivered
 * whole), a NAT range (UDP, TCP and echo replies, whole, no endpoint) and an
 * IPv6 address (neighbor solicitations and echo requests answered, UDP to it
 * for the fast path's endpoints of its port number, never a host slice's).
 *
 * Invariants: every frame comes out exactly once (fwd, reply, learn) or is
 * freed (the pool's in-use count is back where it was once the outputs are
 * freed); a forwarded packet carries verdict SP_FORWARD and the slice and
 * endpoint registered for its port, address, protocol and port, and holds
 * exactly the UDP payload (a host slice's: the frame, to the IPv4 total
 * length; a NAT range's: the same, for the range's slice); replies come from the port's own addresses with valid
 * checksums; the counters add up (port rx, slice and endpoint rx, drops by reason,
 * frames of the policed endpoint counted as arrived and dropped as inbound_rate).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "common/text.h"
#include "decap/decap.h"
#include "decap/decap_worker.h"
#include "stats/stats.h"
#include "fuzz_pkt.h"

#define NB_PORTS 3 /* port 2: no address, no endpoints */
#define HOST_PORT 1 /* with a host path: what no slice claims goes to the host */
#define LEN_MASK 0x07ff
#define FIX_CKSUM 0x0800
#define SPLIT_SHIFT 12
#define SPLIT_UNIT 6
#define META_FILL 0xa5

struct endpoint {
	uint16_t port;
	uint32_t ip;
	uint16_t udp; /* or TCP */
	uint16_t slice;
	uint16_t ep;
	uint64_t inbound; /* bits/s; only on a slice with no other endpoint */
	uint8_t proto;    /* 0: UDP */
	bool whole;       /* a host slice's */
};

/* Port 0's NAT range, a host slice's. */
#define NAT_FIRST 62000
#define NAT_COUNT 4
#define NAT_SLICE 8

static const struct endpoint endpoints[] = {
	{.port = 0, .ip = RTE_IPV4(10, 0, 0, 1), .udp = 5001, .slice = 1, .ep = 0},
	/* Policed so slowly that after a few frames most are dropped as inbound_rate. */
	{.port = 0, .ip = RTE_IPV4(10, 0, 0, 1), .udp = 5002, .slice = 2, .ep = 1, .inbound = 1000},
	{.port = 1, .ip = RTE_IPV4(10, 0, 1, 1), .udp = 5001, .slice = 1, .ep = 2},
	/* Slice and endpoint at the top of their ranges: the counters' last entries. */
	{.port = 1, .ip = RTE_IPV4(10, 0, 1, 1), .udp = 65535, .slice = SP_MAX_SLICES - 1,
	 .ep = SP_MAX_ENDPOINTS - 1},
	/* Port 0's address reserved on port 1: never reachable, port 1 has another address. */
	{.port = 1, .ip = RTE_IPV4(10, 0, 0, 1), .udp = 5003, .slice = 3, .ep = 3},
	/* A host slice's TCP and UDP endpoints: whole frames. */
	{.port = 0, .ip = RTE_IPV4(10, 0, 0, 1), .udp = 8080, .slice = 6, .ep = 6,
	 .proto = IPPROTO_TCP, .whole = true},
	{.port = 0, .ip = RTE_IPV4(10, 0, 0, 1), .udp = 8080, .slice = 7, .ep = 7, .whole = true},
};

static const uint32_t port_ip[NB_PORTS] = {RTE_IPV4(10, 0, 0, 1), RTE_IPV4(10, 0, 1, 1), 0};
/* Port 0's IPv6 address, 2001:db8::1. */
static const uint8_t port_ip6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
#define IP6_PORT 0
static const struct rte_ether_addr port_mac[NB_PORTS] = {
	{{0x02, 0, 0, 0, 0, 0x01}}, {{0x02, 0, 0, 0, 1, 0x01}}, {{0}}};

static struct rte_mempool *pool;
static struct sp_decap_table *table;
static struct sp_lcore_stats st;

/* One input's burst: the frames as built (after the checksum fix) and their packets. */
static struct {
	uint16_t n;
	uint16_t port;
	uint16_t len[SP_BURST];
	uint8_t bytes[SP_BURST][SP_FUZZ_MAX_PKT + 1];
	struct rte_mbuf *pkts[SP_BURST];
	uint8_t seen[SP_BURST]; /* times the frame came out */
	uint8_t scratch[SP_FUZZ_MAX_PKT + 1]; /* a segmented packet's bytes, read whole */
} b;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int i;

	(void)argc;
	(void)argv;
	pool = sp_test_eal_init();
	table = sp_decap_create("fuzz_decap", 16, SOCKET_ID_ANY);
	SP_TEST_CHECK(table != NULL, "cannot create the decap table");
	for (i = 0; i < NB_PORTS; i++)
		if (port_ip[i] != 0)
			SP_TEST_CHECK(sp_decap_set_port(table, i, rte_cpu_to_be_32(port_ip[i]),
							&port_mac[i]) == 0,
				      "cannot set port %u", i);
	sp_decap_set_host(table, HOST_PORT, true);
	sp_decap_set_ipv6(table, IP6_PORT, port_ip6);
	for (i = 0; i < RTE_DIM(endpoints); i++) {
		const struct endpoint *e = &endpoints[i];

		SP_TEST_CHECK(sp_decap_set_inbound(table, e->ep, e->inbound) == 0,
			      "cannot police endpoint %u", i);
		SP_TEST_CHECK(sp_decap_add_endpoint(table, e->port, rte_cpu_to_be_32(e->ip),
						    e->proto == IPPROTO_TCP ? SP_L4_TCP : SP_L4_UDP,
						    rte_cpu_to_be_16(e->udp), e->slice, e->ep,
						    e->whole) == 0,
			      "cannot add endpoint %u", i);
	}
	SP_TEST_CHECK(sp_decap_add_nat(table, 0, rte_cpu_to_be_32(port_ip[0]), NAT_FIRST, NAT_COUNT,
				       NAT_SLICE) == 0, "cannot add the NAT range");
	return 0;
}

static void
split_input(const uint8_t *data, size_t size)
{
	size_t off = 1;

	b.n = 0;
	b.port = size > 0 ? data[0] % NB_PORTS : 0;
	while (b.n < SP_BURST && off + 2 <= size) {
		uint16_t hdr = (uint16_t)(data[off] << 8 | data[off + 1]);
		size_t len = RTE_MIN((size_t)(hdr & LEN_MASK), size - off - 2);
		uint8_t *f = b.bytes[b.n];

		off += 2;
		memcpy(f, data + off, len);
		off += len;
		if ((hdr & FIX_CKSUM) && len >= RTE_ETHER_HDR_LEN &&
		    f[12] == 0x08 && f[13] == 0x00)
			sp_test_fix_ipv4_cksum(f + RTE_ETHER_HDR_LEN, len - RTE_ETHER_HDR_LEN);
		b.len[b.n] = (uint16_t)len;
		b.pkts[b.n] = sp_fuzz_mbuf(f, len, (size_t)(hdr >> SPLIT_SHIFT) * SPLIT_UNIT,
					   META_FILL);
		b.seen[b.n] = 0;
		b.n++;
	}
}

/* Which input frame m is; each may come out once. */
static unsigned int
frame_of(const struct rte_mbuf *m, const char *where)
{
	for (unsigned int i = 0; i < b.n; i++) {
		if (b.pkts[i] != m)
			continue;
		SP_TEST_CHECK(b.seen[i] == 0, "frame %u came out twice (last in %s)", i, where);
		SP_TEST_CHECK(rte_mbuf_refcnt_read(m) == 1, "frame %u in %s has refcnt %u", i,
			      where, rte_mbuf_refcnt_read(m));
		b.seen[i] = 1;
		return i;
	}
	sp_test_fail("%s holds a packet that was not in the burst", where);
}

static const struct endpoint *
find_endpoint(uint16_t port, uint32_t ip, uint8_t proto, uint16_t udp)
{
	for (unsigned int i = 0; i < RTE_DIM(endpoints); i++)
		if (endpoints[i].port == port && endpoints[i].ip == ip && endpoints[i].udp == udp &&
		    endpoints[i].proto == (proto == IPPROTO_TCP ? IPPROTO_TCP : 0))
			return &endpoints[i];
	return NULL;
}

/* Is frame f's destination port (an echo reply's identifier) in the NAT range? */
static bool
to_nat_range(const uint8_t *f, size_t ihl)
{
	const uint8_t *l4 = f + RTE_ETHER_HDR_LEN + ihl;
	uint16_t num = f[23] == IPPROTO_ICMP ? be16_at(l4 + 4) : be16_at(l4 + 2);

	return (f[23] != IPPROTO_ICMP || l4[0] == RTE_IP_ICMP_ECHO_REPLY) &&
	       num >= NAT_FIRST && num < NAT_FIRST + NAT_COUNT;
}

/*
 * A host slice's frame (an endpoint's, or the NAT range's): the frame itself,
 * to its IPv4 length (a datagram's: to its UDP length, as decap cuts it).
 */
static void
check_whole(struct rte_mbuf *m, unsigned int i, size_t ihl)
{
	const uint8_t *f = b.bytes[i];
	size_t len = RTE_ETHER_HDR_LEN + (f[23] == IPPROTO_UDP ?
					  ihl + be16_at(f + RTE_ETHER_HDR_LEN + ihl + 4) :
					  be16_at(f + 16));
	const void *p;

	SP_TEST_CHECK(len >= RTE_ETHER_HDR_LEN + ihl && len <= b.len[i] &&
		      rte_pktmbuf_pkt_len(m) == len,
		      "frame %u: %u bytes handed whole, IPv4 says %zu", i, rte_pktmbuf_pkt_len(m), len);
	p = rte_pktmbuf_read(m, 0, len, b.scratch);
	SP_TEST_CHECK(p != NULL && memcmp(p, f, len) == 0, "frame %u: not handed over unchanged", i);
}

/* A forwarded packet: the right slice and endpoint, and exactly the UDP payload. */
/*
 * A datagram handed over from IPv6 (frame i's, f): to port 0's IPv6 address,
 * UDP straight after the header, the checksum right (and not zero), for a
 * fast-path endpoint of its port number; m holds exactly its payload.
 */
static const struct endpoint *
check_fwd6(struct rte_mbuf *m, unsigned int i, const uint8_t *f)
{
	const uint8_t *udp = f + RTE_ETHER_HDR_LEN + 40;
	const struct sp_meta *meta = sp_meta(m);
	const rte_be32_t next_header = RTE_BE32(IPPROTO_UDP);
	uint8_t copy[SP_FUZZ_MAX_PKT + 1];
	const struct endpoint *e;
	size_t udp_len;
	const void *p;

	SP_TEST_CHECK(b.port == IP6_PORT && b.len[i] >= RTE_ETHER_HDR_LEN + 40 + 8 &&
			      f[RTE_ETHER_HDR_LEN + 6] == IPPROTO_UDP &&
			      memcmp(f + RTE_ETHER_HDR_LEN + 24, port_ip6, 16) == 0,
		      "frame %u forwarded from IPv6 but not UDP to port 0's address", i);
	e = find_endpoint(b.port, port_ip[b.port], IPPROTO_UDP, be16_at(udp + 2));
	SP_TEST_CHECK(e != NULL && !e->whole && meta->in_ep != SP_ENDPOINT_NAT &&
			      meta->slice == e->slice && meta->in_ep == e->ep &&
			      meta->verdict == SP_FORWARD,
		      "frame %u over IPv6 handed to slice %u endpoint %u: not a fast path's endpoint "
		      "of its port number", i, meta->slice, meta->in_ep);
	udp_len = be16_at(udp + 4);
	SP_TEST_CHECK(udp_len >= 8 && RTE_ETHER_HDR_LEN + 40 + udp_len <= b.len[i] &&
			      udp_len <= be16_at(f + RTE_ETHER_HDR_LEN + 4) &&
			      rte_pktmbuf_pkt_len(m) == udp_len - 8,
		      "frame %u over IPv6: %u bytes forwarded, UDP length %zu", i,
		      rte_pktmbuf_pkt_len(m), udp_len);
	SP_TEST_CHECK(be16_at(udp + 6) != 0 &&
			      sp_cksum_fold((uint64_t)rte_raw_cksum(f + RTE_ETHER_HDR_LEN + 8, 32) +
					    rte_raw_cksum(&next_header, 4) +
					    rte_cpu_to_be_16((uint16_t)udp_len) +
					    rte_raw_cksum(udp, udp_len)) == 0xffff,
		      "frame %u over IPv6 forwarded with a wrong UDP checksum", i);
	p = rte_pktmbuf_read(m, 0, udp_len - 8, copy);
	SP_TEST_CHECK(udp_len == 8 || (p != NULL && memcmp(p, udp + 8, udp_len - 8) == 0),
		      "frame %u: forwarded bytes are not the UDP payload", i);
	return e;
}

static const struct endpoint *
check_fwd(struct rte_mbuf *m)
{
	unsigned int i = frame_of(m, "fwd");
	const uint8_t *f = b.bytes[i];
	const struct sp_meta *meta = sp_meta(m);
	const struct endpoint *e;
	uint8_t copy[SP_FUZZ_MAX_PKT + 1];
	size_t ihl, udp_len;
	const void *p;

	if (b.len[i] >= RTE_ETHER_HDR_LEN && be16_at(f + 12) == 0x86dd)
		return check_fwd6(m, i, f);
	SP_TEST_CHECK(b.len[i] >= RTE_ETHER_HDR_LEN + 20 + 8 && be16_at(f + 12) == 0x0800,
		      "frame %u forwarded without Ethernet/IPv4/UDP headers", i);
	ihl = (size_t)(f[14] & 0xf) * 4;
	SP_TEST_CHECK(ihl >= 20 && b.len[i] >= RTE_ETHER_HDR_LEN + ihl + 8 &&
			      (f[23] == IPPROTO_UDP || f[23] == IPPROTO_TCP || f[23] == IPPROTO_ICMP),
		      "frame %u forwarded, IHL %zu, protocol %u", i, ihl, f[23]);
	if (meta->in_ep == SP_ENDPOINT_NAT) {
		SP_TEST_CHECK(b.port == 0 && be32_at(f + 30) == port_ip[0] && to_nat_range(f, ihl) &&
				      meta->slice == NAT_SLICE && meta->verdict == SP_FORWARD,
			      "frame %u handed to the NAT range (slice %u) is not for it", i,
			      meta->slice);
		check_whole(m, i, ihl);
		return NULL;
	}
	e = find_endpoint(b.port, be32_at(f + 30), f[23], be16_at(f + RTE_ETHER_HDR_LEN + ihl + 2));
	SP_TEST_CHECK(e != NULL && port_ip[b.port] == e->ip && f[23] != IPPROTO_ICMP,
		      "frame %u forwarded to no endpoint of port %u", i, b.port);
	SP_TEST_CHECK(meta->verdict == SP_FORWARD && meta->reason == SP_REASON_NONE,
		      "frame %u forwarded with verdict %u reason %u", i, meta->verdict,
		      meta->reason);
	SP_TEST_CHECK(meta->slice == e->slice && meta->in_ep == e->ep,
		      "frame %u: slice %u endpoint %u, registered slice %u endpoint %u", i,
		      meta->slice, meta->in_ep, e->slice, e->ep);
	if (e->whole) {
		check_whole(m, i, ihl);
		return e;
	}
	udp_len = be16_at(f + RTE_ETHER_HDR_LEN + ihl + 4);
	SP_TEST_CHECK(udp_len >= 8 && RTE_ETHER_HDR_LEN + ihl + udp_len <= b.len[i] &&
			      rte_pktmbuf_pkt_len(m) == udp_len - 8,
		      "frame %u: %u bytes forwarded, UDP length %zu, frame %u bytes", i,
		      rte_pktmbuf_pkt_len(m), udp_len, b.len[i]);
	p = rte_pktmbuf_read(m, 0, udp_len - 8, copy);
	SP_TEST_CHECK(udp_len == 8 || (p != NULL && memcmp(p, f + RTE_ETHER_HDR_LEN + ihl + 8,
							      udp_len - 8) == 0),
		      "frame %u: forwarded bytes are not the UDP payload", i);
	return e;
}

/* ICMP checksum over the IP payload, which may span both segments. */
static bool
icmp_cksum_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint16_t sum;

	return rte_raw_cksum_mbuf(m, off, len, &sum) == 0 && sum == UINT16_MAX;
}

/*
 * An IPv6 reply (frame i's): from port 0's address, an echo reply to an
 * echo request or an advertisement to a solicitation, its checksum right
 * (the node answers only requests whose checksum is).
 */
static void
check_reply6(struct rte_mbuf *m, unsigned int i)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
								 RTE_ETHER_HDR_LEN);
	uint32_t off = RTE_ETHER_HDR_LEN + sizeof(*ip), len = rte_be_to_cpu_16(ip->payload_len);
	uint8_t type = *rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	uint8_t asked = b.bytes[i][off];
	uint16_t sum;

	SP_TEST_CHECK(b.port == IP6_PORT, "frame %u: IPv6 answered on port %u, which has none", i,
		      b.port);
	SP_TEST_CHECK(memcmp(ip->src_addr, port_ip6, sizeof(port_ip6)) == 0 && ip->proto == 58 &&
			      rte_pktmbuf_pkt_len(m) == off + len,
		      "frame %u: IPv6 reply with a wrong source, next header or length", i);
	SP_TEST_CHECK((type == 129 && asked == 128) || (type == 136 && asked == 135),
		      "frame %u: ICMPv6 %u answering %u", i, type, asked);
	SP_TEST_CHECK(rte_raw_cksum_mbuf(m, off, len, &sum) == 0 &&
			      sp_cksum_fold((uint64_t)sum + rte_ipv6_phdr_cksum(ip, 0)) == 0xffff,
		      "frame %u: ICMPv6 reply with a wrong checksum", i);
}

/* An ARP or ICMP echo reply, written into the request's mbuf. */
static void
check_reply(struct rte_mbuf *m)
{
	unsigned int i = frame_of(m, "reply");
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const uint8_t *f = b.bytes[i];
	uint32_t hlen, tlen;

	SP_TEST_CHECK(port_ip[b.port] != 0, "frame %u answered on port %u, which has no address",
		      i, b.port);
	SP_TEST_CHECK(rte_is_same_ether_addr(&eth->src_addr, &port_mac[b.port]),
		      "frame %u: reply not from the port's MAC", i);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);

		const struct rte_arp_ipv4 *d = &arp->arp_data;

		SP_TEST_CHECK(arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY) &&
				      d->arp_sip == rte_cpu_to_be_32(port_ip[b.port]) &&
				      rte_is_same_ether_addr(&d->arp_sha, &port_mac[b.port]) &&
				      rte_is_same_ether_addr(&eth->dst_addr, &d->arp_tha),
			      "frame %u: ARP reply with wrong opcode or addresses", i);
		return;
	}
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		check_reply6(m, i);
		return;
	}
	SP_TEST_CHECK(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4),
		      "frame %u: reply neither ARP nor IP", i);
	hlen = rte_ipv4_hdr_len(ip);
	tlen = rte_be_to_cpu_16(ip->total_length);
	SP_TEST_CHECK(sp_test_ipv4_cksum_ok(ip) &&
			      ip->src_addr == rte_cpu_to_be_32(port_ip[b.port]) &&
			      ip->next_proto_id == IPPROTO_ICMP,
		      "frame %u: echo reply with a bad IPv4 header", i);
	SP_TEST_CHECK(rte_pktmbuf_pkt_len(m) == RTE_ETHER_HDR_LEN + tlen,
		      "frame %u: echo reply of %u bytes, IPv4 total length %u", i,
		      rte_pktmbuf_pkt_len(m), tlen);
	/* The checksum is updated, not recomputed: right in, right out. */
	if (tlen > hlen && icmp_cksum_ok(m, RTE_ETHER_HDR_LEN + hlen, tlen - hlen)) {
		SP_TEST_CHECK(f[RTE_ETHER_HDR_LEN + hlen] == RTE_IP_ICMP_ECHO_REQUEST,
			      "frame %u: echo reply to something else", i);
		return;
	}
	/* A wrong reply checksum is only allowed if the request's was wrong too. */
	{
		struct rte_mbuf *orig = sp_fuzz_mbuf(f, b.len[i], 0, 0);
		bool ok = icmp_cksum_ok(orig, RTE_ETHER_HDR_LEN + hlen, tlen - hlen);

		rte_pktmbuf_free(orig);
		SP_TEST_CHECK(!ok, "frame %u: echo request checksum right, reply's wrong", i);
	}
}

/* Handed up for learning: an ARP frame or a neighbor advertisement telling a usable neighbor. */
static void
check_learn(struct rte_mbuf *m)
{
	unsigned int i = frame_of(m, "learn");
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct rte_ether_addr mac;
	struct sp_ip ip6;
	uint32_t ip;

	SP_TEST_CHECK(port_ip[b.port] != 0 && m->port == b.port,
		      "frame %u: learned with port %u, received on %u", i, m->port, b.port);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		SP_TEST_CHECK(b.port == IP6_PORT && sp_nd_advert_target(m, &ip6, &mac) == 0 &&
				      rte_is_unicast_ether_addr(&mac) &&
				      memcmp(ip6.b, port_ip6, sizeof(port_ip6)) != 0 &&
				      sp_unusable_ipv6(ip6.b) == NULL,
			      "frame %u: handed up for learning, but no usable advertisement", i);
		return;
	}
	SP_TEST_CHECK(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP) &&
			      sp_arp_reply_sender(m, &ip, &mac) == 0 &&
			      rte_is_unicast_ether_addr(&mac) &&
			      ip != rte_cpu_to_be_32(port_ip[b.port]),
		      "frame %u: handed up for learning, but no usable ARP sender", i);
}

/*
 * A frame for the host: a copy of an ARP reply handed up for learning
 * (false; its mbuf may be one a dropped frame of the burst had), or a frame
 * of the burst, IPv4 to the host-path port's address and no slice's (true).
 */
static bool
check_host(struct rte_mbuf *m, const struct sp_decap_out *out)
{
	const uint8_t *f;
	unsigned int i;

	SP_TEST_CHECK(b.port == HOST_PORT, "a frame for the host from port %u, which has no host "
		      "path", b.port);
	for (unsigned int k = 0; k < out->nb_learn; k++)
		if (m != out->learn[k] &&
		    rte_pktmbuf_pkt_len(m) == rte_pktmbuf_pkt_len(out->learn[k]) &&
		    rte_pktmbuf_data_len(m) == rte_pktmbuf_pkt_len(m) &&
		    memcmp(rte_pktmbuf_mtod(m, void *),
			   rte_pktmbuf_read(out->learn[k], 0, rte_pktmbuf_pkt_len(m),
					    b.scratch), rte_pktmbuf_data_len(m)) == 0)
			return false;
	i = frame_of(m, "host");
	f = b.bytes[i];
	SP_TEST_CHECK(b.len[i] >= RTE_ETHER_HDR_LEN + 20 && be16_at(f + 12) == 0x0800 &&
			      be32_at(f + 30) == port_ip[HOST_PORT],
		      "frame %u for the host is no IPv4 to the port's address", i);
	if (f[23] == IPPROTO_UDP) {
		size_t ihl = (size_t)(f[14] & 0xf) * 4;

		SP_TEST_CHECK(find_endpoint(HOST_PORT, port_ip[HOST_PORT], IPPROTO_UDP,
					    be16_at(f + RTE_ETHER_HDR_LEN + ihl + 2)) == NULL,
			      "frame %u for the host is a slice's datagram", i);
	}
	SP_TEST_CHECK(f[23] != IPPROTO_ICMP || f[RTE_ETHER_HDR_LEN + (f[14] & 0xf) * 4] !=
			      RTE_IP_ICMP_ECHO_REQUEST,
		      "frame %u for the host is an echo request the node answers", i);
	return true;
}

static uint64_t
sum_reasons(void)
{
	uint64_t sum = 0;

	for (unsigned int r = 0; r < SP_REASON_MAX; r++)
		sum += st.reason[r];
	return sum;
}

/* The counters before a burst, and what the burst should add to them. */
struct counters {
	struct sp_port_stats ports[SP_MAX_PORTS];
	uint64_t slice_rx[RTE_DIM(endpoints)]; /* of endpoints[k].slice */
	uint64_t ep_rx[RTE_DIM(endpoints)];    /* of endpoints[k].ep */
	uint64_t policed[RTE_DIM(endpoints)];  /* endpoints[k].slice's inbound_rate drops */
	uint64_t drops;
	uint64_t want_slice[RTE_DIM(endpoints)];
	uint64_t want_ep[RTE_DIM(endpoints)];
	uint64_t nat_rx, want_nat; /* the NAT range's slice */
};

static void
snapshot(struct counters *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->ports, st.port, sizeof(c->ports));
	for (unsigned int k = 0; k < RTE_DIM(endpoints); k++) {
		c->slice_rx[k] = st.slice[endpoints[k].slice].rx.pkts;
		c->ep_rx[k] = st.endpoint[endpoints[k].ep].rx.pkts;
		c->policed[k] = st.slice[endpoints[k].slice].reason[SP_REASON_INBOUND_RATE];
	}
	c->nat_rx = st.slice[NAT_SLICE].rx.pkts;
	c->drops = sum_reasons();
}

static void
check_counters(const struct counters *c, unsigned int nb_out)
{
	uint64_t bytes = 0, drops = sum_reasons() - c->drops;
	unsigned int i, k;

	for (i = 0; i < b.n; i++)
		bytes += b.len[i];
	for (i = 0; i < SP_MAX_PORTS; i++) {
		const struct sp_counter *was = &c->ports[i].rx, *now = &st.port[i].rx;
		uint64_t pkts = i == b.port ? b.n : 0, len = i == b.port ? bytes : 0;

		SP_TEST_CHECK(now->pkts == was->pkts + pkts && now->bytes == was->bytes + len,
			      "port %u rx: %" PRIu64 " -> %" PRIu64 " pkts, %u received on %u", i,
			      was->pkts, now->pkts, b.n, b.port);
	}
	for (k = 0; k < RTE_DIM(endpoints); k++) {
		const struct endpoint *e = &endpoints[k];
		uint64_t slice_rx = st.slice[e->slice].rx.pkts - c->slice_rx[k];
		uint64_t ep_rx = st.endpoint[e->ep].rx.pkts - c->ep_rx[k];
		/* What arrived counts, policed or not; only policed endpoints' slices drop so. */
		uint64_t policed = st.slice[e->slice].reason[SP_REASON_INBOUND_RATE] - c->policed[k];

		SP_TEST_CHECK(e->inbound > 0 || policed == 0,
			      "slice %u dropped %" PRIu64 " as inbound_rate without a rate", e->slice,
			      policed);
		SP_TEST_CHECK(slice_rx == c->want_slice[k] + policed &&
			      ep_rx == c->want_ep[k] + policed,
			      "slice %u / endpoint %u rx counters do not match what was forwarded "
			      "and policed", e->slice, e->ep);
	}
	SP_TEST_CHECK(st.slice[NAT_SLICE].rx.pkts - c->nat_rx == c->want_nat,
		      "the NAT range's slice counted %" PRIu64 " frames, %" PRIu64 " handed to it",
		      st.slice[NAT_SLICE].rx.pkts - c->nat_rx, c->want_nat);
	SP_TEST_CHECK(drops == b.n - nb_out, "%" PRIu64 " drops counted, %u frames not passed on",
		      drops, b.n - nb_out);
}

static void
free_outputs(struct sp_decap_out *out)
{
	rte_pktmbuf_free_bulk(out->fwd, out->nb_fwd);
	rte_pktmbuf_free_bulk(out->reply, out->nb_reply);
	rte_pktmbuf_free_bulk(out->learn, out->nb_learn);
	rte_pktmbuf_free_bulk(out->host, out->nb_host);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);
	static struct sp_decap_out out;
	struct counters c;
	unsigned int i, k, nb_out;

	split_input(data, size);
	snapshot(&c);
	memset(&out, 0xff, sizeof(out));

	sp_decap_burst(table, b.port, b.pkts, b.n, &out, &st);

	nb_out = out.nb_fwd + out.nb_reply + out.nb_learn;
	SP_TEST_CHECK(out.nb_host <= SP_BURST, "%u frames for the host", out.nb_host);
	for (i = 0; i < out.nb_host; i++)
		nb_out += check_host(out.host[i], &out);
	SP_TEST_CHECK(nb_out <= b.n, "%u packets out of a burst of %u", nb_out, b.n);
	for (i = 0; i < out.nb_fwd; i++) {
		const struct endpoint *e = check_fwd(out.fwd[i]);

		c.want_nat += e == NULL;
		for (k = 0; e != NULL && k < RTE_DIM(endpoints); k++) {
			c.want_slice[k] += endpoints[k].slice == e->slice;
			c.want_ep[k] += endpoints[k].ep == e->ep;
		}
	}
	for (i = 0; i < out.nb_reply; i++)
		check_reply(out.reply[i]);
	for (i = 0; i < out.nb_learn; i++)
		check_learn(out.learn[i]);
	check_counters(&c, nb_out);

	free_outputs(&out);
	SP_TEST_CHECK(rte_mempool_in_use_count(pool) == in_use,
		      "%u packets in use before the burst, %u after (leak or double free)", in_use,
		      rte_mempool_in_use_count(pool));
	return 0;
}
