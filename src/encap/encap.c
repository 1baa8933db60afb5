/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "encap.h"
#include "../fastpath/mbuf_sum.h"
#include "../npe/slice.h"
#include "../port/port.h"

#define OUTER_TTL 64

struct outer_hdr {
	struct rte_ether_hdr eth;
	struct rte_ipv4_hdr ip;
	struct rte_udp_hdr udp;
} __rte_packed __rte_aligned(2);

struct outer6_hdr {
	struct rte_ether_hdr eth;
	struct rte_ipv6_hdr ip;
	struct rte_udp_hdr udp;
} __rte_packed __rte_aligned(2);

/*
 * Where a result sends its packet, in node terms: the endpoint, its port
 * and the physical queue. A burst's packets mostly share a few (slice,
 * endpoint, queue) triples, so encap maps each triple once a run.
 */
struct out_map {
	uint64_t key; /* slice << 32 | the result's endpoint and queue; OUT_MAP_NONE: none yet */
	const struct sp_endpoint *ep; /* NULL: the result names what the slice does not own */
	uint16_t port, slot;
	uint32_t queue;
};

#define OUT_MAP_NONE UINT64_MAX /* slice ids are 16 bits: no packet's key */

static __rte_always_inline uint64_t
out_map_key(const struct sp_meta *meta)
{
	uint32_t eq;

	RTE_BUILD_BUG_ON(offsetof(struct sp_result, queue) !=
			 offsetof(struct sp_result, endpoint) + sizeof(uint16_t));
	memcpy(&eq, &meta->result.endpoint, sizeof(eq));
	return (uint64_t)meta->slice << 32 | eq;
}

/* Map the slice-relative endpoint and queue of the result to node ones; a
 * filter naming what the slice does not own is the slice's error, counted. */
static void
map_result(const struct sp_endpoint *endpoints, const struct sp_slice *s,
	   const struct sp_result *res, struct out_map *o)
{
	uint16_t e = res->endpoint, q = res->queue, slot;

	o->ep = NULL;
	if (e >= s->nb_endpoints || q >= s->queue_quota || s->qmap[q] == SP_QUEUE_UNBOUND)
		return;
	/* Read once: the endpoint may be released meanwhile (slice_ops.c); the lcores are past
	 * this burst before it is reused. */
	slot = __atomic_load_n(&s->endpoints[e], __ATOMIC_ACQUIRE);
	if (slot == SP_ENDPOINT_NONE || s->qport[q] != endpoints[slot].port)
		return;
	o->ep = &endpoints[slot];
	o->port = endpoints[slot].port;
	o->slot = slot;
	o->queue = s->qmap[q];
}

/* The IPv6 template, from the port's IPv6 address, if it has one. */
static void
prepare6(const struct sp_port *port, struct sp_endpoint *ep)
{
	struct outer6_hdr h = {
		.eth.src_addr = port->mac,
		.eth.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6),
		.ip.vtc_flow = RTE_BE32(6u << 28),
		.ip.proto = IPPROTO_UDP,
		.ip.hop_limits = OUTER_TTL,
		.udp.src_port = ep->l4_port_be,
	};
	/* The pseudo-header's next header, a 32-bit word (RFC 8200 8.1). */
	const rte_be32_t next_header = RTE_BE32(IPPROTO_UDP);

	RTE_BUILD_BUG_ON(sizeof(h) != SP_OUTER6_HDR_LEN);
	ep->has_outer6 = port->has_ip6;
	if (!port->has_ip6)
		return;
	memcpy(h.ip.src_addr, port->ip6, sizeof(h.ip.src_addr));
	memcpy(ep->outer6, &h, sizeof(h));
	/* What every packet's UDP checksum sums alike: source address, next header, source port. */
	ep->outer6_sum = sp_cksum_fold(sp_cksum_bytes(port->ip6, sizeof(port->ip6)) +
				       sp_cksum_bytes(&next_header, sizeof(next_header)) +
				       ep->l4_port_be);
}

void
sp_encap_prepare(const struct sp_fastpath *fp, struct sp_endpoint *ep)
{
	struct outer_hdr h = {
		.eth.src_addr = fp->ports[ep->port].mac,
		.eth.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4),
		.ip.version_ihl = RTE_IPV4_VHL_DEF,
		.ip.fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG),
		.ip.time_to_live = OUTER_TTL,
		.ip.next_proto_id = IPPROTO_UDP,
		.ip.src_addr = ep->ip_be,
		.udp.src_port = ep->l4_port_be,
		/* Zero: "no checksum", valid for UDP over IPv4, and the inner header
		 * carries its own. */
		.udp.dgram_cksum = 0,
	};

	RTE_BUILD_BUG_ON(sizeof(h) != SP_OUTER_HDR_LEN);
	memcpy(ep->outer, &h, sizeof(h));
	/* Length, destination and checksum zero: the sum of what stays. */
	ep->outer_sum = sp_ipv4_hdr_sum(&h.ip, sizeof(h.ip));
	ep->tx_ip_cksum = fp->ports[ep->port].tx_ip_cksum;
	prepare6(&fp->ports[ep->port], ep);
}

