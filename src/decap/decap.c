/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Substrate decap (SPP Line Card, receive side). Each frame of a burst is
 * checked layer by layer (Ethernet, IPv4 or IPv6, UDP), unless a few compares
 * find it the common datagram (common_datagram(), common6.h's
 * common_datagram6()); what is addressed to the node
 * itself (ARP, ICMP echo) goes to arp_echo.c, UDP datagrams to a node address are
 * matched against the endpoint table and held to their endpoint's inbound
 * rate, and everything else is counted by reason and freed in one go.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>
#include <rte_icmp.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "../common/tbucket.h"
#include "arp_echo.h"
#include "common6.h"
#include "decap.h"
#include "decap_worker.h"
#include "../stats/stats.h"
#include "../common/log.h"

SP_LOG_TYPE("decap")

/*
 * The endpoint table: a port's endpoints in an array by UDP (or TCP) port,
 * since a frame is for an endpoint only if it is addressed to the port's
 * own address (and every endpoint of a port has it): one load finds a
 * frame's endpoint, where a hash lookup cost a tenth of the forwarding
 * lcore. An entry is one 64-bit word, written whole, so lookups never wait
 * and never see half an entry: the endpoint's address, flags, its slice
 * and index. A host slice's NAT range holds its numbers in the UDP and TCP
 * arrays (ICMP echo identifiers are looked up in the UDP one).
 */
#define EP_L4_PORTS 65536
#define EP_USED (UINT64_C(1) << 31)
#define EP_WHOLE (UINT64_C(1) << 30) /* the frame goes to its slice unstripped */
#define EP_NAT (UINT64_C(1) << 29)   /* a NAT range's number: no endpoint, no policer */
#define EP_POLICED (UINT64_C(1) << 28) /* the endpoint has an inbound rate */
#define EP_SLICE_SHIFT 16
#define EP_SLICE_MASK 0xffu /* bits 16 to 23; 24 to 27 free */

static uint64_t
ep_entry(uint32_t ip_be, uint16_t slice, uint16_t endpoint, uint64_t flags)
{
	RTE_BUILD_BUG_ON(SP_MAX_SLICES - 1 > EP_SLICE_MASK || SP_MAX_ENDPOINTS > UINT16_MAX);
	return (uint64_t)ip_be << 32 | EP_USED | flags | (uint32_t)slice << EP_SLICE_SHIFT | endpoint;
}

/* Is the entry an endpoint's (or a NAT range's) of that address? */
static bool
ep_matches(uint64_t e, uint32_t ip_be)
{
	return (e & EP_USED) && (uint32_t)(e >> 32) == ip_be;
}

/*
 * An endpoint's inbound policer. Configured while the endpoint is not in the
 * table; from then on only the lcores running sp_decap_burst() touch it,
 * under its lock if there are several (the table is shared).
 */
struct policer {
	struct sp_tb_rate rate; /* rate.rate_bps 0: not policed */
	uint64_t tokens, last;
	rte_spinlock_t lock;
};

struct sp_decap_table {
	/* By protocol and port: EP_L4_PORTS entries (ep_entry) from its first one on, else NULL. */
	uint64_t *eps[SP_L4_COUNT][SP_MAX_PORTS];
	int socket;
	uint32_t max_endpoints;
	uint32_t nb_endpoints;
	struct sp_port_addr ports[SP_MAX_PORTS];
	bool shared;
	struct policer police[SP_MAX_ENDPOINTS];
};

/* A policer's bucket holds at least two of the largest frames an mbuf takes. */
#define POLICE_MIN_DEPTH_BITS (2 * sp_wire_bytes(RTE_MBUF_DEFAULT_DATAROOM, SP_ETHER_OVERHEAD) * 8)

/* A datagram (or segment, or echo reply) to the port's address, as the checks found it. */
struct candidate {
	struct rte_mbuf *pkt;
	uint32_t rx_len;  /* frame length as received, for the slice and endpoint counters */
	uint32_t ip_be;   /* destination */
	uint16_t l4_port; /* destination port (an echo reply's identifier), host order */
	uint16_t hdr_len; /* Ethernet + IPv4 with options + UDP: what is stripped */
	uint8_t l4;       /* enum sp_l4: the table it is looked up in */
	uint8_t proto;    /* IPPROTO_UDP, _TCP or _ICMP */
	bool ipv6;        /* over IPv6: to the port's IPv6 address, which the port's endpoints share */
};

/* What the checks made of one frame. */
enum step {
	STEP_DROP,   /* for the reason returned alongside */
	STEP_DONE,   /* answered or passed up by arp_echo.c */
	STEP_LOOKUP, /* a datagram for the endpoint lookup */
	STEP_HOST,   /* for the host's interface (the port's host path) */
};

