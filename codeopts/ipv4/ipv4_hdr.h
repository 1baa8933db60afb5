/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 router's per-packet work, shared by the ipv4 code option and
 * the dpi code option (which forwards like a router and adds a content
 * class to the key).
 */
#ifndef SP_IPV4_HDR_H
#define SP_IPV4_HDR_H

#include <stdbool.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/cksum.h>
#include <slicepath/codeopt.h>
#include <slicepath/ipv4.h>

#define SP_IPV4_MIN_HDR_LEN ((uint32_t)sizeof(struct rte_ipv4_hdr))
#define SP_IPV4_PORTS_LEN 4

/* The key; ports: the header is followed by TCP or UDP ports. */
static inline void
sp_ipv4_build_key(const struct rte_ipv4_hdr *ip, struct sp_key *k, bool ports)
{
	memcpy(&k->b[SP_IPV4_KEY_DST], &ip->dst_addr, sizeof(ip->dst_addr));
	memcpy(&k->b[SP_IPV4_KEY_SRC], &ip->src_addr, sizeof(ip->src_addr));
	if (ports)
		/* Source then destination port, as in the TCP and UDP headers. */
		memcpy(&k->b[SP_IPV4_KEY_SPORT], (const uint8_t *)ip + rte_ipv4_hdr_len(ip),
		       SP_IPV4_PORTS_LEN);
	else
		memset(&k->b[SP_IPV4_KEY_SPORT], 0, SP_IPV4_PORTS_LEN);
	k->b[SP_IPV4_KEY_PROTO] = ip->next_proto_id;
	k->b[SP_IPV4_KEY_ZERO] = 0;
}

/*
 * The packet as nearly all come: one segment, IPv4 without options, its
 * total length the packet's (nothing to trim), TTL above 1, checksum right,
 * TCP or UDP and not a fragment, ports inside. A few compares instead of
 * sp_ipv4_parse_uncommon()'s checks one by one, whose answer for such a
 * packet is the same (they take every other packet and say why).
 */
static inline bool
sp_ipv4_common_packet(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, uint32_t len)
{
	return rte_pktmbuf_data_len(m) == len && len >= SP_IPV4_MIN_HDR_LEN + SP_IPV4_PORTS_LEN &&
	       ip->version_ihl == RTE_IPV4_VHL_DEF && rte_be_to_cpu_16(ip->total_length) == len &&
	       ip->time_to_live > 1 &&
	       (ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
	       (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)) == 0 &&
	       sp_ipv4_hdr_cksum_ok(ip, SP_IPV4_MIN_HDR_LEN);
}

/* sp_ipv4_parse_one() of a packet that is not the common one. */
bool sp_ipv4_parse_uncommon(struct rte_mbuf *m);

/*
 * Check m's inner IPv4 header as a router must, cut link-layer padding and
 * write the ipv4 key (slicepath/ipv4.h). False, with the packet marked a
 * drop or an exception (options, TTL, a header split over segments), when
 * it does not go on to the lookup. Inline: parse() calls it on every packet.
 */
static inline bool
sp_ipv4_parse_one(struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);

	if (!sp_ipv4_common_packet(m, ip, rte_pktmbuf_pkt_len(m)))
		return sp_ipv4_parse_uncommon(m);
	sp_ipv4_build_key(ip, &sp_meta(m)->key, true);
	return true;
}

/*
 * TTL one less, the header checksum updated incrementally: RFC 1624's
 * equation 3, HC' = ~(~HC + ~m + m'), for the 16-bit word m that holds the
 * TTL (its high byte in network order). The TTL must be at least 1 (parse()
 * forwards none below 2): then m' is m - 0x100 and ~m + m' is 0xfeff,
 * whatever m, in network order (sums over words taken in memory order come
 * out in memory order). Inline: format() calls it on every packet.
 */
static inline void
sp_ipv4_decrement_ttl(struct rte_ipv4_hdr *ip)
{
	uint32_t sum = (uint32_t)(uint16_t)~ip->hdr_checksum + RTE_BE16(0xfeff);

	ip->time_to_live--;
	ip->hdr_checksum = (uint16_t)~((sum & 0xffff) + (sum >> 16));
}

/* A router's format(): every packet's TTL one less (its parse() let none below 2 through). */
static inline void
sp_ipv4_format(struct sp_slice *s __rte_unused, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		sp_ipv4_decrement_ttl(rte_pktmbuf_mtod(pkts[i], struct rte_ipv4_hdr *));
}

#endif
