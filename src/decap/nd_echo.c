/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's own IPv6 address on a port: neighbor solicitations for it get
 * an advertisement, echo requests to it a reply, both written into the
 * received mbuf as arp_echo.c does for IPv4; advertisements that tell a
 * neighbor's MAC go up to the management thread as ARP replies do, and it
 * solicits the next hops it resolves from here. The substrate's datagrams
 * to the address are ipv6_in.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include <slicepath/cksum.h>

#include "arp_echo.h"
#include "../fastpath/mbuf_sum.h"
#include "../common/text.h"

#define ICMPV6 58
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ECHO_REPLY 129
#define ND_ROUTER_SOLICIT 133
#define ND_ROUTER_ADVERT 134
#define ND_NEIGHBOR_SOLICIT 135
#define ND_NEIGHBOR_ADVERT 136
#define ND_REDIRECT 137
/* RFC 4861: a neighbor discovery message comes with hop limit 255 (no router passed it on). */
#define ND_HOP_LIMIT 255
#define ND_OPT_SOURCE_LLADDR 1
#define ND_OPT_TARGET_LLADDR 2
#define ND_NA_SOLICITED 0x40 /* the flags' byte */
#define ND_NA_OVERRIDE 0x20
/* The hop limit of the echo replies we originate (the usual host default). */
#define ECHO_REPLY_HOP_LIMIT 64

/* A neighbor solicitation or advertisement (RFC 4861). */
struct nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	uint8_t flags; /* an advertisement's; a solicitation's are reserved */
	uint8_t reserved[3];
	uint8_t target[16];
} __rte_packed;

/* A link-layer address option (source or target): 8 bytes on Ethernet. */
struct nd_lladdr_opt {
	uint8_t type;
	uint8_t len; /* in units of 8 bytes */
	uint8_t mac[RTE_ETHER_ADDR_LEN];
} __rte_packed;

/* What the node sends: an advertisement or a solicitation with its one option. */
#define NA_LEN (sizeof(struct nd_msg) + sizeof(struct nd_lladdr_opt))
#define NS_LEN NA_LEN

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
static const uint8_t solicited_prefix[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

/* ff02::1:ffXX:XXXX, XX the address's last three bytes (RFC 4291). */
static bool
solicited_node(const uint8_t ip6[16], const uint8_t dst[16])
{
	return memcmp(dst, solicited_prefix, sizeof(solicited_prefix)) == 0 &&
	       memcmp(dst + 13, ip6 + 13, 3) == 0;
}

/* An IPv6 multicast group's MAC: 33:33 and the group's last four bytes (RFC 2464). */
static void
multicast_mac(const uint8_t group[16], struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(mac->addr_bytes + 2, group + 12, 4);
}

bool
sp_ipv6_multicast_mac(const struct sp_port_addr *a, const struct rte_ether_addr *mac)
{
	/* 33:33 and the group's last four bytes (RFC 2464). */
	static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	const uint8_t *b = mac->addr_bytes;

	if (!a->has_ip6 || b[0] != 0x33 || b[1] != 0x33)
		return false;
	return memcmp(b, all_nodes_mac, sizeof(all_nodes_mac)) == 0 ||
	       (b[2] == 0xff && memcmp(b + 3, a->ip6 + 13, 3) == 0);
}

static bool
unspecified(const uint8_t ip6[16])
{
	static const uint8_t zero[16];

	return memcmp(ip6, zero, sizeof(zero)) == 0;
}

/* Whether the ICMPv6 message of len bytes at off, with its pseudo-header, sums right. */
static bool
icmpv6_cksum_ok(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t off,
		uint32_t len)
{
	uint32_t sum = sp_mbuf_sum(m, off, len);

	return sum != UINT32_MAX && sp_cksum_fold((uint64_t)sum + rte_ipv6_phdr_cksum(ip, 0)) == 0xffff;
}

/*
 * Echo request -> echo reply in place. Only the type changes in the sum:
 * the pseudo-header's addresses are the request's, swapped.
 */
static void
echo_reply(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	   struct rte_icmp_hdr *icmp, uint32_t off, uint32_t len)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	sp_icmp_retype(icmp, ICMPV6_ECHO_REPLY);
	memcpy(ip->dst_addr, ip->src_addr, sizeof(ip->dst_addr));
	memcpy(ip->src_addr, a->ip6, sizeof(ip->src_addr));
	ip->hop_limits = ECHO_REPLY_HOP_LIMIT;
	/* As for IPv4 (arp_echo.c): the update gives 0 where a full sum gives 0xffff. */
	if (icmp->icmp_cksum == 0)
		icmp->icmp_cksum = (uint16_t)~sp_cksum_fold((uint64_t)sp_mbuf_sum(m, off, len) +
							    rte_ipv6_phdr_cksum(ip, 0));
	eth->dst_addr = eth->src_addr;
	eth->src_addr = a->mac;
}

/*
 * Solicitation -> advertisement in place: to its sender (solicited), or
 * to all nodes when the sender has no address yet (duplicate address
 * detection), carrying the port's MAC.
 */