struct sp_decap_table *
sp_decap_create(const char *name, uint32_t max_endpoints, int socket)
{
	struct sp_decap_table *t;

	if (name == NULL || max_endpoints == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("sp_decap", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		SP_LOG(ERR, "no memory for endpoint table %s", name);
		rte_errno = ENOMEM;
		return NULL;
	}
	t->socket = socket;
	t->max_endpoints = max_endpoints;
	return t;
}

void
sp_decap_set_shared(struct sp_decap_table *t, bool shared)
{
	t->shared = shared;
}

void
sp_decap_free(struct sp_decap_table *t)
{
	if (t == NULL)
		return;
	for (unsigned int l4 = 0; l4 < SP_L4_COUNT; l4++)
		for (uint16_t p = 0; p < SP_MAX_PORTS; p++)
			rte_free(t->eps[l4][p]);
	rte_free(t);
}

const struct sp_port_addr *
sp_decap_port_addr(const struct sp_decap_table *t, uint16_t port)
{
	return port < SP_MAX_PORTS ? &t->ports[port] : NULL;
}

int
sp_decap_set_port(struct sp_decap_table *t, uint16_t port, uint32_t ip_be,
		  const struct rte_ether_addr *mac)
{
	if (t == NULL || port >= SP_MAX_PORTS || mac == NULL)
		return -EINVAL;
	t->ports[port].ip_be = ip_be;
	t->ports[port].mac = *mac;
	return 0;
}

void
sp_decap_set_ipv6(struct sp_decap_table *t, uint16_t port, const uint8_t ip6[16])
{
	if (t == NULL || port >= SP_MAX_PORTS)
		return;
	t->ports[port].has_ip6 = ip6 != NULL;
	memset(t->ports[port].ip6, 0, sizeof(t->ports[port].ip6));
	if (ip6 != NULL)
		memcpy(t->ports[port].ip6, ip6, sizeof(t->ports[port].ip6));
}

void
sp_decap_set_host(struct sp_decap_table *t, uint16_t port, bool host)
{
	if (t != NULL && port < SP_MAX_PORTS)
		t->ports[port].host = host;
}

void
sp_decap_set_rx_cksum(struct sp_decap_table *t, uint16_t port, bool device)
{
	if (t != NULL && port < SP_MAX_PORTS)
		t->ports[port].rx_ip_cksum = device;
}

int
sp_decap_set_inbound(struct sp_decap_table *t, uint16_t endpoint, uint64_t inbound_bps)
{
	struct policer *p;

	if (t == NULL || endpoint >= SP_MAX_ENDPOINTS)
		return -EINVAL;
	p = &t->police[endpoint];
	memset(p, 0, sizeof(*p));
	if (inbound_bps > 0) {
		sp_tb_rate_init(&p->rate, inbound_bps, POLICE_MIN_DEPTH_BITS, rte_get_tsc_hz());
		p->tokens = p->rate.depth;
		p->last = rte_get_tsc_cycles();
	}
	return 0;
}

/* The port's entries of protocol l4, made at the first; NULL with no memory. */
static uint64_t *
port_entries(struct sp_decap_table *t, enum sp_l4 l4, uint16_t port)
{
	uint64_t *eps = t->eps[l4][port];

	if (eps != NULL)
		return eps;
	eps = rte_zmalloc_socket("sp_decap_eps", EP_L4_PORTS * sizeof(eps[0]), RTE_CACHE_LINE_SIZE,
				 t->socket);
	if (eps == NULL) {
		SP_LOG(ERR, "no memory for port %u's endpoint table", port);
		return NULL;
	}
	/* Zeroed before lookups can see it. */
	__atomic_store_n(&t->eps[l4][port], eps, __ATOMIC_RELEASE);
	return eps;
}

bool
sp_decap_taken(const struct sp_decap_table *t, uint16_t port, enum sp_l4 l4, uint16_t num)
{
	return t->eps[l4][port] != NULL && (t->eps[l4][port][num] & EP_USED);
}

int
sp_decap_add_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, enum sp_l4 l4,
		      uint16_t l4_port_be, uint16_t slice, uint16_t endpoint, bool whole)
{
	uint16_t num = rte_be_to_cpu_16(l4_port_be);
	uint64_t *eps;

	if (t == NULL || port >= SP_MAX_PORTS || l4 >= SP_L4_COUNT || slice >= SP_MAX_SLICES ||
	    endpoint >= SP_MAX_ENDPOINTS)
		return -EINVAL;
	/* A port has one address: its UDP port is taken whatever address the other names. */
	if (sp_decap_taken(t, port, l4, num))
		return -EEXIST;
	if (t->nb_endpoints >= t->max_endpoints)
		return -ENOSPC;
	eps = port_entries(t, l4, port);
	if (eps == NULL)
		return -ENOMEM;
	__atomic_store_n(&eps[num], ep_entry(ip_be, slice, endpoint, (whole ? EP_WHOLE : 0) |
					     (t->police[endpoint].rate.rate_bps ? EP_POLICED : 0)),
			 __ATOMIC_RELEASE);
	t->nb_endpoints++;
	SP_LOG(DEBUG, "port %u %s %u: slice %u endpoint %u", port, l4 == SP_L4_TCP ? "tcp" : "udp",
	       num, slice, endpoint);
	return 0;
}

