/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames slicepath-gen sends and recognises: Ethernet, outer IPv4 or
 * IPv6 and UDP to the node's endpoint (the substrate), the slice's header
 * (inner IPv4 and UDP for the ipv4 code option, or an i3 data header with
 * one ID for the i3 code option), and the signature starting the payload
 * after it. UDP checksums over IPv4 are 0 (none), as slicepathd's own
 * substrate headers; over IPv6, which requires one, summed for each packet
 * (its signature differs).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "gen.h"

#define I3_VERSION 0x10
#define I3_DATA_FIRST_HOP 0x50 /* flags as a sender sets them */
#define I3_ID_AT 3
#define I3_FLOW_AT (I3_ID_AT + GEN_I3_ID_LEN - 4) /* flows: the ID's last 4 bytes */
#define I3_NO_OPTIONS(flags) (((flags) & 0x20) == 0)

static void
ipv4_header(struct rte_ipv4_hdr *ip, uint32_t src, uint32_t dst, uint8_t ttl, uint16_t len)
{
	*ip = (struct rte_ipv4_hdr){
		.version_ihl = 0x45,
		.total_length = rte_cpu_to_be_16(len),
		.time_to_live = ttl,
		.next_proto_id = IPPROTO_UDP,
		.src_addr = src,
		.dst_addr = dst,
	};
	ip->hdr_checksum = sp_ipv4_hdr_cksum(ip, rte_ipv4_hdr_len(ip));
}

static void
ipv6_header(struct rte_ipv6_hdr *ip, const struct sp_ip *src, const struct sp_ip *dst,
	    uint16_t payload)
{
	*ip = (struct rte_ipv6_hdr){
		.vtc_flow = RTE_BE32(6u << 28),
		.payload_len = rte_cpu_to_be_16(payload),
		.proto = IPPROTO_UDP,
		.hop_limits = 64,
	};
	memcpy(ip->src_addr, src->b, sizeof(ip->src_addr));
	memcpy(ip->dst_addr, dst->b, sizeof(ip->dst_addr));
}

/*
 * The outer UDP checksum over IPv6 of the frame's len bytes: the
 * pseudo-header's addresses, the UDP header and the payload lie together
 * (RFC 8200 8.1); 0 would say "none", which IPv6 forbids.
 */
static void
udp6_cksum(uint8_t *f, uint32_t len)
{
	const uint32_t addrs = RTE_ETHER_HDR_LEN + 8, udp = RTE_ETHER_HDR_LEN + 40;
	uint16_t udp_len = rte_cpu_to_be_16((uint16_t)(len - udp)), c;

	memset(f + udp + 6, 0, 2);
	c = (uint16_t)~sp_cksum_fold(sp_cksum_bytes(f + addrs, len - addrs) + udp_len +
				     RTE_BE16(IPPROTO_UDP));
	c = c == 0 ? 0xffff : c;
	memcpy(f + udp + 6, &c, sizeof(c));
}

static void
udp_header(struct rte_udp_hdr *udp, uint16_t sport, uint16_t dport, uint16_t len)
{
	*udp = (struct rte_udp_hdr){
		.src_port = rte_cpu_to_be_16(sport),
		.dst_port = rte_cpu_to_be_16(dport),
		.dgram_len = rte_cpu_to_be_16(len),
	};
}

/* Version, DATA and FIRST_HOP, one ID (slicepath/i3.h). */
static void
i3_header(uint8_t *h, const uint8_t *id)
{
	h[0] = I3_VERSION;
	h[1] = I3_DATA_FIRST_HOP;
	h[2] = 1;
	memcpy(h + I3_ID_AT, id, GEN_I3_ID_LEN);
}

void
gen_frame_build(struct gen_stream *s)
{
	const struct gen_stream_spec *sp = s->spec;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)s->frame;
	uint16_t inner_len = (uint16_t)(sp->inner_len + sp->payload);

	memset(s->frame, 0, sizeof(s->frame));
	memcpy(&eth->dst_addr, sp->dst_mac, 6);
	memcpy(&eth->src_addr, sp->src_mac, 6);
	if (sp->outer_len == GEN_OUTER6_LEN) {
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		ipv6_header((struct rte_ipv6_hdr *)(eth + 1), &sp->src_ip, &sp->dst_ip,
			    (uint16_t)(8 + inner_len));
	} else {
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		ipv4_header((struct rte_ipv4_hdr *)(eth + 1), sp_ip_to_v4(&sp->src_ip),
			    sp_ip_to_v4(&sp->dst_ip), 64, (uint16_t)(20 + 8 + inner_len));
	}
	udp_header((struct rte_udp_hdr *)(s->frame + sp->outer_len - 8), sp->src_port,
		   sp->dst_port, (uint16_t)(8 + inner_len));
	if (sp->i3) {
		i3_header(s->frame + sp->outer_len, sp->i3_id);
	} else {
		ipv4_header((struct rte_ipv4_hdr *)(s->frame + sp->outer_len), sp->inner_src,
			    sp->inner_dst, sp->ttl, inner_len);
		udp_header((struct rte_udp_hdr *)(s->frame + sp->outer_len + 20), sp->inner_sport,
			   sp->inner_dport, (uint16_t)(8 + sp->payload));
	}
	s->frame_len = (uint16_t)(sp->outer_len + inner_len);
}

