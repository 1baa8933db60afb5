/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Substrate decap (SPP Line Card, receive side). Each frame of a burst is
 * checked layer by layer (Ethernet, IPv4, UDP); what is addressed to the node
 * itself (ARP, ICMP echo) goes to arp.c, UDP datagrams to a node address are
 * matched against the endpoint table in one bulk lookup for the whole burst
 * and held to their endpoint's inbound rate, and everything else is counted
 * by reason and freed in one go.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_udp.h>

#include "../common/tbucket.h"
#include "arp.h"
#include "decap.h"

RTE_LOG_REGISTER(sp_decap_logtype, slicepath.decap, INFO);

#define DECAP_LOG(level, fmt, ...)                                                                 \
	rte_log(RTE_LOG_##level, sp_decap_logtype, "decap: " fmt "\n", ##__VA_ARGS__)

/* rte_hash refuses tables smaller than one bucket. */
#define HASH_MIN_ENTRIES 8

/* Endpoint table key; built whole (no uninitialised padding) so equal keys hash equal. */
struct ep_key {
	uint32_t ip_be;
	uint16_t udp_port_be;
	uint16_t port;
};

/*
 * An endpoint's inbound policer. Configured while the endpoint is not in the
 * table; from then on only the lcore running sp_decap_burst() touches it.
 */
struct policer {
	struct sp_tb_rate rate; /* rate.rate_bps 0: not policed */
	uint64_t tokens, last;
};

struct sp_decap_table {
	struct rte_hash *eps; /* ep_key -> (slice << 16 | endpoint), stored in the data pointer */
	uint32_t max_endpoints;
	uint32_t nb_endpoints;
	bool rcu; /* the hash's RCU defer queue reclaims deleted slots */
	struct sp_port_addr ports[SP_MAX_PORTS];
	struct policer police[SP_MAX_ENDPOINTS];
};

/* A policer's bucket holds at least two of the largest frames an mbuf takes. */
#define POLICE_MIN_DEPTH_BITS (2 * sp_wire_bytes(RTE_MBUF_DEFAULT_DATAROOM, SP_ETHER_OVERHEAD) * 8)

/* A UDP datagram to a node address, waiting for the burst's endpoint lookup. */
struct candidate {
	struct rte_mbuf *m;
	uint32_t rx_len;  /* frame length as received, for the slice and endpoint counters */
	uint16_t hdr_len; /* Ethernet + IPv4 with options + UDP: what is stripped */
};

/* What the checks made of one frame. */
enum step {
	STEP_DROP,   /* for the reason returned alongside */
	STEP_DONE,   /* answered or passed up by arp.c */
	STEP_LOOKUP, /* a candidate for the endpoint lookup */
};

static void *
ep_value(uint16_t slice, uint16_t endpoint)
{
	return (void *)(uintptr_t)((uint32_t)slice << 16 | endpoint);
}

struct sp_decap_table *
sp_decap_create(const char *name, uint32_t max_endpoints, int socket)
{
	struct rte_hash_parameters p = {
		.name = name,
		.entries = RTE_MAX(max_endpoints, (uint32_t)HASH_MIN_ENTRIES),
		.key_len = sizeof(struct ep_key),
		.socket_id = socket,
		/* One writer, readers never wait; the extendable buckets make every
		 * one of the max_endpoints entries fit whatever their hashes. */
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct sp_decap_table *t;

	RTE_BUILD_BUG_ON(sizeof(struct ep_key) != 8);
	if (name == NULL || max_endpoints == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("sp_decap", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	t->eps = rte_hash_create(&p);
	if (t->eps == NULL) {
		DECAP_LOG(ERR, "cannot create endpoint table %s for %u endpoints: %s", name,
			  max_endpoints, rte_strerror(rte_errno));
		rte_free(t);
		return NULL;
	}
	t->max_endpoints = max_endpoints;
	return t;
}

void
sp_decap_free(struct sp_decap_table *t)
{
	if (t == NULL)
		return;
	rte_hash_free(t->eps);
	rte_free(t);
}

int
sp_decap_set_rcu(struct sp_decap_table *t, struct rte_rcu_qsbr *v)
{
	struct rte_hash_rcu_config cfg = {.v = v, .mode = RTE_HASH_QSBR_MODE_DQ};

	if (t == NULL || v == NULL)
		return -EINVAL;
	if (rte_hash_rcu_qsbr_add(t->eps, &cfg) != 0) {
		DECAP_LOG(ERR, "cannot attach RCU to the endpoint table: %s",
			  rte_strerror(rte_errno));
		return -rte_errno;
	}
	t->rcu = true;
	return 0;
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

int
sp_decap_add_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be,
		      uint16_t udp_port_be, uint16_t slice, uint16_t endpoint)
{
	const struct ep_key key = {.ip_be = ip_be, .udp_port_be = udp_port_be, .port = port};
	int ret;

	if (t == NULL || port >= SP_MAX_PORTS || slice >= SP_MAX_SLICES ||
	    endpoint >= SP_MAX_ENDPOINTS)
		return -EINVAL;
	/* rte_hash would silently overwrite a taken key. */
	if (rte_hash_lookup(t->eps, &key) >= 0)
		return -EEXIST;
	if (t->nb_endpoints >= t->max_endpoints)
		return -ENOSPC;
	ret = rte_hash_add_key_data(t->eps, &key, ep_value(slice, endpoint));
	if (ret < 0)
		return ret;
	t->nb_endpoints++;
	DECAP_LOG(DEBUG, "port %u udp %u: slice %u endpoint %u", port,
		  rte_be_to_cpu_16(udp_port_be), slice, endpoint);
	return 0;
}

int
sp_decap_del_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be,
		      uint16_t udp_port_be)
{
	const struct ep_key key = {.ip_be = ip_be, .udp_port_be = udp_port_be, .port = port};
	int32_t pos;

	if (t == NULL)
		return -EINVAL;
	pos = rte_hash_del_key(t->eps, &key);
	if (pos < 0)
		return pos;
	/* Lock-free readers may still hold the slot: with RCU the hash frees it
	 * once they have all passed a quiescent state. */
	if (!t->rcu)
		rte_hash_free_key_with_position(t->eps, pos);
	t->nb_endpoints--;
	DECAP_LOG(DEBUG, "port %u udp %u: released", port, rte_be_to_cpu_16(udp_port_be));
	return 0;
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
 * Outer IPv4 header: consistent, complete, checksum right (in software: the
 * virtual devices give no offload flags), not a fragment. On success the
 * frame is cut to the IPv4 total length, so Ethernet padding is gone.
 */
static enum sp_reason
check_ipv4(struct rte_mbuf *m, struct rte_ipv4_hdr *ip)
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
	if (rte_raw_cksum(ip, hlen) != UINT16_MAX)
		return SP_REASON_BAD_IP_HEADER;
	if (!trim_to(m, RTE_ETHER_HDR_LEN + total))
		return SP_REASON_TRUNCATED;
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		return SP_REASON_FRAGMENT;
	return SP_REASON_NONE;
}

/* UDP header complete and its length within the IPv4 payload; cut to the UDP length. */
static enum sp_reason
check_udp(struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, uint16_t port, struct ep_key *key,
	  struct candidate *c)
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

	*key = (struct ep_key){.ip_be = ip->dst_addr, .udp_port_be = udp->dst_port, .port = port};
	c->hdr_len = l4 + sizeof(*udp);
	return SP_REASON_NONE;
}

/* IPv4 to the receiving port's own address (another port's address does not count). */
static enum step
classify_ipv4(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
	      struct sp_decap_out *out, struct ep_key *key, struct candidate *c,
	      enum sp_reason *why)
{
	struct rte_ipv4_hdr *ip;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip)) {
		*why = SP_REASON_TRUNCATED;
		return STEP_DROP;
	}
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	*why = check_ipv4(m, ip);
	if (*why != SP_REASON_NONE)
		return STEP_DROP;
	if (a->ip_be == 0 || ip->dst_addr != a->ip_be) {
		*why = SP_REASON_NOT_LOCAL;
		return STEP_DROP;
	}
	switch (ip->next_proto_id) {
	case IPPROTO_UDP:
		*why = check_udp(m, ip, port, key, c);
		return *why == SP_REASON_NONE ? STEP_LOOKUP : STEP_DROP;
	case IPPROTO_ICMP:
		*why = sp_icmp_input(a, m, ip, out);
		return *why == SP_REASON_NONE ? STEP_DONE : STEP_DROP;
	default:
		*why = SP_REASON_NOT_UDP;
		return STEP_DROP;
	}
}