int
sp_decap_del_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, enum sp_l4 l4,
		      uint16_t l4_port_be)
{
	uint16_t num = rte_be_to_cpu_16(l4_port_be);

	if (t == NULL || port >= SP_MAX_PORTS || l4 >= SP_L4_COUNT)
		return -EINVAL;
	if (t->eps[l4][port] == NULL || !ep_matches(t->eps[l4][port][num], ip_be) ||
	    (t->eps[l4][port][num] & EP_NAT))
		return -ENOENT;
	/* A lookup that read the entry just before hands its frame over as before the call. */
	__atomic_store_n(&t->eps[l4][port][num], 0, __ATOMIC_RELEASE);
	t->nb_endpoints--;
	SP_LOG(DEBUG, "port %u %s %u: released", port, l4 == SP_L4_TCP ? "tcp" : "udp", num);
	return 0;
}

int
sp_decap_add_nat(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, uint16_t first,
		 uint16_t count, uint16_t slice)
{
	uint64_t *eps[SP_L4_COUNT];

	if (t == NULL || port >= SP_MAX_PORTS || slice >= SP_MAX_SLICES || count == 0 ||
	    first + count - 1 > UINT16_MAX)
		return -EINVAL;
	for (unsigned int l4 = 0; l4 < SP_L4_COUNT; l4++) {
		for (uint32_t num = first; num < (uint32_t)first + count; num++)
			if (sp_decap_taken(t, port, l4, (uint16_t)num))
				return -EEXIST;
		eps[l4] = port_entries(t, l4, port);
		if (eps[l4] == NULL)
			return -ENOMEM;
	}
	for (unsigned int l4 = 0; l4 < SP_L4_COUNT; l4++)
		for (uint32_t num = first; num < (uint32_t)first + count; num++)
			__atomic_store_n(&eps[l4][num], ep_entry(ip_be, slice, 0, EP_NAT),
					 __ATOMIC_RELEASE);
	return 0;
}

void
sp_decap_del_nat(struct sp_decap_table *t, uint16_t port, uint16_t first, uint16_t count)
{
	for (unsigned int l4 = 0; t != NULL && port < SP_MAX_PORTS && l4 < SP_L4_COUNT; l4++)
		for (uint32_t num = first; t->eps[l4][port] != NULL && num < (uint32_t)first + count;
		     num++)
			if (t->eps[l4][port][num] & EP_NAT)
				__atomic_store_n(&t->eps[l4][port][num], 0, __ATOMIC_RELEASE);
}

/*
 * Cut the frame to len bytes. Only the last segment can shrink in place; a
 * multi-segment frame whose excess spans segments is refused.
 */
static bool
trim_to(struct rte_mbuf *m, uint32_t len)
{
	uint32_t excess = rte_pktmbuf_pkt_len(m) - len;

	return excess == 0 || (excess <= UINT16_MAX && rte_pktmbuf_trim(m, excess) == 0);
}

/*
 * The outer IPv4 header's checksum: as the port's device found it where it
 * checks (rx offload: GOOD, or NONE, the header whole all the same), else
 * in software (the virtual devices but net_tap have no such offload). A
 * constant device (false) leaves no test of the flags in the loop.
 */
static __rte_always_inline bool
outer_cksum_ok(bool device, const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
	       uint16_t hlen)
{
	uint64_t f = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;

	if (device && f != RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN)
		return (f & RTE_MBUF_F_RX_IP_CKSUM_GOOD) != 0;
	return sp_ipv4_hdr_cksum_ok(ip, hlen);
}

/*
 * Outer IPv4 header: consistent, complete, checksum right (outer_cksum_ok()),
 * not a fragment. On success the
 * frame is cut to the IPv4 total length, so Ethernet padding is gone.
 */