void
gen_frame_fill(const struct gen_stream *s, uint8_t *buf, uint64_t seq, uint64_t tsc)
{
	uint32_t flow = (uint32_t)(seq % s->spec->flows), outer = s->spec->outer_len;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + outer);
	struct gen_sig sig = {
		.magic = rte_cpu_to_be_32(GEN_MAGIC),
		.stream = s->id,
		.flow = (uint16_t)flow,
		.seq = seq,
		.tsc = tsc,
	};

	memcpy(buf, s->frame, s->frame_len);
	if (flow != 0 && s->spec->i3) {
		uint8_t *at = buf + outer + I3_FLOW_AT;
		uint32_t last;

		memcpy(&last, at, sizeof(last));
		last = rte_cpu_to_be_32(rte_be_to_cpu_32(last) + flow);
		memcpy(at, &last, sizeof(last));
	} else if (flow != 0) {
		ip->dst_addr = rte_cpu_to_be_32(rte_be_to_cpu_32(s->spec->inner_dst) + flow);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = sp_ipv4_hdr_cksum(ip, rte_ipv4_hdr_len(ip));
	}
	if (s->spec->payload >= GEN_SIG_LEN)
		memcpy(buf + outer + s->spec->inner_len, &sig, sizeof(sig));
	if (outer == GEN_OUTER6_LEN)
		udp6_cksum(buf, s->frame_len);
}

/* Bytes of the IPv6 and UDP headers at p (len bytes left), or 0 if they are not that. */
static uint32_t
ipv6_udp_len(const uint8_t *p, uint32_t len)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;

	if (len < 40 + 8 || (p[0] >> 4) != 6 || ip->proto != IPPROTO_UDP)
		return 0;
	return 40 + 8;
}

/* Bytes of the IPv4 and UDP headers at p (len bytes left), or 0 if they are not that. */
static uint32_t
ipv4_udp_len(const uint8_t *p, uint32_t len)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;
	uint32_t n;

	if (len < 20 + 8 || (ip->version_ihl >> 4) != 4 || (ip->version_ihl & 15) < 5 ||
	    ip->next_proto_id != IPPROTO_UDP)
		return 0;
	n = (uint32_t)(ip->version_ihl & 15) * 4 + 8;
	return n <= len ? n : 0;
}

/* Bytes of the slice's header at p: i3 without options, or IPv4 and UDP; 0 if neither. */
static uint32_t
inner_len(const uint8_t *p, uint32_t len)
{
	uint32_t n;

	if (len >= I3_ID_AT && p[0] == I3_VERSION && I3_NO_OPTIONS(p[1])) {
		n = I3_ID_AT + (uint32_t)(p[2] & 15) * GEN_I3_ID_LEN;
		return n <= len ? n : 0;
	}
	return ipv4_udp_len(p, len);
}

const struct gen_sig *
gen_frame_sig(const uint8_t *frame, uint32_t len)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct gen_sig *sig;
	uint32_t outer, inner;

	/* Outer IPv4 or IPv6 and UDP (what the node sent), then the slice's header as its code option left it. */
	if (len < RTE_ETHER_HDR_LEN)
		return NULL;
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))
		outer = ipv4_udp_len(frame + RTE_ETHER_HDR_LEN, len - RTE_ETHER_HDR_LEN);
	else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		outer = ipv6_udp_len(frame + RTE_ETHER_HDR_LEN, len - RTE_ETHER_HDR_LEN);
	else
		return NULL;
	if (outer == 0)
		return NULL;
	outer += RTE_ETHER_HDR_LEN;
	inner = inner_len(frame + outer, len - outer);
	if (inner == 0 || len < outer + inner + GEN_SIG_LEN)
		return NULL;
	sig = (const struct gen_sig *)(frame + outer + inner);
	return sig->magic == rte_cpu_to_be_32(GEN_MAGIC) ? sig : NULL;
}