static enum step
classify(const struct sp_port_addr *a, uint16_t port, struct rte_mbuf *m,
	 struct sp_decap_out *out, struct ep_key *key, struct candidate *c, enum sp_reason *why)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	c->m = m;
	c->rx_len = rte_pktmbuf_pkt_len(m);
	*why = SP_REASON_NONE;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		*why = SP_REASON_TRUNCATED;
	else if (!rte_is_same_ether_addr(&eth->dst_addr, &a->mac) &&
		 !rte_is_broadcast_ether_addr(&eth->dst_addr))
		*why = SP_REASON_OTHER_MAC;
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		*why = sp_arp_input(a, port, m, out);
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return classify_ipv4(a, port, m, out, key, c, why);
	else
		*why = SP_REASON_NOT_IPV4; /* VLAN tags included: ports are untagged */
	return *why == SP_REASON_NONE ? STEP_DONE : STEP_DROP;
}

/* Whether a frame of rx_len bytes fits the endpoint's inbound rate at TSC now; takes its tokens. */
static bool
within_inbound(struct policer *p, uint32_t rx_len, uint64_t now)
{
	uint64_t cost;

	if (p->rate.rate_bps == 0)
		return true;
	p->tokens = sp_tb_refill(&p->rate, p->tokens, now - p->last);
	p->last = now;
	cost = sp_tb_cost(sp_wire_bytes(rx_len, SP_ETHER_OVERHEAD));
	if (cost > p->tokens)
		return false;
	p->tokens -= cost;
	return true;
}