static enum sp_reason
check_ipv4(const struct sp_port_addr *a, struct rte_mbuf *m, struct rte_ipv4_hdr *ip)
{
	uint32_t avail = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	uint16_t hlen = rte_ipv4_hdr_len(ip);
	uint16_t total = rte_be_to_cpu_16(ip->total_length);

	if (ip->version != 4 || hlen < sizeof(*ip) || total < hlen)
		return SP_REASON_BAD_IP_HEADER;
	/* Headers are read in place, so they must sit in the first segment. */
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + hlen || total > avail)
		return SP_REASON_TRUNCATED;
	/* A header with the right checksum sums to all ones. */
	if (!outer_cksum_ok(a->rx_ip_cksum, m, ip, hlen))
		return SP_REASON_BAD_IP_HEADER;
	if (!trim_to(m, RTE_ETHER_HDR_LEN + total))
		return SP_REASON_TRUNCATED;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		return SP_REASON_FRAGMENT;
	return SP_REASON_NONE;
}

/* UDP header complete and its length within the IPv4 payload; cut to the UDP length. */
static enum sp_reason
check_udp(struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, struct candidate *c)
{
	uint16_t hlen = rte_ipv4_hdr_len(ip);
	uint16_t payload = rte_be_to_cpu_16(ip->total_length) - hlen;
	uint16_t l4 = RTE_ETHER_HDR_LEN + hlen;
	const struct rte_udp_hdr *udp;
	uint16_t udp_len;

	if (payload < sizeof(*udp) || rte_pktmbuf_data_len(m) < l4 + sizeof(*udp))
		return SP_REASON_TRUNCATED;
	udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, l4);
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len < sizeof(*udp) || udp_len > payload || !trim_to(m, l4 + udp_len))
		return SP_REASON_TRUNCATED;

	c->ip_be = ip->dst_addr;
	c->l4_port = rte_be_to_cpu_16(udp->dst_port);
	c->hdr_len = l4 + sizeof(*udp);
	c->l4 = SP_L4_UDP;
	c->proto = IPPROTO_UDP;
	return SP_REASON_NONE;
}

/* TCP header complete (options included) within the IPv4 payload: for a host slice's endpoint. */
static enum sp_reason
check_tcp(struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, struct candidate *c)
{
	uint16_t hlen = rte_ipv4_hdr_len(ip);
	uint16_t payload = rte_be_to_cpu_16(ip->total_length) - hlen;
	uint16_t l4 = RTE_ETHER_HDR_LEN + hlen;
	const struct rte_tcp_hdr *tcp;

	if (payload < sizeof(*tcp) || rte_pktmbuf_data_len(m) < l4 + sizeof(*tcp))
		return SP_REASON_TRUNCATED;
	tcp = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *, l4);
	if ((tcp->data_off >> 4) * 4u < sizeof(*tcp) || (tcp->data_off >> 4) * 4u > payload)
		return SP_REASON_TRUNCATED;
	c->ip_be = ip->dst_addr;
	c->l4_port = rte_be_to_cpu_16(tcp->dst_port);
	c->hdr_len = 0; /* host slices take whole frames */
	c->l4 = SP_L4_TCP;
	c->proto = IPPROTO_TCP;
	return SP_REASON_NONE;
}

/*
 * An echo reply whose identifier is in a host slice's NAT range (the answer
 * to a ping its program sent): for that slice, whole.
 */
static bool
nat_echo_reply(const struct sp_decap_table *t, uint16_t port, struct rte_mbuf *m,
	       const struct rte_ipv4_hdr *ip, struct candidate *c)
{
	const uint64_t *eps = __atomic_load_n(&t->eps[SP_L4_UDP][port], __ATOMIC_ACQUIRE);
	uint16_t hlen = rte_ipv4_hdr_len(ip);
	const struct rte_icmp_hdr *icmp;

	if (eps == NULL || rte_be_to_cpu_16(ip->total_length) < hlen + sizeof(*icmp) ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + hlen + sizeof(*icmp))
		return false;
	icmp = (const struct rte_icmp_hdr *)((const uint8_t *)ip + hlen);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REPLY ||
	    !(__atomic_load_n(&eps[rte_be_to_cpu_16(icmp->icmp_ident)], __ATOMIC_ACQUIRE) & EP_NAT))
		return false;
	c->ip_be = ip->dst_addr;
	c->l4_port = rte_be_to_cpu_16(icmp->icmp_ident);
	c->hdr_len = 0;
	c->l4 = SP_L4_UDP;
	c->proto = IPPROTO_ICMP;
	return true;
}

