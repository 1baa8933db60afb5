/* SPDX-License-Identifier: BSD-3-Clause */
#include "sp_test_frame.h"

#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

size_t
sp_test_eth(void *f, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	    uint16_t type)
{
	struct rte_ether_hdr *eth = f;

	eth->dst_addr = *dst;
	eth->src_addr = *src;
	eth->ether_type = rte_cpu_to_be_16(type);
	return sizeof(*eth);
}

size_t
sp_test_ipv4(void *p, const struct sp_test_ip *ip, size_t l4_len)
{
	struct rte_ipv4_hdr *h = p;

	*h = (struct rte_ipv4_hdr){
		.version_ihl = RTE_IPV4_VHL_DEF,
		.total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*h) + l4_len)),
		.packet_id = rte_cpu_to_be_16(ip->id),
		.fragment_offset = rte_cpu_to_be_16(ip->frag),
		.time_to_live = ip->ttl,
		.next_proto_id = ip->proto,
		.src_addr = rte_cpu_to_be_32(ip->src),
		.dst_addr = rte_cpu_to_be_32(ip->dst),
	};
	h->hdr_checksum = rte_ipv4_cksum(h);
	return sizeof(*h);
}

size_t
sp_test_udp(void *p, uint16_t sport, uint16_t dport, size_t len)
{
	struct rte_udp_hdr *udp = p;

	*udp = (struct rte_udp_hdr){
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
		.dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len)),
	};
	return sizeof(*udp);
}

void
sp_test_udp_cksum(void *ip)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)((struct rte_ipv4_hdr *)ip + 1);

	udp->dgram_cksum = 0;
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
}

size_t
sp_test_icmp(void *p, uint8_t type, uint16_t id, uint16_t seq, const void *data, size_t len)
{
	struct rte_icmp_hdr *icmp = p;

	*icmp = (struct rte_icmp_hdr){
		.icmp_type = type,
		.icmp_ident = rte_cpu_to_be_16(id),
		.icmp_seq_nb = rte_cpu_to_be_16(seq),
	};
	memcpy(icmp + 1, data, len);
	icmp->icmp_cksum = (uint16_t)~rte_raw_cksum(icmp, sizeof(*icmp) + len);
	return sizeof(*icmp) + len;
}

size_t
sp_test_arp(void *f, const struct sp_test_arp *arp)
{
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)((uint8_t *)f + RTE_ETHER_HDR_LEN);
	size_t len = sp_test_eth(f, &arp->eth_dst, &arp->eth_src, RTE_ETHER_TYPE_ARP);

	*a = (struct rte_arp_hdr){
		.arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER),
		.arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4),
		.arp_hlen = RTE_ETHER_ADDR_LEN,
		.arp_plen = 4,
		.arp_opcode = rte_cpu_to_be_16(arp->op),
		.arp_data = {
			.arp_sha = arp->sha,
			.arp_sip = rte_cpu_to_be_32(arp->spa),
			.arp_tha = arp->tha,
			.arp_tip = rte_cpu_to_be_32(arp->tpa),
		},
	};
	len += sizeof(*a);
	memset((uint8_t *)f + len, 0, SP_TEST_FRAME_MIN - len);
	return SP_TEST_FRAME_MIN;
}
