/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames built header by header for the unit tests: Ethernet, IPv4, UDP,
 * ICMP and ARP, each written at a pointer and returning its length, so
 * that a test lays out what it sends (and what it expects back) in order.
 * Addresses, ports and types are in host order; checksums are computed.
 */
#ifndef SP_TEST_FRAME_H
#define SP_TEST_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

/* An Ethernet frame that short is padded to it by the sender (no CRC counted). */
#define SP_TEST_FRAME_MIN 60

/* What an IPv4 header says (IHL 5, TOS 0): all that tests vary. */
struct sp_test_ip {
	uint32_t src, dst;
	uint8_t proto, ttl;
	uint16_t id;
	uint16_t frag; /* flags and fragment offset, as the header has them: RTE_IPV4_HDR_DF_FLAG */
};

/*
 * What an ARP message for IPv4 over Ethernet says, with the Ethernet header
 * around it, in the wire's order: sender and target hardware (MAC) and
 * protocol (IPv4) addresses.
 */
struct sp_test_arp {
	struct rte_ether_addr eth_dst, eth_src;
	uint16_t op; /* RTE_ARP_OP_REQUEST, RTE_ARP_OP_REPLY */
	struct rte_ether_addr sha;
	uint32_t spa;
	struct rte_ether_addr tha;
	uint32_t tpa;
};

/* The Ethernet header; returns RTE_ETHER_HDR_LEN. */
size_t sp_test_eth(void *f, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
		   uint16_t type);
/* The IPv4 header in front of l4_len bytes, its checksum right; returns 20. */
size_t sp_test_ipv4(void *p, const struct sp_test_ip *ip, size_t l4_len);
/* The UDP header in front of len bytes of payload, checksum 0 (none); returns 8. */
size_t sp_test_udp(void *p, uint16_t sport, uint16_t dport, size_t len);
/* Set the UDP checksum of the datagram after the IPv4 header at ip (sp_test_ipv4()'s). */
void sp_test_udp_cksum(void *ip);
/*
 * An ICMP message of the echo's form (type, code 0, id, sequence) carrying
 * len bytes of data, its checksum right; returns 8 + len.
 */
size_t sp_test_icmp(void *p, uint8_t type, uint16_t id, uint16_t seq, const void *data,
		    size_t len);
/* The ARP frame, zero padded to SP_TEST_FRAME_MIN bytes; returns SP_TEST_FRAME_MIN. */
size_t sp_test_arp(void *f, const struct sp_test_arp *arp);

#endif