/* IPv4 to the receiving port's own address (another port's address does not count). */
static enum step
classify_ipv4(const struct sp_decap_table *t, uint16_t port, struct rte_mbuf *m,
	      struct sp_decap_out *out, struct candidate *c, enum sp_reason *why)
{
	const struct sp_port_addr *a = &t->ports[port];
	struct rte_ipv4_hdr *ip;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip)) {
		*why = SP_REASON_TRUNCATED;
		return STEP_DROP;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	*why = check_ipv4(a, m, ip);
	if (*why != SP_REASON_NONE)
		return STEP_DROP;
	if (a->ip_be == 0 || ip->dst_addr != a->ip_be) {
		*why = SP_REASON_NOT_LOCAL;
		return STEP_DROP;
	}
	switch (ip->next_proto_id) {
	case IPPROTO_UDP:
		*why = check_udp(m, ip, c);
		return *why == SP_REASON_NONE ? STEP_LOOKUP : STEP_DROP;
	case IPPROTO_TCP:
		if (t->eps[SP_L4_TCP][port] == NULL)
			goto not_udp; /* no host slice has a TCP endpoint on the port */
		*why = check_tcp(m, ip, c);
		return *why == SP_REASON_NONE ? STEP_LOOKUP : STEP_DROP;
	case IPPROTO_ICMP:
		if (nat_echo_reply(t, port, m, ip, c))
			return STEP_LOOKUP;
		*why = sp_icmp_input(a, m, ip, out);
		/* Errors and echo replies for the host's connections; an echo request the
		 * node would not answer (a multicast sender) is nobody's. The ICMP header is
		 * there: sp_icmp_input() checked it before ignoring. */
		if (*why == SP_REASON_ICMP_IGNORED && a->host &&
		    ((const struct rte_icmp_hdr *)((const uint8_t *)ip + rte_ipv4_hdr_len(ip)))
				    ->icmp_type != RTE_IP_ICMP_ECHO_REQUEST)
			return STEP_HOST;
		return *why == SP_REASON_NONE ? STEP_DONE : STEP_DROP;
	default:
	not_udp:
		*why = SP_REASON_NOT_UDP;
		return a->host ? STEP_HOST : STEP_DROP;
	}
}

/*
 * IPv6 to a port with an IPv6 address: a UDP datagram to the address is for
 * the endpoint of its port number, as over IPv4 (the endpoint's entry names
 * the port's IPv4 address); the rest is the node's own (nd_echo.c).
 */
static enum step
classify_ipv6(const struct sp_decap_table *t, uint16_t port, struct rte_mbuf *m,
	      struct sp_decap_out *out, struct candidate *c, enum sp_reason *why)
{
	const struct sp_port_addr *a = &t->ports[port];
	bool to_us;

	*why = sp_ipv6_header(a, m, &to_us);
	if (*why != SP_REASON_NONE)
		return STEP_DROP;
	if (to_us && rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
					     RTE_ETHER_HDR_LEN)->proto == IPPROTO_UDP) {
		*why = sp_udp6_datagram(m, &c->l4_port);
		c->ip_be = a->ip_be;
		c->hdr_len = SP_OUTER6_HDR_LEN;
		c->l4 = SP_L4_UDP;
		c->proto = IPPROTO_UDP;
		c->ipv6 = true;
		return *why == SP_REASON_NONE ? STEP_LOOKUP : STEP_DROP;
	}
	*why = sp_ipv6_input(a, port, m, to_us, out);
	return *why == SP_REASON_NONE ? STEP_DONE : STEP_DROP;
}

static enum step
classify(const struct sp_decap_table *t, uint16_t port, struct rte_mbuf *m,
	 struct sp_decap_out *out, struct candidate *c, enum sp_reason *why)
{
	const struct sp_port_addr *a = &t->ports[port];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	c->pkt = m;
	c->rx_len = rte_pktmbuf_pkt_len(m);
	c->ipv6 = false;
	*why = SP_REASON_NONE;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		*why = SP_REASON_TRUNCATED;
	else if (!rte_is_same_ether_addr(&eth->dst_addr, &a->mac) &&
		 !rte_is_broadcast_ether_addr(&eth->dst_addr) &&
		 !sp_ipv6_multicast_mac(a, &eth->dst_addr))
		*why = SP_REASON_OTHER_MAC;
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		*why = sp_arp_input(a, port, m, out);
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return classify_ipv4(t, port, m, out, c, why);
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && a->has_ip6)
		return classify_ipv6(t, port, m, out, c, why);
	else
		*why = SP_REASON_NOT_IPV4; /* VLAN tags included: ports are untagged */
	return *why == SP_REASON_NONE ? STEP_DONE : STEP_DROP;
}

/*
 * The frame as nearly all come: one segment, to the port's MAC, IPv4
 * without options, no fragment, UDP to the port's address, lengths that
 * agree to the byte (nothing to trim), checksum right. A few masked
 * compares of 64-bit words, one branch, instead of classify()'s
 * layer-by-layer checks, whose answer for such a frame is the same; it
 * takes every other frame and says why.
 */