/*
 * Strip the outer headers (data offset only, no copy) and hand the packet
 * to its slice, or drop it (inbound_rate) beyond its endpoint's inbound rate.
 * False when dropped.
 */
static bool
to_slice(struct sp_decap_table *t, const struct candidate *c, uintptr_t value, uint64_t now,
	 struct sp_decap_out *out, struct sp_lcore_stats *st)
{
	uint16_t slice = value >> 16, endpoint = value & UINT16_MAX;
	struct sp_meta *meta = sp_meta(c->m);

	/* Whole frames, as received, like the port counter: what arrived, policed or not. */
	st->slice[slice].rx.pkts++;
	st->slice[slice].rx.bytes += c->rx_len;
	st->endpoint[endpoint].rx.pkts++;
	st->endpoint[endpoint].rx.bytes += c->rx_len;
	if (!within_inbound(&t->police[endpoint], c->rx_len, now)) {
		st->slice[slice].drop.pkts++;
		st->slice[slice].drop.bytes += c->rx_len;
		st->slice[slice].reason[SP_REASON_INBOUND_RATE]++;
		st->reason[SP_REASON_INBOUND_RATE]++;
		return false;
	}

	rte_pktmbuf_adj(c->m, c->hdr_len);
	memset(meta, 0, sizeof(*meta));
	meta->slice = slice;
	meta->in_ep = endpoint;
	meta->verdict = SP_FORWARD;
	out->fwd[out->nb_fwd++] = c->m;
	return true;
}

/* One bulk lookup for the burst's candidates; returns the new number of drops. */
static uint16_t
lookup_endpoints(struct sp_decap_table *t, const struct candidate *c,
		 const struct ep_key *keys, uint16_t nb, struct sp_decap_out *out,
		 struct sp_lcore_stats *st, struct rte_mbuf **drop, uint16_t nb_drop)
{
	const void *key_ptrs[SP_BURST];
	void *values[SP_BURST];
	uint64_t hits = 0, now = rte_get_tsc_cycles();
	uint16_t i;

	for (i = 0; i < nb; i++)
		key_ptrs[i] = &keys[i];
	rte_hash_lookup_bulk_data(t->eps, key_ptrs, nb, &hits, values);
	for (i = 0; i < nb; i++) {
		if (!(hits & RTE_BIT64(i))) {
			st->reason[SP_REASON_NO_ENDPOINT]++;
			drop[nb_drop++] = c[i].m;
		} else if (!to_slice(t, &c[i], (uintptr_t)values[i], now, out, st)) {
			drop[nb_drop++] = c[i].m;
		}
	}
	return nb_drop;
}

void
sp_decap_burst(struct sp_decap_table *t, uint16_t port, struct rte_mbuf **pkts,
	       uint16_t n, struct sp_decap_out *out, struct sp_lcore_stats *st)
{
	const struct sp_port_addr *a = &t->ports[port];
	struct candidate cand[SP_BURST];
	struct ep_key keys[SP_BURST];
	struct rte_mbuf *drop[SP_BURST];
	uint16_t nb_cand = 0, nb_drop = 0, i;
	enum sp_reason why;

	RTE_ASSERT(n <= SP_BURST && port < SP_MAX_PORTS);
	out->nb_fwd = 0;
	out->nb_reply = 0;
	out->nb_learn = 0;
	for (i = 0; i < n; i++) {
		sp_counter_add(&st->port[port].rx, pkts[i]);
		switch (classify(a, port, pkts[i], out, &keys[nb_cand], &cand[nb_cand], &why)) {
		case STEP_LOOKUP:
			nb_cand++;
			break;
		case STEP_DROP:
			st->reason[why]++;
			drop[nb_drop++] = pkts[i];
			break;
		case STEP_DONE:
			break;
		}
	}
	if (nb_cand > 0)
		nb_drop = lookup_endpoints(t, cand, keys, nb_cand, out, st, drop, nb_drop);
	if (nb_drop > 0)
		rte_pktmbuf_free_bulk(drop, nb_drop);
}
