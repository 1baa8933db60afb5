/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host slices' two directions, on the lcore of the slice's NPE. In: the
 * frame as it came from the wire (a NAT range's mapped back), its
 * destination MAC the interface's, written into the TAP. Out: a frame read
 * from the TAP is checked (IPv4 from one of the node's addresses, TCP, UDP
 * or an echo request), keeps its source port if one of the slice's
 * endpoints has it, else gets one of the slice's NAT range, and joins the
 * slice's queue on the output port like any frame of a fast-path slice.
 * Every frame ends in one counter: to_netns or from_netns then fwd, or a
 * drop reason (a frame held for its next hop's MAC, encap.h, ends in one later).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <sys/uio.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "hslice.h"
#include "tap_io.h"
#include "../decap/decap.h"
#include "../encap/encap.h"
#include "../fastpath/output.h"
#include "../fastpath/retire.h"
#include "../npe/npe.h"
#include "../npe/slice.h"
#include "../port/port.h"
#include "../stats/stats.h"

/* Entries of a NAT table looked at for expiry each time its namespace is read. */
#define EXPIRE_BUDGET 64

/* A frame's IPv4 and transport headers, as both directions read them. */
struct l4_view {
	struct rte_ipv4_hdr *ip;
	enum sp_nat_proto proto;
	uint16_t *src, *dst; /* TCP/UDP ports, or the echo identifier (both) */
	uint16_t *cksum;     /* TCP/UDP/ICMP checksum */
	uint8_t tcp_flags;
	uint8_t icmp_type;
};

/* A 16-bit field of a packed header (at an even offset in the frame: IPv4 headers are 4-byte multiples). */
#define FIELD(base, type, member) ((uint16_t *)((base) + offsetof(type, member)))

/* Headers within the first segment, lengths consistent; false for anything else. */
static bool
view_l4(struct rte_mbuf *m, struct l4_view *v)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	struct rte_ipv4_hdr *ip;
	uint16_t hlen, total;
	uint8_t *l4;

	if (len < RTE_ETHER_HDR_LEN + sizeof(*ip) ||
	    rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type !=
		    RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return false;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	hlen = rte_ipv4_hdr_len(ip);
	total = rte_be_to_cpu_16(ip->total_length);
	if (ip->version != 4 || hlen < sizeof(*ip) || total < hlen ||
	    RTE_ETHER_HDR_LEN + (uint32_t)total > rte_pktmbuf_pkt_len(m) ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
		return false;
	l4 = (uint8_t *)ip + hlen;
	switch (ip->next_proto_id) {
	case IPPROTO_TCP: {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)l4;
		uint16_t thlen;

		if (len < RTE_ETHER_HDR_LEN + hlen + sizeof(*tcp) || total < hlen + sizeof(*tcp))
			return false;
		/* Its own header length within the segment (options included). */
		thlen = (uint16_t)((tcp->data_off >> 4) * 4);
		if (thlen < sizeof(*tcp) || thlen > total - hlen ||
		    len < RTE_ETHER_HDR_LEN + (uint32_t)hlen + thlen)
			return false;
		*v = (struct l4_view){ip, SP_NAT_TCP, FIELD(l4, struct rte_tcp_hdr, src_port),
				      FIELD(l4, struct rte_tcp_hdr, dst_port),
				      FIELD(l4, struct rte_tcp_hdr, cksum), tcp->tcp_flags, 0};
		return true;
	}
	case IPPROTO_UDP: {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)l4;

		if (len < RTE_ETHER_HDR_LEN + hlen + sizeof(*udp) || total < hlen + sizeof(*udp))
			return false;
		*v = (struct l4_view){ip, SP_NAT_UDP, FIELD(l4, struct rte_udp_hdr, src_port),
				      FIELD(l4, struct rte_udp_hdr, dst_port),
				      FIELD(l4, struct rte_udp_hdr, dgram_cksum), 0, 0};
		return true;
	}
	case IPPROTO_ICMP: {
		struct rte_icmp_hdr *icmp = (struct rte_icmp_hdr *)l4;

		if (len < RTE_ETHER_HDR_LEN + hlen + sizeof(*icmp) || total < hlen + sizeof(*icmp))
			return false;
		*v = (struct l4_view){ip, SP_NAT_ICMP, FIELD(l4, struct rte_icmp_hdr, icmp_ident),
				      FIELD(l4, struct rte_icmp_hdr, icmp_ident),
				      FIELD(l4, struct rte_icmp_hdr, icmp_cksum), 0, icmp->icmp_type};
		return true;
	}
	default:
		return false;
	}
}

/*
 * Rewrite a port (or identifier) and its checksum. UDP's 0 is "no
 * checksum" (RFC 768): it stays none, and a sum that comes to 0 is written
 * as all ones, its other form.
 */
static void
rewrite_port(const struct l4_view *v, uint16_t *field, uint16_t num)
{
	uint16_t be = rte_cpu_to_be_16(num);

	if (v->proto != SP_NAT_UDP) {
		*v->cksum = sp_cksum_update16(*v->cksum, *field, be);
	} else if (*v->cksum != 0) {
		uint16_t c = sp_cksum_update16(*v->cksum, *field, be);

		*v->cksum = c == 0 ? UINT16_MAX : c;
	}
	*field = be;
}

/* The remote's port as the NAT keys it: an echo's is 0. */
static uint16_t
remote_port(const struct l4_view *v, const uint16_t *field)
{
	return v->proto == SP_NAT_ICMP ? 0 : rte_be_to_cpu_16(*field);
}

/*
 * One frame for host slice s, made ready for its interface: mapped back if
 * it came to the NAT range, addressed to the interface, a TCP segment
 * marked for merging. 0, or why it goes no further.
 */
static enum sp_reason
prepare_in(struct sp_slice *s, struct rte_mbuf *m, uint64_t now)
{
	struct sp_hslice *hs = s->host;
	struct l4_view v;
	bool viewed;

	if (__atomic_load_n(&hs->gone, __ATOMIC_RELAXED))
		return SP_REASON_NETNS_GONE;
	viewed = view_l4(m, &v);
	if (sp_meta(m)->in_ep == SP_ENDPOINT_NAT) {
		uint16_t inner;

		if (hs->nat == NULL || !viewed ||
		    sp_nat_in(hs->nat, v.proto, rte_be_to_cpu_16(*v.dst), v.ip->src_addr,
			      remote_port(&v, v.src), v.tcp_flags, now, &inner) < 0)
			return SP_REASON_NAT_MISS;
		rewrite_port(&v, v.dst, inner);
	}
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = hs->mac;
	m->packet_type = 0;
	if (viewed && v.proto == SP_NAT_TCP)
		sp_tap_mark_tcp(m, rte_ipv4_hdr_len(v.ip),
				(uint16_t)((((const struct rte_tcp_hdr *)v.src)->data_off >> 4) * 4));
	return SP_REASON_NONE;
}

/* Frames of slice `slice` that went no further (a merged one standing for several). */
static void
count_drop(struct sp_lcore_stats *st, uint16_t slice, enum sp_reason why, uint16_t frames,
	   uint32_t bytes)
{
	st->reason[why] += frames;
	st->slice[slice].reason[why] += frames;
	st->slice[slice].drop.pkts += frames;
	st->slice[slice].drop.bytes += bytes;
}

/* Slice `slice`'s frames of a round (n of them): into its interface, counted, freed. */
static void
input_slice(const struct sp_fastpath *fp, uint16_t slice, struct rte_mbuf **pkts, uint16_t n,
	    uint64_t now, struct sp_lcore_stats *st)
{
	struct sp_slice *s = __atomic_load_n(&fp->slices[slice], __ATOMIC_ACQUIRE);
	struct sp_tap_written w[SP_NPE_ROUND];
	uint16_t ready = 0;

	for (uint16_t i = 0; i < n; i++) {
		enum sp_reason why = s == NULL || s->host == NULL ? SP_REASON_NO_ENDPOINT :
				     prepare_in(s, pkts[i], now);

		if (why == SP_REASON_NONE) {
			pkts[ready++] = pkts[i];
			continue;
		}
		count_drop(st, slice, why, 1, rte_pktmbuf_pkt_len(pkts[i]));
		rte_pktmbuf_free(pkts[i]);
	}
	if (ready == 0)
		return;
	n = sp_tap_write_burst(s->host->fd, pkts, ready, w);
	for (uint16_t i = 0; i < n; i++) {
		if (w[i].reason == SP_REASON_NONE) {
			st->slice[slice].to_netns.pkts += w[i].frames;
			st->slice[slice].to_netns.bytes += w[i].bytes;
		} else {
			if (w[i].reason == SP_REASON_NETNS_GONE)
				__atomic_store_n(&s->host->gone, true, __ATOMIC_RELAXED);
			count_drop(st, slice, w[i].reason, w[i].frames, w[i].bytes);
		}
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

void
sp_hslice_input(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
		struct sp_lcore_stats *st)
{
	struct rte_mbuf *mine[SP_NPE_ROUND];
	uint64_t now = rte_rdtsc();

	/* A slice at a time, its frames in arrival order: one burst for its interface. */
	while (n > 0) {
		uint16_t slice = sp_meta(pkts[0])->slice, nb_mine = 0, rest = 0;

		for (uint16_t i = 0; i < n; i++) {
			if (sp_meta(pkts[i])->slice == slice)
				mine[nb_mine++] = pkts[i];
			else
				pkts[rest++] = pkts[i];
		}
		input_slice(fp, slice, mine, nb_mine, now, st);
		n = rest;
	}
}

/* The port whose address the frame is from; nb_ports if none. */
static uint16_t
source_port(const struct sp_fastpath *fp, uint32_t src_be)
{
	uint16_t p;

	for (p = 0; p < fp->nb_ports; p++)
		if (fp->ports[p].ip_be != 0 && fp->ports[p].ip_be == src_be)
			break;
	return p;
}

/*
 * The physical queue a frame of slice s leaves port p by: the one bound for
 * its endpoint (slice index ep), else the slice's lowest bound on p (what
 * its NAT'd connections use); SP_QUEUE_UNBOUND if none.
 */
static uint32_t
queue_for(const struct sp_slice *s, uint16_t p, uint16_t ep)
{
	uint32_t lowest = SP_QUEUE_UNBOUND;

	for (uint16_t q = 0; q < s->queue_quota; q++) {
		uint32_t phys = __atomic_load_n(&s->qmap[q], __ATOMIC_ACQUIRE);

		if (phys == SP_QUEUE_UNBOUND || s->qport[q] != p)
			continue;
		if (s->qendpoint[q] == ep)
			return phys;
		if (lowest == SP_QUEUE_UNBOUND)
			lowest = phys;
	}
	return lowest;
}

/*
 * The endpoint of slice s holding source port src (network order) on p:
 * its slice index, its node slot in *slot; SP_ENDPOINT_NONE (slot
 * SP_ENDPOINT_NAT) if none holds it, and for echoes.
 */
static uint16_t
own_endpoint(const struct sp_fastpath *fp, const struct sp_slice *s, uint16_t p,
	     enum sp_nat_proto proto, uint16_t src_be, uint16_t *slot)
{
	uint8_t l4 = proto == SP_NAT_TCP ? SP_L4_TCP : SP_L4_UDP;

	*slot = SP_ENDPOINT_NAT;
	for (uint16_t i = 0; proto != SP_NAT_ICMP && i < s->nb_endpoints; i++) {
		uint16_t k = __atomic_load_n(&s->endpoints[i], __ATOMIC_ACQUIRE);
		const struct sp_endpoint *ep;

		if (k == SP_ENDPOINT_NONE)
			continue;
		ep = &fp->endpoints[k];
		if (ep->port == p && ep->l4 == l4 && ep->l4_port_be == src_be) {
			*slot = k;
			return i;
		}
	}
	return SP_ENDPOINT_NONE;
}

/* One frame from slice s's namespace: where it goes (meta), or why it does not. */
static enum sp_reason
output_one(const struct sp_fastpath *fp, struct sp_slice *s, struct rte_mbuf *m, uint64_t now)
{
	struct sp_meta *meta = sp_meta(m);
	uint16_t p, slot, idx, ext;
	struct l4_view v;

	if (!view_l4(m, &v))
		return SP_REASON_UNSUPPORTED;
	p = source_port(fp, v.ip->src_addr);
	if (p == fp->nb_ports)
		return SP_REASON_BAD_SOURCE;
	if (v.proto == SP_NAT_ICMP && v.icmp_type != RTE_IP_ICMP_ECHO_REQUEST)
		return SP_REASON_UNSUPPORTED;
	/* Cut Ethernet padding: the queue manager counts what is sent. */
	rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN -
				    rte_be_to_cpu_16(v.ip->total_length));
	idx = own_endpoint(fp, s, p, v.proto, *v.src, &slot);
	if (slot == SP_ENDPOINT_NAT) {
		if (s->host->nat == NULL)
			return SP_REASON_NAT_FULL;
		if (sp_nat_out(s->host->nat, v.proto, rte_be_to_cpu_16(*v.src), v.ip->dst_addr,
			       remote_port(&v, v.dst), v.tcp_flags, now, &ext) < 0)
			return SP_REASON_NAT_FULL;
		rewrite_port(&v, v.src, ext);
	}
	*meta = (struct sp_meta){.slice = s->id, .verdict = SP_FORWARD, .out_port = p,
				 .out_ep = slot, .queue = queue_for(s, p, idx)};
	meta->result.nh_ip = v.ip->dst_addr;
	return meta->queue == SP_QUEUE_UNBOUND ? SP_REASON_BAD_RESULT : SP_REASON_NONE;
}

void
sp_hslice_output(const struct sp_fastpath *fp, struct sp_npe *npe, struct sp_slice *s,
		 struct sp_lcore_stats *st)
{
	struct sp_hslice *hs = s->host;
	struct rte_mbuf *pkts[SP_BURST], *fwd[SP_BURST], *gone[SP_BURST];
	uint16_t n, nb_fwd = 0, nb_gone = 0, nb_miss;
	uint64_t now = rte_rdtsc();
	bool failed;

	if (hs->nat != NULL)
		sp_nat_expire(hs->nat, now, EXPIRE_BUDGET);
	if (__atomic_load_n(&hs->gone, __ATOMIC_RELAXED))
		return;
	n = sp_tap_read_burst(hs->fd, fp->pool, pkts, SP_BURST, &failed);
	if (failed)
		__atomic_store_n(&hs->gone, true, __ATOMIC_RELAXED);
	for (uint16_t i = 0; i < n; i++) {
		enum sp_reason why;

		sp_counter_add(&st->slice[s->id].from_netns, pkts[i]);
		why = output_one(fp, s, pkts[i], now);
		if (why == SP_REASON_NONE) {
			fwd[nb_fwd++] = pkts[i];
		} else {
			sp_meta(pkts[i])->slice = s->id;
			sp_meta_drop(pkts[i], why);
			gone[nb_gone++] = pkts[i];
		}
	}
	sp_retire_burst(fp, gone, nb_gone, st);
	if (nb_fwd == 0)
		return;
	nb_fwd = sp_encap_ethernet(fp, &npe->neigh_cache, fwd, nb_fwd);
	/* What found no next hop is at the end, marked: the first frames to it wait in the hold. */
	for (uint16_t i = nb_fwd; i < n - nb_gone; i++)
		gone[i - nb_fwd] = fwd[i];
	nb_miss = (uint16_t)(n - nb_gone - nb_fwd);
	sp_retire_burst(fp, gone,
			sp_encap_hold(fp, &npe->hold, gone, nb_miss, (1ULL << nb_miss) - 1, st), st);
	sp_output_burst(fp, npe->qm, fwd, nb_fwd, st);
}