struct common_want {
	/* What the 8 bytes at 0 (destination MAC), 12 (EtherType, version and
	 * header length) and 20 (fragment field, protocol) must be, under
	 * their masks; as the bytes lie in memory, whatever the CPU's order. */
	uint64_t mac, mac_mask, ether_ip, ether_ip_mask, frag_proto, frag_proto_mask;
	uint32_t ip_be; /* the destination: the port's address */
};

static void
common_want_init(struct common_want *w, const struct sp_port_addr *a)
{
	uint8_t want[3][8] = {{0}}, mask[3][8] = {{0}};

	memcpy(want[0], a->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memset(mask[0], 0xff, RTE_ETHER_ADDR_LEN);
	want[1][0] = RTE_ETHER_TYPE_IPV4 >> 8;
	want[1][1] = RTE_ETHER_TYPE_IPV4 & 0xff;
	/* A port without an address has no common frame: no IPv4 version is 0. */
	want[1][2] = a->ip_be != 0 ? RTE_IPV4_VHL_DEF : 0;
	memset(mask[1], 0xff, 3);
	/* The fragment field but DF (big-endian), and the protocol. */
	mask[2][0] = (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK) >> 8;
	mask[2][1] = 0xff;
	want[2][3] = IPPROTO_UDP;
	mask[2][3] = 0xff;
	memcpy(&w->mac, want[0], sizeof(w->mac));
	memcpy(&w->mac_mask, mask[0], sizeof(w->mac_mask));
	memcpy(&w->ether_ip, want[1], sizeof(w->ether_ip));
	memcpy(&w->ether_ip_mask, mask[1], sizeof(w->ether_ip_mask));
	memcpy(&w->frag_proto, want[2], sizeof(w->frag_proto));
	memcpy(&w->frag_proto_mask, mask[2], sizeof(w->frag_proto_mask));
	w->ip_be = a->ip_be;
}

/* The 8 bytes at p that differ from want, under mask. */
static __rte_always_inline uint64_t
masked_diff(const uint8_t *p, uint64_t want, uint64_t mask)
{
	uint64_t word;

	memcpy(&word, p, sizeof(word));
	return (word ^ want) & mask;
}

static __rte_always_inline bool
common_datagram(const struct common_want *w, bool device_cksum, const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t diff;

	if (rte_pktmbuf_data_len(m) != len || len < SP_OUTER_HDR_LEN)
		return false;
	diff = masked_diff(p, w->mac, w->mac_mask) |
	       masked_diff(p + 12, w->ether_ip, w->ether_ip_mask) |
	       masked_diff(p + 20, w->frag_proto, w->frag_proto_mask);
	diff |= ip->dst_addr ^ w->ip_be;
	diff |= rte_be_to_cpu_16(ip->total_length) ^ (len - RTE_ETHER_HDR_LEN);
	diff |= rte_be_to_cpu_16(udp->dgram_len) ^ (len - RTE_ETHER_HDR_LEN - sizeof(*ip));
	return diff == 0 && outer_cksum_ok(device_cksum, m, ip, sizeof(*ip));
}

/*
 * A common datagram (IPv4's or IPv6's, hdr_len bytes of headers) as the
 * candidate the other frames' checks make: to the port's address (an
 * endpoint's entry names its IPv4 one, ip_be, for both).
 */
static void
common_candidate(struct rte_mbuf *m, uint16_t hdr_len, uint32_t ip_be, struct candidate *c)
{
	const struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *,
								hdr_len - sizeof(*udp));

	c->pkt = m;
	c->rx_len = rte_pktmbuf_pkt_len(m);
	c->ip_be = ip_be;
	c->l4_port = rte_be_to_cpu_16(udp->dst_port);
	c->hdr_len = hdr_len;
	c->l4 = SP_L4_UDP;
	c->proto = IPPROTO_UDP;
	c->ipv6 = hdr_len == SP_OUTER6_HDR_LEN;
}

/* The bucket's arithmetic: does the frame fit at TSC now (taking its tokens)? */
static bool
take_tokens(struct policer *p, uint32_t rx_len, uint64_t now)
{
	uint64_t cost = sp_tb_cost(sp_wire_bytes(rx_len, SP_ETHER_OVERHEAD));

	/* Another lcore may have stamped a later TSC: no time passed for this one. */
	p->tokens = sp_tb_refill(&p->rate, p->tokens, now > p->last ? now - p->last : 0);
	p->last = RTE_MAX(now, p->last);
	if (cost > p->tokens)
		return false;
	p->tokens -= cost;
	return true;
}

/* Whether a frame of rx_len bytes fits the policed endpoint's inbound rate at TSC now; takes its tokens. */
static bool
within_inbound(const struct sp_decap_table *t, struct policer *p, uint32_t rx_len, uint64_t now)
{
	bool fits;

	if (!t->shared)
		return take_tokens(p, rx_len, now);
	rte_spinlock_lock(&p->lock);
	fits = take_tokens(p, rx_len, now);
	rte_spinlock_unlock(&p->lock);
	return fits;
}