static enum sp_reason
advertise(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	  struct sp_decap_out *out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint32_t frame = RTE_ETHER_HDR_LEN + sizeof(*ip) + NA_LEN;
	bool dad = unspecified(ip->src_addr);
	struct nd_lladdr_opt *opt;
	struct nd_msg *na;

	/* The solicitation's options go; the advertisement's one takes their place. */
	if (rte_pktmbuf_pkt_len(m) < frame && rte_pktmbuf_append(m, frame - rte_pktmbuf_pkt_len(m)) == NULL)
		return SP_REASON_ND_IGNORED;
	if (rte_pktmbuf_pkt_len(m) > frame)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - frame);
	if (rte_pktmbuf_data_len(m) != frame) /* a chained solicitation: not worth a copy */
		return SP_REASON_ND_IGNORED;
	na = (struct nd_msg *)(ip + 1);
	opt = (struct nd_lladdr_opt *)(na + 1);
	/* The target stays: it is the port's address. */
	na->type = ND_NEIGHBOR_ADVERT;
	na->code = 0;
	na->cksum = 0;
	na->flags = dad ? ND_NA_OVERRIDE : ND_NA_SOLICITED | ND_NA_OVERRIDE;
	memset(na->reserved, 0, sizeof(na->reserved));
	opt->type = ND_OPT_TARGET_LLADDR;
	opt->len = 1;
	memcpy(opt->mac, a->mac.addr_bytes, sizeof(opt->mac));
	memcpy(ip->dst_addr, dad ? all_nodes : ip->src_addr, sizeof(ip->dst_addr));
	memcpy(ip->src_addr, a->ip6, sizeof(ip->src_addr));
	ip->payload_len = rte_cpu_to_be_16(NA_LEN);
	ip->hop_limits = ND_HOP_LIMIT;
	na->cksum = (uint16_t)~sp_cksum_fold((uint64_t)rte_raw_cksum(na, NA_LEN) +
						       rte_ipv6_phdr_cksum(ip, 0));
	if (dad)
		multicast_mac(all_nodes, &eth->dst_addr);
	else
		eth->dst_addr = eth->src_addr;
	eth->src_addr = a->mac;
	out->reply[out->nb_reply++] = m;
	return SP_REASON_NONE;
}

/* A solicitation that checked out: for the port's address, from a sender that may have one. */
static enum sp_reason
solicitation(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	     uint32_t len, struct sp_decap_out *out)
{
	const struct nd_msg *ns = (const struct nd_msg *)(ip + 1);
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (len < sizeof(*ns) || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + sizeof(*ns) ||
	    ns->code != 0 || memcmp(ns->target, a->ip6, sizeof(ns->target)) != 0 ||
	    !rte_is_unicast_ether_addr(&eth->src_addr))
		return SP_REASON_ND_IGNORED;
	/* Duplicate address detection asks the solicited-node group, never the address. */
	if (unspecified(ip->src_addr) && !solicited_node(a->ip6, ip->dst_addr))
		return SP_REASON_ND_IGNORED;
	if (ip->src_addr[0] == 0xff)
		return SP_REASON_ND_IGNORED;
	return advertise(a, m, ip, out);
}

/*
 * The MAC an advertisement's target link-layer option gives (the option
 * may come anywhere among them, each at least 8 bytes, RFC 4861 4.6), in
 * the first segment; false when it has none or an option is malformed.
 */
static bool
advert_lladdr(const struct rte_mbuf *m, const struct nd_msg *na, uint32_t len,
	      struct rte_ether_addr *mac)
{
	const uint8_t *opt = (const uint8_t *)(na + 1);
	const uint8_t *end = (const uint8_t *)na + len;
	bool found = false;

	if ((const uint8_t *)na + len >
	    rte_pktmbuf_mtod(m, const uint8_t *) + rte_pktmbuf_data_len(m))
		return false;
	while (opt < end) {
		uint32_t n;

		if (end - opt < 2 || opt[1] == 0 || (uint32_t)(end - opt) < (n = opt[1] * 8u))
			return false;
		if (opt[0] == ND_OPT_TARGET_LLADDR && opt[1] == 1 && !found) {
			memcpy(mac->addr_bytes, opt + 2, RTE_ETHER_ADDR_LEN);
			found = true;
		}
		opt += n;
	}
	return found;
}

int
sp_nd_advert_target(const struct rte_mbuf *m, struct sp_ip *ip, struct rte_ether_addr *mac)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(eth + 1);
	const struct nd_msg *na = (const struct nd_msg *)(ip6 + 1);
	uint32_t len;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip6) + sizeof(*na) ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) || ip6->proto != ICMPV6 ||
	    na->type != ND_NEIGHBOR_ADVERT)
		return -EINVAL;
	len = rte_be_to_cpu_16(ip6->payload_len);
	if (len < sizeof(*na) || !advert_lladdr(m, na, len, mac))
		return -EINVAL;
	*ip = sp_ip_v6(na->target);
	return 0;
}

