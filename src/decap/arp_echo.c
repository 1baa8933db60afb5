/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP and ICMP echo for the node's own addresses. Replies are written into
 * the received mbuf (no allocation on the fast path); ARP replies addressed
 * to us go up to the management thread, which owns the neighbor table.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_icmp.h>

#include <slicepath/cksum.h>

#include "arp_echo.h"
#include "../fastpath/mbuf_sum.h"

/* TTL of the echo replies we originate (the usual host default). */
#define ECHO_REPLY_TTL 64

/* Shortest frame we send: Ethernet minimum without the CRC the NIC appends. */
#define MIN_FRAME_LEN (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)

#define ARP_FRAME_LEN (RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr))

/* An address a reply may go to: never answer a broadcast or multicast sender. */
static bool
unicast_ipv4(uint32_t ip_be)
{
	uint32_t ip = rte_be_to_cpu_32(ip_be);

	/* 224.0.0.0/4 tested by hand: RTE_IS_IPV4_MCAST shifts a signed int into the sign bit. */
	return ip != 0 && ip != UINT32_MAX && (ip >> 28) != 0xe;
}

/* Ethernet hardware, IPv4 protocol: the only ARP we speak. */
static bool
arp_ether_ipv4(const struct rte_arp_hdr *arp)
{
	return arp->arp_hardware == RTE_BE16(RTE_ARP_HRD_ETHER) &&
	       arp->arp_protocol == RTE_BE16(RTE_ETHER_TYPE_IPV4) &&
	       arp->arp_hlen == RTE_ETHER_ADDR_LEN && arp->arp_plen == sizeof(uint32_t);
}

/*
 * A sender telling us its address: a reply to us, or a gratuitous ARP (sender
 * and target IP the same) so that a next hop's new MAC is picked up at once.
 * Which of these the neighbor table takes is the management thread's call.
 */
static bool
arp_learnable(const struct sp_port_addr *a, const struct rte_arp_hdr *arp)
{
	const struct rte_arp_ipv4 *d = &arp->arp_data;
	uint16_t op = rte_be_to_cpu_16(arp->arp_opcode);

	if (op != RTE_ARP_OP_REPLY && op != RTE_ARP_OP_REQUEST)
		return false;
	/* Never a sender claiming our own address, nor one we could not send to. */
	if (d->arp_sip == a->ip_be || !unicast_ipv4(d->arp_sip) ||
	    !rte_is_unicast_ether_addr(&d->arp_sha))
		return false;
	return d->arp_sip == d->arp_tip || (op == RTE_ARP_OP_REPLY && d->arp_tip == a->ip_be);
}

/* Turn a request for our address into the reply, in place. */
static void
arp_reply(const struct sp_port_addr *a, struct rte_ether_hdr *eth, struct rte_arp_hdr *arp)
{
	struct rte_arp_ipv4 *d = &arp->arp_data;

	arp->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	d->arp_tha = d->arp_sha;
	d->arp_tip = d->arp_sip;
	d->arp_sha = a->mac;
	d->arp_sip = a->ip_be;
	eth->dst_addr = d->arp_tha;
	eth->src_addr = a->mac;
}

enum sp_reason
sp_arp_input(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
	     struct sp_decap_out *out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp;

	if (rte_pktmbuf_data_len(m) < ARP_FRAME_LEN)
		return SP_REASON_TRUNCATED;
	arp = (struct rte_arp_hdr *)(eth + 1);
	if (!arp_ether_ipv4(arp) || a->ip_be == 0)
		return SP_REASON_ARP_IGNORED;

	if (arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST) && arp->arp_data.arp_tip == a->ip_be) {
		if (!rte_is_unicast_ether_addr(&arp->arp_data.arp_sha))
			return SP_REASON_ARP_IGNORED;
		arp_reply(a, eth, arp);
		out->reply[out->nb_reply++] = m;
		return SP_REASON_NONE;
	}
	if (arp_learnable(a, arp)) {
		m->port = port;
		out->learn[out->nb_learn++] = m;
		return SP_REASON_NONE;
	}
	return SP_REASON_ARP_IGNORED;
}

