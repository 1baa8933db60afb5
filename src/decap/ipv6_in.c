/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 to a port with an IPv6 address: the header's checks (decap.c's
 * IPv4 ones, IPv6's way), then the substrate's datagrams, UDP to the
 * port's IPv6 address, whose checksum IPv6 requires. What else comes to
 * the address is nd_echo.c's.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "arp_echo.h"
#include "../fastpath/mbuf_sum.h"

#define NEXT_HEADER_FRAGMENT 44

/*
 * IANA's IPv6 extension header types but the fragment header: hop-by-hop
 * options, routing, ESP, AH, destination options, mobility, HIP, shim6 and
 * the two experimental ones. The substrate takes none of them.
 */
static bool
extension_header(uint8_t next_header)
{
	switch (next_header) {
	case 0: case 43: case 50: case 51: case 60: case 135: case 139: case 140: case 253: case 254:
		return true;
	default:
		return false;
	}
}

enum sp_reason
sp_ipv6_header(const struct sp_port_addr *a, struct rte_mbuf *m, bool *to_us)
{
	const struct rte_ipv6_hdr *ip;
	uint32_t off = RTE_ETHER_HDR_LEN + sizeof(*ip), len;

	if (rte_pktmbuf_data_len(m) < off)
		return SP_REASON_TRUNCATED;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6)
		return SP_REASON_BAD_IP_HEADER;
	len = rte_be_to_cpu_16(ip->payload_len);
	if (rte_pktmbuf_pkt_len(m) < off + len)
		return SP_REASON_TRUNCATED;
	if (rte_pktmbuf_pkt_len(m) > off + len) /* Ethernet's padding */
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - off - len);
	*to_us = memcmp(ip->dst_addr, a->ip6, sizeof(ip->dst_addr)) == 0;
	if (!*to_us && !sp_ipv6_node_group(a, ip->dst_addr))
		return SP_REASON_NOT_LOCAL;
	if (ip->proto == NEXT_HEADER_FRAGMENT)
		return SP_REASON_FRAGMENT;
	return extension_header(ip->proto) ? SP_REASON_IPV6_EXT : SP_REASON_NONE;
}

enum sp_reason
sp_udp6_datagram(struct rte_mbuf *m, uint16_t *dst_port)
{
	const uint32_t off = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr);
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
							       RTE_ETHER_HDR_LEN);
	/* The pseudo-header's next header, a 32-bit word (RFC 8200 8.1). */
	const rte_be32_t next_header = RTE_BE32(IPPROTO_UDP);
	const struct rte_udp_hdr *udp;
	uint32_t payload = rte_be_to_cpu_16(ip->payload_len), sum;
	uint16_t udp_len;

	if (payload < sizeof(*udp) || rte_pktmbuf_data_len(m) < off + sizeof(*udp))
		return SP_REASON_TRUNCATED;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, off);
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len < sizeof(*udp) || udp_len > payload)
		return SP_REASON_TRUNCATED;
	if (udp_len < payload)
		rte_pktmbuf_trim(m, (uint16_t)(payload - udp_len));
	/* IPv6 has no "no checksum" (RFC 8200 8.1): a zero is as wrong as any. */
	sum = sp_mbuf_sum(m, off, udp_len);
	if (udp->dgram_cksum == 0 || sum == UINT32_MAX ||
	    sp_cksum_fold((uint64_t)sum + sp_cksum_bytes(ip->src_addr, 2 * sizeof(ip->src_addr)) +
			  sp_cksum_bytes(&next_header, sizeof(next_header)) + udp->dgram_len) != 0xffff)
		return SP_REASON_BAD_CHECKSUM;
	*dst_port = rte_be_to_cpu_16(udp->dst_port);
	return SP_REASON_NONE;
}
