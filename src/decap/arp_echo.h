/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to src/decap: the node's own address on a port, and the answers to
 * ARP and ICMP echo that decap.c hands over to arp_echo.c. Each *_input function
 * either turns the mbuf into the reply or passes it up (appending it to out)
 * and returns SP_REASON_NONE, or returns why the frame is to be dropped and
 * leaves freeing it to the caller.
 */
#ifndef SP_DECAP_ARP_ECHO_H
#define SP_DECAP_ARP_ECHO_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

#include "decap.h"
#include "decap_worker.h"

struct sp_port_addr {
	uint32_t ip_be; /* 0: the port has no address */
	struct rte_ether_addr mac;
	bool has_ip6;   /* the node's own IPv6 address, ip6 (nd_echo.c) */
	uint8_t ip6[16];
	bool host;      /* what no slice claims goes to the host (sp_decap_set_host) */
	bool rx_ip_cksum; /* the device checks IPv4 checksums (sp_decap_set_rx_cksum) */
};

/* NULL when port is out of range. */
const struct sp_port_addr *sp_decap_port_addr(const struct sp_decap_table *t, uint16_t port);

/* An ARP frame that passed the destination MAC check. */
enum sp_reason sp_arp_input(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
			    struct sp_decap_out *out);

/*
 * An ICMP packet to the port's address; ip is its validated IPv4 header and
 * the mbuf is already trimmed to the IPv4 total length.
 */
enum sp_reason sp_icmp_input(const struct sp_port_addr *a, struct rte_mbuf *m,
			     struct rte_ipv4_hdr *ip, struct sp_decap_out *out);

/*
 * An ICMP or ICMPv6 message's type set, its checksum updated (RFC 1624),
 * which can give 0 where a full sum gives 0xffff: the caller sums again then.
 */
void sp_icmp_retype(struct rte_icmp_hdr *icmp, uint8_t type);

/*
 * A multicast MAC that IPv6 to the port's address may come to: its
 * solicited-node group's (neighbor solicitations) or all nodes'.
 */
bool sp_ipv6_multicast_mac(const struct sp_port_addr *a, const struct rte_ether_addr *mac);

/* Whether dst is one of the port's IPv6 groups: its solicited-node group or all nodes. */
bool sp_ipv6_node_group(const struct sp_port_addr *a, const uint8_t dst[16]);

/*
 * An IPv6 frame that passed the destination MAC check, to a port with an
 * IPv6 address (ipv6_in.c): its header's checks (version, lengths, Ethernet's
 * padding cut); to the port's address (*to_us) or one of its groups; no
 * fragment or other extension header. Why not, or SP_REASON_NONE.
 */
enum sp_reason sp_ipv6_header(const struct sp_port_addr *a, struct rte_mbuf *m, bool *to_us);

/*
 * A UDP datagram whose IPv6 header checked out: its header, length (the
 * frame cut to it) and checksum, which IPv6 requires; its destination port
 * into *dst_port (host order). Why not, or SP_REASON_NONE.
 */
enum sp_reason sp_udp6_datagram(struct rte_mbuf *m, uint16_t *dst_port);

/*
 * The rest of what comes to a port's IPv6 address or groups, its header
 * checked (sp_ipv6_header()): a neighbor solicitation for the address or an
 * echo request to it is answered in place into out->reply, an advertisement
 * that tells a neighbor's MAC passed up into out->learn; anything else
 * returns why not.
 */
enum sp_reason sp_ipv6_input(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
			     bool to_us, struct sp_decap_out *out);

#endif