void
sp_icmp_retype(struct rte_icmp_hdr *icmp, uint8_t type)
{
	uint16_t old, new;

	/* Only the type byte changes, so the checksum is updated, not recomputed
	 * over a payload that may be large or span segments. */
	memcpy(&old, icmp, sizeof(old));
	icmp->icmp_type = type;
	memcpy(&new, icmp, sizeof(new));
	icmp->icmp_cksum = sp_cksum_update16(icmp->icmp_cksum, old, new);
}

static bool
icmp_cksum_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	return sp_mbuf_sum(m, off, len) == 0xffff;
}

/*
 * Echo request -> echo reply in place; id, sequence and data stay as they
 * are. The ICMP message is len bytes at off in m.
 */
static void
echo_reply(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	   struct rte_icmp_hdr *icmp, uint32_t off, uint32_t len)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	sp_icmp_retype(icmp, RTE_IP_ICMP_ECHO_REPLY);
	/*
	 * The update cannot tell +0 from -0 (RFC 1624): a reply of all zero
	 * words needs 0xffff where it gives 0 (found by fuzz_decap), so a 0
	 * is summed again, one reply in 65536.
	 */
	if (icmp->icmp_cksum == 0)
		icmp->icmp_cksum = (uint16_t)~sp_mbuf_sum(m, off, len);

	ip->dst_addr = ip->src_addr;
	ip->src_addr = a->ip_be;
	ip->time_to_live = ECHO_REPLY_TTL;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = sp_ipv4_hdr_cksum(ip, rte_ipv4_hdr_len(ip));

	eth->dst_addr = eth->src_addr;
	eth->src_addr = a->mac;
}

enum sp_reason
sp_icmp_input(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	      struct sp_decap_out *out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint16_t hlen = rte_ipv4_hdr_len(ip);
	struct rte_icmp_hdr *icmp;

	if (rte_be_to_cpu_16(ip->total_length) < hlen + sizeof(*icmp) ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + hlen + sizeof(*icmp))
		return SP_REASON_TRUNCATED;
	icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + hlen);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || !unicast_ipv4(ip->src_addr) ||
	    !rte_is_unicast_ether_addr(&eth->src_addr))
		return SP_REASON_ICMP_IGNORED;
	/* The reply's checksum is the request's, updated: a wrong one would be echoed. */
	if (!icmp_cksum_ok(m, RTE_ETHER_HDR_LEN + hlen, rte_be_to_cpu_16(ip->total_length) - hlen))
		return SP_REASON_BAD_CHECKSUM;

	echo_reply(a, m, ip, icmp, RTE_ETHER_HDR_LEN + hlen,
		   rte_be_to_cpu_16(ip->total_length) - hlen);
	out->reply[out->nb_reply++] = m;
	return SP_REASON_NONE;
}

struct rte_mbuf *
sp_arp_request(const struct sp_decap_table *t, struct rte_mempool *mp, uint16_t port,
	       uint32_t ip_be)
{
	const struct sp_port_addr *a = sp_decap_port_addr(t, port);
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;

	if (a == NULL || a->ip_be == 0)
		return NULL;
	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, MIN_FRAME_LEN);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eth, 0, MIN_FRAME_LEN);
	memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
	eth->src_addr = a->mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);

	arp = (struct rte_arp_hdr *)(eth + 1);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = sizeof(uint32_t);
	arp->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = a->mac;
	arp->arp_data.arp_sip = a->ip_be;
	arp->arp_data.arp_tip = ip_be;
	m->port = port;
	return m;
}

int
sp_arp_reply_sender(const struct rte_mbuf *m, uint32_t *ip_be, struct rte_ether_addr *mac)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(eth + 1);
	uint16_t op;

	if (rte_pktmbuf_data_len(m) < ARP_FRAME_LEN ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_ARP) || !arp_ether_ipv4(arp))
		return -EINVAL;
	op = rte_be_to_cpu_16(arp->arp_opcode);
	if (op != RTE_ARP_OP_REPLY && op != RTE_ARP_OP_REQUEST)
		return -EINVAL;
	*ip_be = arp->arp_data.arp_sip;
	*mac = arp->arp_data.arp_sha;
	return 0;
}