/* Whole frames, as received, like the port counter: what arrived, policed or not. */
static __rte_always_inline void
count_rx(struct sp_lcore_stats *st, uint16_t slice, uint16_t endpoint, uint32_t rx_len)
{
	st->slice[slice].rx.pkts++;
	st->slice[slice].rx.bytes += rx_len;
	if (endpoint != SP_ENDPOINT_NAT) {
		st->endpoint[endpoint].rx.pkts++;
		st->endpoint[endpoint].rx.bytes += rx_len;
	}
}

/*
 * The packet is its slice's from here: the metadata the NPE starts from,
 * all else zero but the key, which the code option's parse() writes (as
 * wide as its key is: docs/codeopt.md), in as few stores as the compiler
 * finds.
 */
static __rte_always_inline void
hand_over(struct rte_mbuf *m, uint16_t slice, uint16_t endpoint, struct sp_decap_out *out)
{
	struct sp_meta *meta = sp_meta(m);

	memset(meta, 0, offsetof(struct sp_meta, key));
	meta->slice = slice;
	meta->in_ep = endpoint;
	meta->verdict = SP_FORWARD;
	out->fwd[out->nb_fwd++] = m;
}

/*
 * Strip the outer headers (data offset only, no copy) and hand the packet
 * to its slice, or drop it (inbound_rate) beyond its endpoint's inbound rate.
 * A host slice's frames go whole; those of its NAT range have no endpoint.
 * False when dropped.
 */
static bool
to_slice(struct sp_decap_table *t, const struct candidate *c, uint64_t e, uint64_t now,
	 struct sp_decap_out *out, struct sp_lcore_stats *st)
{
	uint16_t slice = (uint32_t)e >> EP_SLICE_SHIFT & EP_SLICE_MASK;
	uint16_t endpoint = e & EP_NAT ? SP_ENDPOINT_NAT : e & UINT16_MAX;

	count_rx(st, slice, endpoint, c->rx_len);
	if ((e & EP_POLICED) && !within_inbound(t, &t->police[endpoint], c->rx_len, now)) {
		st->slice[slice].drop.pkts++;
		st->slice[slice].drop.bytes += c->rx_len;
		st->slice[slice].reason[SP_REASON_INBOUND_RATE]++;
		st->reason[SP_REASON_INBOUND_RATE]++;
		return false;
	}
	if (!(e & (EP_WHOLE | EP_NAT)))
		rte_pktmbuf_adj(c->pkt, c->hdr_len);
	hand_over(c->pkt, slice, endpoint, out);
	return true;
}

/*
 * The endpoint of a datagram (or a host slice's segment or echo reply) to
 * the port's address, in its protocol's entries (eps: the port's UDP ones,
 * NULL before its first endpoint), then to_slice(); with none, the host's
 * when the port has a host path. False when dropped, the reason counted.
 */
static bool
to_endpoint(struct sp_decap_table *t, uint16_t port, const uint64_t *eps,
	    const struct candidate *c, uint64_t now, struct sp_decap_out *out,
	    struct sp_lcore_stats *st)
{
	uint64_t e;

	if (c->l4 != SP_L4_UDP)
		eps = __atomic_load_n(&t->eps[c->l4][port], __ATOMIC_ACQUIRE);
	e = eps != NULL ? __atomic_load_n(&eps[c->l4_port], __ATOMIC_ACQUIRE) : 0;
	/* Host slices stay IPv4: their endpoints, NAT ranges and host paths take no IPv6. */
	if (c->ipv6 && (e & (EP_WHOLE | EP_NAT)))
		e = 0;
	/* A fast-path slice's UDP endpoint takes no echo reply; a NAT range takes any. */
	if (!ep_matches(e, c->ip_be) || (c->proto == IPPROTO_ICMP && !(e & EP_NAT))) {
		if (t->ports[port].host && !c->ipv6) {
			out->host[out->nb_host++] = c->pkt;
			return true;
		}
		st->reason[c->proto == IPPROTO_UDP ? SP_REASON_NO_ENDPOINT :
			   c->proto == IPPROTO_TCP ? SP_REASON_NOT_UDP : SP_REASON_ICMP_IGNORED]++;
		return false;
	}
	return to_slice(t, c, e, now, out, st);
}

/*
 * A common datagram's endpoint entry, when it asks for nothing more: an
 * endpoint of the port's address, neither policed nor whole nor NAT.
 */
static __rte_always_inline bool
plain_endpoint(uint64_t e, uint32_t ip_be)
{
	const uint64_t mask = UINT64_C(0xffffffff) << 32 | EP_USED | EP_WHOLE | EP_NAT | EP_POLICED;

	return ((e ^ (uint64_t)ip_be << 32) & mask) == EP_USED;
}

