/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames slicepath-gen sends and recognises: Ethernet, outer IPv4 and
 * UDP to the node's endpoint (the substrate), inner IPv4 and UDP for the
 * slice's ipv4 code option, and the signature starting the inner payload.
 * UDP checksums are 0 (none), as slicepathd's own substrate headers.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "gen.h"

#define OUTER_LEN (RTE_ETHER_HDR_LEN + 20 + 8)

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
	ip->hdr_checksum = rte_ipv4_cksum(ip);
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

void
gen_frame_build(struct gen_stream *s)
{
	const struct gen_stream_spec *sp = s->spec;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)s->frame;
	uint16_t inner_len = (uint16_t)(20 + 8 + sp->payload);

	memset(s->frame, 0, sizeof(s->frame));
	memcpy(&eth->dst_addr, sp->dst_mac, 6);
	memcpy(&eth->src_addr, sp->src_mac, 6);
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ipv4_header((struct rte_ipv4_hdr *)(eth + 1), sp->src_ip, sp->dst_ip, 64,
		    (uint16_t)(20 + 8 + inner_len));
	udp_header((struct rte_udp_hdr *)(s->frame + RTE_ETHER_HDR_LEN + 20), sp->src_port,
		   sp->dst_port, (uint16_t)(8 + inner_len));
	ipv4_header((struct rte_ipv4_hdr *)(s->frame + OUTER_LEN), sp->inner_src, sp->inner_dst,
		    sp->ttl, inner_len);
	udp_header((struct rte_udp_hdr *)(s->frame + OUTER_LEN + 20), sp->inner_sport,
		   sp->inner_dport, (uint16_t)(8 + sp->payload));
	s->frame_len = (uint16_t)(OUTER_LEN + inner_len);
}

void
gen_frame_fill(const struct gen_stream *s, uint8_t *buf, uint64_t seq, uint64_t tsc)
{
	uint32_t flow = (uint32_t)(seq % s->spec->flows);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + OUTER_LEN);
	struct gen_sig sig = {
		.magic = rte_cpu_to_be_32(GEN_MAGIC),
		.stream = s->id,
		.flow = (uint16_t)flow,
		.seq = seq,
		.tsc = tsc,
	};

	memcpy(buf, s->frame, s->frame_len);
	if (flow != 0) {
		ip->dst_addr = rte_cpu_to_be_32(rte_be_to_cpu_32(s->spec->inner_dst) + flow);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (s->spec->payload >= GEN_SIG_LEN)
		memcpy(buf + GEN_HDRS_LEN, &sig, sizeof(sig));
}

const struct gen_sig *
gen_frame_sig(const uint8_t *frame, uint32_t len)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct rte_ipv4_hdr *ip;
	const struct gen_sig *sig;
	uint32_t off = RTE_ETHER_HDR_LEN;

	/* Outer IPv4 and UDP (what the node sent), then inner IPv4 (as its code option left it). */
	for (int layer = 0; layer < 2; layer++) {
		if (len < off + 20 + 8)
			return NULL;
		ip = (const struct rte_ipv4_hdr *)(frame + off);
		if ((layer == 0 && eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4)) ||
		    (ip->version_ihl >> 4) != 4 || (ip->version_ihl & 15) < 5 ||
		    ip->next_proto_id != IPPROTO_UDP)
			return NULL;
		off += (uint32_t)(ip->version_ihl & 15) * 4 + 8;
	}
	if (len < off + GEN_SIG_LEN)
		return NULL;
	sig = (const struct gen_sig *)(frame + off);
	return sig->magic == rte_cpu_to_be_32(GEN_MAGIC) ? sig : NULL;
}