/*
 * A run of packets to one next hop from one endpoint: its first packet's
 * outer header is the endpoint's template with the next hop's MAC, address
 * and UDP port filled in; the run's later packets copy that header (in the
 * L1 cache) and add their own lengths and checksum, to the sum of what
 * stays (cksum.h's 16-bit words in memory order). A run of one costs what
 * the template alone did. The loop keeps which run it is (outer_hop()) in
 * registers.
 */
struct outer_run {
	const struct outer_hdr *h; /* the run's first packet's */
	uint32_t sum;              /* a few 16-bit words: far from overflowing */
	bool tx_ip_cksum; /* the port's device sums the header (its field stays zero) */
};

/* The next hop's address and UDP port, as one word to compare: one load, one mask. */
static __rte_always_inline uint64_t
outer_hop(const struct sp_result *res)
{
	const uint8_t mask[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0};
	uint64_t w, m;

	RTE_BUILD_BUG_ON(offsetof(struct sp_result, nh_port) !=
			 offsetof(struct sp_result, nh_ip) + sizeof(uint32_t));
	RTE_BUILD_BUG_ON(offsetof(struct sp_result, nh_ip) + sizeof(w) > sizeof(*res));
	memcpy(&w, &res->nh_ip, sizeof(w));
	memcpy(&m, mask, sizeof(m));
	return w & m;
}

/* Room for the outer header: rte_pktmbuf_prepend() without its headroom check (made). */
static __rte_always_inline struct outer_hdr *
prepend_outer(struct rte_mbuf *m)
{
	m->data_off -= sizeof(struct outer_hdr);
	m->data_len += sizeof(struct outer_hdr);
	m->pkt_len += sizeof(struct outer_hdr);
	return rte_pktmbuf_mtod(m, struct outer_hdr *);
}

/* The packet's own: its lengths, and its checksum unless the port's device writes it. */
static __rte_always_inline void
finish_outer(struct rte_mbuf *m, struct outer_hdr *h, uint16_t inner, const struct outer_run *o)
{
	uint16_t ip_len = rte_cpu_to_be_16(inner + sizeof(h->ip) + sizeof(h->udp));
	uint32_t sum = o->sum + ip_len;

	h->ip.total_length = ip_len;
	h->udp.dgram_len = rte_cpu_to_be_16(inner + sizeof(h->udp));
	if (o->tx_ip_cksum) {
		/* The device sums the header; the template's checksum field is zero. All
		 * the lengths written: one an earlier user of the mbuf left would count. */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		m->tx_offload = rte_mbuf_tx_offload(sizeof(h->eth), sizeof(h->ip), 0, 0, 0, 0, 0);
	} else {
		/* Two folds take a sum under 2^32 to 16 bits. */
		sum = (sum & 0xffff) + (sum >> 16);
		sum += sum >> 16;
		h->ip.hdr_checksum = (uint16_t)~sum;
	}
}

/* A run's first packet: its header from the endpoint's template and the next hop. */
static __rte_always_inline void
outer_run_start(struct outer_run *o, struct rte_mbuf *m, const struct sp_endpoint *ep,
		const struct sp_result *res, const uint8_t *nh_mac)
{
	uint16_t inner = (uint16_t)rte_pktmbuf_pkt_len(m);
	struct outer_hdr *h = prepend_outer(m);

	memcpy(h, ep->outer, sizeof(*h));
	memcpy(h->eth.dst_addr.addr_bytes, nh_mac, RTE_ETHER_ADDR_LEN);
	h->ip.dst_addr = res->nh_ip;
	h->udp.dst_port = res->nh_port;
	o->h = h;
	o->tx_ip_cksum = ep->tx_ip_cksum;
	o->sum = (uint32_t)ep->outer_sum + (res->nh_ip & 0xffff) + (res->nh_ip >> 16);
	finish_outer(m, h, inner, o);
}

/* A later packet of the run: the first's header, with its own lengths and checksum. */
static __rte_always_inline void
write_outer(struct rte_mbuf *m, const struct outer_run *o)
{
	uint16_t inner = (uint16_t)rte_pktmbuf_pkt_len(m);
	struct outer_hdr *h = prepend_outer(m);

	memcpy(h, o->h, sizeof(*h));
	finish_outer(m, h, inner, o);
}