/*
 * The burst's frames, each handed to its slice, answered, passed up or put
 * in drop[] (returned: how many); their bytes added to *bytes. Inlined
 * twice (sp_decap_burst()) so that device_cksum is a constant: where the
 * device checks nothing, the loop tests no flag.
 */
static __rte_always_inline uint16_t
decap_frames(struct sp_decap_table *t, uint16_t port, bool device_cksum, struct rte_mbuf **pkts,
	     uint16_t n, struct sp_decap_out *out, struct sp_lcore_stats *st,
	     struct rte_mbuf **drop, uint64_t *bytes)
{
	const uint64_t *eps = __atomic_load_n(&t->eps[SP_L4_UDP][port], __ATOMIC_ACQUIRE);
	uint64_t now = rte_get_tsc_cycles();
	uint16_t nb_drop = 0;
	struct common_want want;
	struct common6_want want6;
	struct candidate c;
	enum sp_reason why;

	common_want_init(&want, &t->ports[port]);
	common6_want_init(&want6, &t->ports[port]);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		/* The common datagram's headers, over IPv4 or IPv6; 0: some other frame. */
		uint16_t hdr = common_datagram(&want, device_cksum, m) ? SP_OUTER_HDR_LEN :
			       common_datagram6(&want6, m)	       ? SP_OUTER6_HDR_LEN :
									 0;
		enum step step;

		*bytes += rte_pktmbuf_pkt_len(m);
		if (hdr != 0) {
			const struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(
				m, const struct rte_udp_hdr *, hdr - sizeof(*udp));
			uint64_t e = eps != NULL ? __atomic_load_n(&eps[rte_be_to_cpu_16(udp->dst_port)],
								   __ATOMIC_ACQUIRE) : 0;

			if (likely(plain_endpoint(e, want.ip_be))) {
				/* Checked whole: the outer headers are there to strip. */
				uint16_t slice = (uint32_t)e >> EP_SLICE_SHIFT & EP_SLICE_MASK;

				count_rx(st, slice, e & UINT16_MAX, rte_pktmbuf_pkt_len(m));
				m->data_off += hdr;
				m->data_len -= hdr;
				m->pkt_len -= hdr;
				hand_over(m, slice, e & UINT16_MAX, out);
				continue;
			}
			common_candidate(m, hdr, want.ip_be, &c);
			step = STEP_LOOKUP;
		} else {
			step = classify(t, port, m, out, &c, &why);
		}
		switch (step) {
		case STEP_LOOKUP:
			if (!to_endpoint(t, port, eps, &c, now, out, st))
				drop[nb_drop++] = m;
			break;
		case STEP_HOST:
			out->host[out->nb_host++] = m;
			break;
		case STEP_DROP:
			st->reason[why]++;
			drop[nb_drop++] = m;
			break;
		case STEP_DONE:
			break;
		}
	}
	return nb_drop;
}

void
sp_decap_burst(struct sp_decap_table *t, uint16_t port, struct rte_mbuf **pkts,
	       uint16_t n, struct sp_decap_out *out, struct sp_lcore_stats *st)
{
	const struct sp_port_addr *a = &t->ports[port];
	struct rte_mbuf *drop[SP_BURST];
	uint64_t bytes = 0;
	uint16_t nb_drop, i;

	RTE_ASSERT(n <= SP_BURST && port < SP_MAX_PORTS);
	out->nb_fwd = 0;
	out->nb_reply = 0;
	out->nb_learn = 0;
	out->nb_host = 0;
	if (a->rx_ip_cksum)
		nb_drop = decap_frames(t, port, true, pkts, n, out, st, drop, &bytes);
	else
		nb_drop = decap_frames(t, port, false, pkts, n, out, st, drop, &bytes);
	st->port[port].rx.pkts += n;
	st->port[port].rx.bytes += bytes;
	if (nb_drop > 0)
		rte_pktmbuf_free_bulk(drop, nb_drop);
	/* The host resolves its own neighbors: it gets a copy of the ARP replies (its path takes no IPv6). */
	for (i = 0; a->host && i < out->nb_learn && out->nb_host < SP_BURST; i++) {
		struct rte_mbuf *copy;

		if (rte_pktmbuf_mtod(out->learn[i], const struct rte_ether_hdr *)->ether_type !=
		    RTE_BE16(RTE_ETHER_TYPE_ARP))
			continue;
		copy = rte_pktmbuf_copy(out->learn[i], out->learn[i]->pool, 0, UINT32_MAX);
		if (copy != NULL)
			out->host[out->nb_host++] = copy;
	}
}