/*
 * An advertisement that tells a neighbor's MAC goes up to the management
 * thread, which takes it only if it asked (mgmt/resolver.h): one to the
 * port's address (the answer to a solicitation), or one to all nodes
 * overriding what a neighbor had (RFC 4861 7.2.6: a host that moved).
 */
static enum sp_reason
advertisement(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
	      const struct rte_ipv6_hdr *ip, bool to_us, struct sp_decap_out *out)
{
	const struct nd_msg *na = (const struct nd_msg *)(ip + 1);
	struct rte_ether_addr mac;
	struct sp_ip target;

	if (ip->hop_limits != ND_HOP_LIMIT || sp_nd_advert_target(m, &target, &mac) < 0 ||
	    na->code != 0 || !rte_is_unicast_ether_addr(&mac))
		return SP_REASON_ND_IGNORED;
	/* Never a neighbor claiming our own address, nor one we could not send to. */
	if (memcmp(na->target, a->ip6, sizeof(na->target)) == 0 || sp_unusable_ipv6(na->target))
		return SP_REASON_ND_IGNORED;
	if (!(to_us ? na->flags & ND_NA_SOLICITED : na->flags & ND_NA_OVERRIDE))
		return SP_REASON_ND_IGNORED;
	m->port = port;
	out->learn[out->nb_learn++] = m;
	return SP_REASON_NONE;
}

struct rte_mbuf *
sp_nd_solicit(const struct sp_decap_table *t, struct rte_mempool *mp, uint16_t port,
	      const struct sp_ip *target)
{
	const struct sp_port_addr *a = sp_decap_port_addr(t, port);
	const uint32_t frame = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) + NS_LEN;
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	struct nd_lladdr_opt *opt;
	struct nd_msg *ns;
	struct rte_mbuf *m;

	if (a == NULL || !a->has_ip6 || sp_ip_is_v4(target))
		return NULL;
	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, frame);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eth, 0, frame);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	ns = (struct nd_msg *)(ip + 1);
	opt = (struct nd_lladdr_opt *)(ns + 1);
	/* To the target's solicited-node group, from the port's own address. */
	memcpy(ip->dst_addr, solicited_prefix, sizeof(solicited_prefix));
	memcpy(ip->dst_addr + 13, target->b + 13, 3);
	memcpy(ip->src_addr, a->ip6, sizeof(ip->src_addr));
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(NS_LEN);
	ip->proto = ICMPV6;
	ip->hop_limits = ND_HOP_LIMIT;
	ns->type = ND_NEIGHBOR_SOLICIT;
	memcpy(ns->target, target->b, sizeof(ns->target));
	opt->type = ND_OPT_SOURCE_LLADDR;
	opt->len = 1;
	memcpy(opt->mac, a->mac.addr_bytes, sizeof(opt->mac));
	ns->cksum = (uint16_t)~sp_cksum_fold((uint64_t)rte_raw_cksum(ns, NS_LEN) +
					     rte_ipv6_phdr_cksum(ip, 0));
	multicast_mac(ip->dst_addr, &eth->dst_addr);
	eth->src_addr = a->mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	m->port = port;
	return m;
}

bool
sp_ipv6_node_group(const struct sp_port_addr *a, const uint8_t dst[16])
{
	return solicited_node(a->ip6, dst) || memcmp(dst, all_nodes, sizeof(all_nodes)) == 0;
}

enum sp_reason
sp_ipv6_input(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m, bool to_us,
	      struct sp_decap_out *out)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t off = RTE_ETHER_HDR_LEN + sizeof(*ip), len = rte_be_to_cpu_16(ip->payload_len);
	struct rte_icmp_hdr *icmp;

	if (ip->proto != ICMPV6)
		return to_us ? SP_REASON_NOT_UDP : SP_REASON_NOT_LOCAL;
	if (len < sizeof(*icmp) || rte_pktmbuf_data_len(m) < off + sizeof(*icmp))
		return SP_REASON_TRUNCATED;
	if (!icmpv6_cksum_ok(m, ip, off, len))
		return SP_REASON_BAD_CHECKSUM;
	icmp = (struct rte_icmp_hdr *)(ip + 1);
	switch (icmp->icmp_type) {
	case ICMPV6_ECHO_REQUEST:
		if (!to_us || unspecified(ip->src_addr) || ip->src_addr[0] == 0xff ||
		    !rte_is_unicast_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr))
			return SP_REASON_ICMP_IGNORED;
		echo_reply(a, m, ip, icmp, off, len);
		out->reply[out->nb_reply++] = m;
		return SP_REASON_NONE;
	case ND_NEIGHBOR_SOLICIT:
		if (ip->hop_limits != ND_HOP_LIMIT)
			return SP_REASON_ND_IGNORED;
		return solicitation(a, m, ip, len, out);
	case ND_NEIGHBOR_ADVERT:
		return advertisement(a, port, m, ip, to_us, out);
	case ND_ROUTER_ADVERT:
		return SP_REASON_RA_IGNORED;
	case ND_ROUTER_SOLICIT:
	case ND_REDIRECT:
		return SP_REASON_ND_IGNORED;
	default:
		return SP_REASON_ICMP_IGNORED;
	}
}