/*
 * The IPv6 next hop of the last packet sent to one: a burst's packets mostly
 * share few, so the next one to it skips the neighbor cache and the sum of
 * the address (its Ethernet address and the checksum's constant part kept).
 */
struct run6 {
	const struct sp_endpoint *ep; /* NULL: none yet */
	uint8_t nh_ip6[16];
	uint16_t nh_port;
	struct rte_ether_addr mac;
	uint64_t sum; /* the pseudo-header's and the UDP header's words but the lengths */
};

static __rte_always_inline bool
run6_holds(const struct run6 *r, const struct sp_endpoint *ep, const struct sp_result *res)
{
	uint64_t a[2], b[2];

	memcpy(a, r->nh_ip6, sizeof(a));
	memcpy(b, res->nh_ip6, sizeof(b));
	return r->ep == ep && ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0 && r->nh_port == res->nh_port;
}

/*
 * A packet to an IPv6 next hop: its outer IPv6/UDP header from the
 * endpoint's template, and the UDP checksum IPv6 requires, over the
 * pseudo-header, the header and the packet. Why not, or SP_REASON_NONE.
 */
static enum sp_reason
encap6(const struct sp_fastpath *fp, struct sp_neigh_cache *nc, struct run6 *run,
       struct rte_mbuf *m, const struct sp_endpoint *ep, const struct sp_result *res)
{
	uint32_t inner = rte_pktmbuf_pkt_len(m);
	struct outer6_hdr *h;
	rte_be16_t udp_len;
	uint64_t sum;
	uint16_t cksum;

	if (!ep->has_outer6)
		return SP_REASON_NO_PORT_IPV6;
	if (inner > UINT16_MAX - sizeof(h->udp))
		return SP_REASON_MALFORMED;
	if (!run6_holds(run, ep, res)) {
		run->ep = NULL;
		if (!sp_neigh_get6_cached(fp->neigh, nc, ep->port, res->nh_ip6, &run->mac)) {
			const struct sp_ip ip = sp_ip_v6(res->nh_ip6);

			sp_neigh_ask(fp->resolve_ring, ep->port, &ip);
			return SP_REASON_NO_NEIGHBOR;
		}
		run->ep = ep;
		memcpy(run->nh_ip6, res->nh_ip6, sizeof(run->nh_ip6));
		run->nh_port = res->nh_port;
		run->sum = (uint64_t)ep->outer6_sum +
			   sp_cksum_bytes(res->nh_ip6, sizeof(res->nh_ip6)) + res->nh_port;
	}
	sum = sp_mbuf_sum(m, 0, inner);
	h = (struct outer6_hdr *)rte_pktmbuf_prepend(m, sizeof(*h));
	if (h == NULL) /* no headroom for it */
		return SP_REASON_MALFORMED;
	memcpy(h, ep->outer6, sizeof(*h));
	h->eth.dst_addr = run->mac;
	memcpy(h->ip.dst_addr, res->nh_ip6, sizeof(h->ip.dst_addr));
	udp_len = rte_cpu_to_be_16((uint16_t)(inner + sizeof(h->udp)));
	h->ip.payload_len = udp_len;
	h->udp.dst_port = res->nh_port;
	h->udp.dgram_len = udp_len;
	/* The length twice: the pseudo-header's and the UDP header's. */
	cksum = (uint16_t)~sp_cksum_fold(sum + run->sum + 2u * udp_len);
	h->udp.dgram_cksum = cksum == 0 ? 0xffff : cksum; /* 0 would say "none", which IPv6 forbids */
	return SP_REASON_NONE;
}

/* Ask the management thread to resolve an IPv4 next hop. */
static void
request_resolution(const struct sp_fastpath *fp, uint16_t port, uint32_t ip_be)
{
	const struct sp_ip ip = sp_ip_v4(ip_be);

	sp_neigh_ask(fp->resolve_ring, port, &ip);
}

