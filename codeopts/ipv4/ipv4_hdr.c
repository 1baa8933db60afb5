/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 router's per-packet work (RFC 1812 section 5.2.2 checks, the key,
 * the TTL rewrite), shared by the ipv4 and dpi code options.
 */
#include <stdbool.h>
#include <string.h>

#include <netinet/in.h>
#include <netinet/ip.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/cksum.h>
#include <slicepath/codeopt.h>
#include <slicepath/ipv4.h>

#include "ipv4_hdr.h"

#define MAX_HDR_LEN (RTE_IPV4_HDR_IHL_MASK * RTE_IPV4_IHL_MULTIPLIER)

/* Why the header cannot be forwarded or even handed up, or SP_REASON_NONE. */
static enum sp_reason
header_error(const struct rte_ipv4_hdr *ip, uint32_t pkt_len)
{
	uint32_t hlen = rte_ipv4_hdr_len(ip);
	uint32_t tlen = rte_be_to_cpu_16(ip->total_length);

	if (ip->version_ihl >> 4 != IPVERSION)
		return SP_REASON_MALFORMED;
	if (hlen < SP_IPV4_MIN_HDR_LEN || hlen > pkt_len)
		return SP_REASON_BAD_HDR_LEN;
	if (tlen < hlen || tlen > pkt_len)
		return SP_REASON_BAD_HDR_LEN;
	/* The one's complement sum over a correct header, checksum included, is all ones. */
	if (!sp_ipv4_hdr_cksum_ok(ip, hlen))
		return SP_REASON_BAD_CHECKSUM;
	return SP_REASON_NONE;
}

/* TCP and UDP first fragments that carry at least the two ports. */
static bool
has_ports(const struct rte_ipv4_hdr *ip)
{
	uint16_t frag_off = rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK;

	return (ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) &&
	       frag_off == 0 &&
	       rte_ipv4_hdr_len(ip) + SP_IPV4_PORTS_LEN <= rte_be_to_cpu_16(ip->total_length);
}

/*
 * Cut what follows the IPv4 packet (link-layer padding), so that the packet
 * forwarded is exactly the IPv4 packet. False if that padding is spread over
 * more than the last segment.
 */
static bool
trim_to(struct rte_mbuf *m, uint32_t len)
{
	uint32_t extra = rte_pktmbuf_pkt_len(m) - len;

	return extra == 0 || (extra <= UINT16_MAX && rte_pktmbuf_trim(m, (uint16_t)extra) == 0);
}

bool
sp_ipv4_parse_uncommon(struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	enum sp_reason reason;

	if (len < SP_IPV4_MIN_HDR_LEN) {
		sp_meta_drop(m, SP_REASON_MALFORMED);
		return false;
	}
	/*
	 * Everything read below (header and ports) must be in the first
	 * segment. It always is with ordinary buffer sizes; a chain split
	 * earlier is valid but left to the slow path.
	 */
	if (rte_pktmbuf_data_len(m) < RTE_MIN(len, (uint32_t)(MAX_HDR_LEN + SP_IPV4_PORTS_LEN))) {
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
		return false;
	}
	reason = header_error(ip, len);
	if (reason != SP_REASON_NONE) {
		sp_meta_drop(m, reason);
		return false;
	}
	if (!trim_to(m, rte_be_to_cpu_16(ip->total_length))) {
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
		return false;
	}
	if (rte_ipv4_hdr_len(ip) > SP_IPV4_MIN_HDR_LEN) {
		sp_meta_exception(m, SP_REASON_OPTIONS);
		return false;
	}
	if (ip->time_to_live <= 1) {
		sp_meta_exception(m, SP_REASON_TTL_EXPIRED);
		return false;
	}
	sp_ipv4_build_key(ip, &sp_meta(m)->key, has_ports(ip));
	return true;
}