uint16_t
sp_encap_burst(const struct sp_fastpath *fp, struct sp_neigh_cache *nc, struct rte_mbuf **pkts,
	       uint16_t n, uint64_t *missed)
{
	/* In registers: the packets' stores could alias fp's fields. */
	struct sp_slice *const *slices = fp->slices;
	const struct sp_endpoint *endpoints = fp->endpoints;
	const struct sp_endpoint *eps[SP_BURST];
	struct out_map out = {.key = OUT_MAP_NONE};
	struct outer_run run = {.h = NULL};
	struct run6 run6 = {.ep = NULL};
	const struct sp_endpoint *run_ep = NULL; /* the run's: none yet */
	uint64_t run_hop = 0;
	struct rte_ether_addr macs[SP_BURST];
	uint16_t ports[SP_BURST];
	uint32_t ips[SP_BURST];
	uint16_t idx[SP_BURST];
	uint16_t k = 0, done = 0;
	uint64_t hit;

	sp_neigh_cache_sync(fp->neigh, nc);
	for (uint16_t i = 0; i < n; i++) {
		struct sp_meta *meta = sp_meta(pkts[i]);
		uint64_t map_key;

		if (meta->verdict != SP_FORWARD)
			continue;
		map_key = out_map_key(meta);
		if (map_key != out.key) {
			const struct sp_slice *s = __atomic_load_n(&slices[meta->slice],
								   __ATOMIC_ACQUIRE);

			if (s == NULL) { /* deleted since its code option ran */
				out.key = OUT_MAP_NONE;
				sp_meta_drop(pkts[i], SP_REASON_NO_ENDPOINT);
				continue;
			}
			out.key = map_key;
			map_result(endpoints, s, &meta->result, &out);
		}
		if (out.ep == NULL) {
			sp_meta_drop(pkts[i], SP_REASON_BAD_RESULT);
			continue;
		}
		meta->out_port = out.port;
		meta->out_ep = out.slot;
		meta->queue = out.queue;
		if (unlikely(meta->result.nh_family != SP_NH_IPV4)) {
			enum sp_reason why = meta->result.nh_family == SP_NH_IPV6
				? encap6(fp, nc, &run6, pkts[i], out.ep, &meta->result)
				: SP_REASON_BAD_RESULT;

			if (why == SP_REASON_NONE) {
				done++;
				continue;
			}
			sp_meta_drop(pkts[i], why);
			if (why == SP_REASON_NO_NEIGHBOR && missed != NULL)
				*missed |= 1ULL << i;
			continue;
		}
		if (rte_pktmbuf_headroom(pkts[i]) < sizeof(struct outer_hdr)) {
			sp_meta_drop(pkts[i], SP_REASON_MALFORMED);
			continue;
		}
		/* A burst's packets mostly share few next hops: the last one's header again. */
		if (out.ep != run_ep || outer_hop(&meta->result) != run_hop) {
			const uint8_t *mac = sp_neigh_cache_find(nc, out.port, meta->result.nh_ip);

			if (mac == NULL) { /* not in the cache: the table, for all such at once */
				run_ep = NULL;
				eps[k] = out.ep;
				ports[k] = out.port;
				ips[k] = meta->result.nh_ip;
				idx[k++] = i;
				continue;
			}
			outer_run_start(&run, pkts[i], out.ep, &meta->result, mac);
			run_ep = out.ep;
			run_hop = outer_hop(&meta->result);
		} else {
			write_outer(pkts[i], &run);
		}
		done++;
	}
	if (k == 0)
		return done;
	hit = sp_neigh_get_cached(fp->neigh, nc, ports, ips, k, macs);
	for (uint16_t j = 0; j < k; j++) {
		struct rte_mbuf *m = pkts[idx[j]];

		if (!(hit & (1ULL << j))) {
			sp_meta_drop(m, SP_REASON_NO_NEIGHBOR);
			request_resolution(fp, ports[j], ips[j]);
			if (missed != NULL)
				*missed |= 1ULL << idx[j];
			continue;
		}
		outer_run_start(&run, m, eps[j], &sp_meta(m)->result, macs[j].addr_bytes);
	}
	return done + (uint16_t)__builtin_popcountll(hit);
}

uint16_t
sp_encap_ethernet(const struct sp_fastpath *fp, struct sp_neigh_cache *nc, struct rte_mbuf **pkts,
		  uint16_t n)
{
	struct rte_mbuf *missed[SP_BURST];
	uint16_t found = 0, nb_missed = 0;

	sp_neigh_cache_sync(fp->neigh, nc);
	for (uint16_t i = 0; i < n; i++) {
		struct sp_meta *meta = sp_meta(pkts[i]);
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(pkts[i], struct rte_ether_hdr *);
		struct rte_ether_addr mac;
		const uint8_t *hit = sp_neigh_cache_find(nc, meta->out_port, meta->result.nh_ip);

		if (hit == NULL && sp_neigh_get_cached(fp->neigh, nc, &meta->out_port,
						       &meta->result.nh_ip, 1, &mac) != 0)
			hit = mac.addr_bytes;
		if (hit == NULL) {
			sp_meta_drop(pkts[i], SP_REASON_NO_NEIGHBOR);
			request_resolution(fp, meta->out_port, meta->result.nh_ip);
			missed[nb_missed++] = pkts[i];
			continue;
		}
		memcpy(eth->dst_addr.addr_bytes, hit, RTE_ETHER_ADDR_LEN);
		eth->src_addr = fp->ports[meta->out_port].mac;
		pkts[found++] = pkts[i];
	}
	memcpy(&pkts[found], missed, nb_missed * sizeof(missed[0]));
	return found;
}
